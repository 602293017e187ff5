/* global module */
/**
 * Who imports whom between the trees (docs/architecture.md, "Layers and who imports whom"). Checked by
 * test/structure/dependencies.test.ts over src commands projections queries app; type-only imports count.
 * Which file of a feature folder holds what is test/structure/file-kinds.test.ts's (docs/architecture.md,
 * "A feature folder").
 *
 * - src/ (the core) imports no feature, and nothing but app/ imports app/ (the composition root).
 * - `commands/<f>/events.ts` is a command feature's contract: its events and stream ids. It imports only src/
 *   and other features' events.ts. Projections read nothing else of the write side: no job names, no deciders,
 *   no rules (a reactor, which adds jobs, is `commands/<f>/reactors.ts`, registered by `<f>Commands`).
 * - What a command feature offers other command features and queries besides its events: `rules.ts` (decisions
 *   and settings its operations and jobs share: `mayBidReason`, rate limits, the increment table), `dto.ts` (the
 *   HTTP answer shapes its command operations and the queries both give, reading nothing), `find.ts` (look-ups
 *   of read models that both use: the cost estimate) and `collections.ts` (documents its commands write themselves,
 *   not a projection's, which queries read: the webhooks' cursors and deliveries log, written by their delivery
 *   worker). The Idempotency-Key's `onceForKey` is the core's (src/idempotency/).
 * - A read model is reached through `projections/<f>/index.ts` (collection names and typed accessors), never
 *   its projection definition.
 * - No feature imports another feature's operations.ts (only app/ does); commands never import queries.
 * - The typed client (clients/typescript/src/) imports none of the service's code, and the reference front end's browser
 *   code (examples/bidder-web/src/) only the client and itself: both know the service by its public API alone.
 */
const EVENTS = '^commands/[^/]+/events[.]ts$';
const OFFERED = '^commands/[^/]+/(events|rules|dto|find|collections)[.]ts$';
const READ_MODEL = '^projections/[^/]+/index[.]ts$';
const OPERATIONS = '^(commands|projections|queries)/[^/]+/operations[.]ts$';
/** $1: the importing file's feature folder (`queries/lots/`), or its tree for a file at the tree's root (`queries/paging.ts`). */
const FEATURE = '^((?:commands|projections|queries)/[^/]+/|(?:commands|projections|queries)/)';

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
      name: 'events-stand-alone',
      comment:
        "A feature's events.ts imports only the core and other features' events.ts (projections, queries and other features import it).",
      severity: 'error',
      from: { path: EVENTS },
      to: { path: '^(commands|projections|queries)/', pathNot: EVENTS },
    },
    {
      name: 'projections-read-only-events',
      comment:
        'A projection reads of the write side only events (commands/<f>/events.ts): no job names, deciders, rules or answer shapes. Reactors live in commands/<f>/reactors.ts.',
      severity: 'error',
      from: { path: '^projections/' },
      to: { path: '^commands/', pathNot: EVENTS },
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
      comment:
        'Commands look up through projection accessors; answer shapes they share with queries live in commands/<f>/dto.ts, rules in commands/<f>/rules.ts.',
      severity: 'error',
      from: { path: '^commands/' },
      to: { path: '^queries/' },
    },
    {
      name: 'queries-read-what-commands-offer',
      comment:
        "Queries may import a command feature's events.ts, rules.ts, dto.ts, find.ts and collections.ts, never its operations, deciders, reactors, workers or jobs.",
      severity: 'error',
      from: { path: '^queries/' },
      to: { path: '^commands/', pathNot: OFFERED },
    },
    {
      name: 'command-features-share-only-what-they-offer',
      comment: 'A command feature imports of another one only its events.ts, rules.ts, dto.ts, find.ts or collections.ts.',
      severity: 'error',
      from: { path: '^commands/([^/]+)/' },
      to: { path: '^commands/', pathNot: ['^commands/$1/', OFFERED] },
    },
    {
      name: 'no-operations-of-other-features',
      comment:
        "No feature imports another feature's operations.ts, in its own tree or another (its own index.ts registers its own): what features share is in a file named for its kind (events.ts, rules.ts, dto.ts, find.ts).",
      severity: 'error',
      from: { path: FEATURE },
      to: { path: OPERATIONS, pathNot: '^$1operations[.]ts$' },
    },
    {
      name: 'no-cycles-through-features',
      comment: 'A cycle through a feature module makes ES module evaluation order matter (a value read before its module ran).',
      severity: 'error',
      from: { path: '^(commands|projections|queries)/' },
      to: { circular: true },
    },
    {
      name: 'client-knows-only-the-public-api',
      comment: "The typed client is generated from the OpenAPI document and talks HTTP: it imports none of the service's code.",
      severity: 'error',
      from: { path: '^clients/typescript/src/' },
      to: { path: '^(src|app|commands|projections|queries|examples)/' },
    },
    {
      name: 'front-end-built-on-the-client',
      comment: "The reference front end's browser code is built only on the client package and the public API.",
      severity: 'error',
      from: { path: '^examples/bidder-web/src/' },
      to: { path: '^(src|app|commands|projections|queries|examples/(?!bidder-web/src/))' },
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
