/* global module */
/**
 * Who imports whom between the trees (docs/architecture.md, "Layers and who imports whom"). Checked by
 * test/structure/dependencies.test.ts over src commands projections queries app; type-only imports count.
 *
 * - src/ (the core) imports no feature, and nothing but app/ imports app/ (the composition root).
 * - The contract of a command feature is `commands/<f>/events.ts` (its events and stream ids) and
 *   `commands/<f>/shared.ts` (shapes and helpers others may use); both import only src/ and other contracts.
 * - `commands/<f>/dto.ts`: the HTTP answer shapes of a feature's read side that its command operations answer
 *   too (schema, example, mapping from read-model documents); queries and commands may import it.
 * - A read model is reached through `projections/<f>/index.ts` (collection names and typed accessors), never
 *   its projection definition. Projections read only the command contracts.
 * - Nothing imports another tree's operation modules; commands never import queries.
 */
const CONTRACT = '^commands/[^/]+/(events|shared)[.]ts$';
const DTO = '^commands/[^/]+/(dto|rules)[.]ts$';
const READ_MODEL = '^projections/[^/]+/index[.]ts$';

module.exports = {
  forbidden: [
    {
      name: 'core-imports-no-feature',
      comment: 'src/ is the core: it knows features only through src/feature.ts (app/ puts them together).',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(commands|projections|queries|app)/' },
    },
    {
      name: 'only-app-imports-app',
      comment: 'app/ is the composition root: nothing it composes imports it.',
      severity: 'error',
      from: { path: '^(src|commands|projections|queries)/' },
      to: { path: '^app/' },
    },
    {
      name: 'contract-stands-alone',
      comment:
        "A feature's events.ts and shared.ts import only the core and other contracts (projections, queries and other features import them).",
      severity: 'error',
      from: { path: CONTRACT },
      to: { path: '^(commands|projections|queries)/', pathNot: CONTRACT },
    },
    {
      name: 'projections-read-the-contract',
      comment: 'A projection reads events (commands/<f>/events.ts) and shared shapes (shared.ts), nothing else of the write side.',
      severity: 'error',
      from: { path: '^projections/' },
      to: { path: '^commands/', pathNot: CONTRACT },
    },
    {
      name: 'projections-not-queries',
      severity: 'error',
      from: { path: '^projections/' },
      to: { path: '^queries/' },
    },
    {
      name: 'read-models-through-their-index',
      comment:
        'Commands and queries reach a read model through projections/<f>/index.ts (its collection names and typed accessors), never its projection definition.',
      severity: 'error',
      from: { path: '^(commands|queries)/' },
      to: { path: '^projections/', pathNot: READ_MODEL },
    },
    {
      name: 'projections-reach-each-other-through-their-index',
      comment: "A projection reads another feature's read model through its index.ts too.",
      severity: 'error',
      from: { path: '^projections/([^/]+)/' },
      to: { path: '^projections/', pathNot: [READ_MODEL, '^projections/$1/'] },
    },
    {
      name: 'commands-not-queries',
      comment: 'Commands look up through projection accessors; answer shapes they share with queries live in commands/<f>/dto.ts.',
      severity: 'error',
      from: { path: '^commands/' },
      to: { path: '^queries/' },
    },
    {
      name: 'queries-read-the-contract',
      comment: "Queries may import a command feature's events.ts, shared.ts and dto.ts, never its operations, deciders or jobs.",
      severity: 'error',
      from: { path: '^queries/' },
      to: { path: '^commands/', pathNot: [CONTRACT, DTO] },
    },
    {
      name: 'command-features-share-only-their-contract',
      comment: 'A command feature imports of another one only its events.ts, shared.ts or dto.ts.',
      severity: 'error',
      from: { path: '^commands/([^/]+)/' },
      to: { path: '^commands/', pathNot: ['^commands/$1/', CONTRACT, DTO] },
    },
    {
      name: 'no-operations-across-trees',
      comment: "Nothing imports another tree's operations.ts (HTTP operations are registered through index.ts).",
      severity: 'error',
      from: { path: '^(commands|projections|queries)/' },
      to: { path: '^(commands|projections|queries)/[^/]+/operations[.]ts$', pathNot: '^$1/' },
    },
    {
      name: 'no-cycles-through-features',
      comment: 'A cycle through a feature module makes ES module evaluation order matter (a value read before its module ran).',
      severity: 'error',
      from: { path: '^(commands|projections|queries)/' },
      to: { circular: true },
    },
    {
      name: 'features-registered-through-index',
      comment: 'app/features/index.ts puts features together from their index.ts only.',
      severity: 'error',
      from: { path: '^app/features/index[.]ts$' },
      to: { path: '^(commands|projections|queries)/', pathNot: '/index[.]ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|test|bench)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs', '.cjs', '.json'] },
    moduleSystems: ['es6', 'cjs'],
  },
};
