import fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import { expect } from 'chai';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';

/**
 * The arrows between the trees (docs/architecture.md, "Layers and who imports whom"), as .dependency-cruiser.cjs
 * states them, checked over the service's code: every import, type-only ones included. And what each feature
 * folder's index.ts exports, which the arrows rely on.
 */
describe('dependencies between the trees', function () {
  this.timeout(60_000);

  const TREES = { commands: 'Commands', projections: 'ReadModels', queries: 'Queries' } as const;
  const folders = (tree: string) =>
    fs
      .readdirSync(tree, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
  const camel = (folder: string) => folder.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

  it('follow the rules of .dependency-cruiser.cjs: the core imports no feature, read models are reached through their index, projections read only events, commands share only events, rules and answer shapes', async () => {
    const options = await extractDepcruiseOptions('./.dependency-cruiser.cjs');
    const { output } = await cruise(
      ['src', 'commands', 'projections', 'queries', 'app', 'clients/typescript/src', 'examples/bidder-web/src'],
      options,
      undefined,
      {
        tsConfig: extractTSConfig('tsconfig.json'),
      },
    );
    const result = output as ICruiseResult;
    const violations = result.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`);
    expect(violations, `dependency violations:\n  ${violations.join('\n  ')}\n`).to.deep.equal([]);
    // A cruise that found nothing would pass too: it must have read the trees.
    expect(result.summary.totalCruised).to.be.greaterThan(200);
  });

  it('has an index.ts in every feature folder, exporting what the folder registers as <feature>Commands, <feature>ReadModels or <feature>Queries', async () => {
    for (const [tree, suffix] of Object.entries(TREES))
      for (const folder of folders(tree)) {
        const file = `${tree}/${folder}/index.ts`;
        expect(fs.existsSync(file), file).to.equal(true);
        const exported = await import(pathToFileURL(file).href);
        expect(exported, file).to.have.property(`${camel(folder)}${suffix}`);
      }
  });

  it('exports no projection definition from projections/<feature>/index.ts: others get its accessors, the runtime gets <feature>ReadModels', async () => {
    for (const folder of folders('projections')) {
      const exported: Record<string, unknown> = await import(pathToFileURL(`projections/${folder}/index.ts`).href);
      const definitions = Object.entries(exported)
        .filter(([, value]) => typeof value === 'object' && value !== null && 'kind' in value && 'handles' in value)
        .map(([name]) => name);
      expect(definitions, `projections/${folder}/index.ts`).to.deep.equal([]);
    }
  });
});
