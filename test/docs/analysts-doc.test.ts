// docs/analysts.md lists every event set a projection may read (commands/<feature>/events.ts, and the core's own in
// src/<part>/events.ts) with its types: the table must be the sets as they are, so an analyst finds each type where it lives.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('docs/analysts.md', () => {
  it('lists every event set of commands/*/events.ts and src/*/events.ts with its module and types, the operator’s marked', async () => {
    const text = fs.readFileSync(path.join(ROOT, 'docs/analysts.md'), 'utf8');
    const documented = [...text.matchAll(/^ {2}\| `(\w+)` \| `((?:commands|src)\/[\w-]+\/events\.ts)` \| (.+) \|$/gm)].map((m) => `${m[1]} ${m[2]} ${m[3]}`);
    const actual: string[] = [];
    const folders = ['commands', 'src'].flatMap((tree) => fs.readdirSync(path.join(ROOT, tree)).sort().map((name) => `${tree}/${name}`));
    for (const folder of folders) {
      const file = path.join(ROOT, folder, 'events.ts');
      if (!fs.existsSync(file)) continue;
      for (const [name, value] of Object.entries(await import(file))) {
        const set = value as { types?: unknown; definitions?: Array<{ type: string; operator?: boolean }> };
        if (!Array.isArray(set?.types) || !Array.isArray(set.definitions)) continue;
        const types = set.definitions.map((d) => (d.operator ? `${d.type} (operator)` : d.type)).join(', ');
        actual.push(`${name} ${folder}/events.ts ${types}`);
      }
    }
    expect(actual.length).to.be.greaterThan(10);
    expect(documented).to.deep.equal(actual);
  });
});
