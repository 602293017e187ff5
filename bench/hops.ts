// How many files (and lines) a reader opens following a module's imports through the feature trees: a module's
// imports are followed whole, an index.ts barrel only into the files that define the names imported; src/ and
// packages are not counted. `npx tsx bench/hops.ts commands/bidding/operations.ts` (LIST=1 names the files).
import fs from 'node:fs';
import path from 'node:path';

const root = process.cwd();
const seen = new Map<string, number>();

const inTrees = (file: string) => /^(commands|projections|queries|app)\//.test(path.relative(root, file));

/** The relative imports and re-exports of a module, with the names they bring (null: all of them). */
function importsOf(text: string) {
  const found = text.matchAll(
    /^(?:import|export)\s+(?:type\s+)?(\{[^}]*\}|\*(?:\s+as\s+\w+)?|\w+(?:,\s*\{[^}]*\})?)\s+from\s+'(\.[^']+)'/gms,
  );
  return [...found].map((m) => ({
    names: m[1].startsWith('*')
      ? null
      : [...m[1].matchAll(/(?:type\s+)?(\w+)(?:\s+as\s+\w+)?/g)].map((n) => n[1]).filter((n) => n !== 'type'),
    spec: m[2],
    reexportsAll: m[0].startsWith('export *'),
  }));
}

function defines(file: string, name: string): boolean {
  const text = fs.readFileSync(file, 'utf8');
  const declared = new RegExp(`export\\s+(?:declare\\s+)?(?:async\\s+)?(?:const|let|function\\*?|class|interface|type|enum)\\s+${name}\\b`);
  return declared.test(text) || new RegExp(`export\\s*\\{[^}]*\\b${name}\\b[^}]*\\}`).test(text);
}

function visit(file: string, names: string[] | null): void {
  const text = fs.readFileSync(file, 'utf8');
  if (!seen.has(file)) seen.set(file, text.split('\n').length);
  const barrel = path.basename(file) === 'index.ts' && names !== null;
  for (const imported of importsOf(text)) {
    const target = path.resolve(path.dirname(file), imported.spec);
    if (!inTrees(target) || !fs.existsSync(target) || seen.has(target)) continue;
    if (!barrel) visit(target, imported.names);
    else {
      const wanted = imported.reexportsAll
        ? names.filter((n) => defines(target, n))
        : (imported.names ?? []).filter((n) => names.includes(n));
      if (wanted.length > 0) visit(target, wanted);
    }
  }
}

for (const entry of process.argv.slice(2)) visit(path.resolve(root, entry), null);
const files = [...seen.entries()].map(([file, lines]) => ({ file: path.relative(root, file), lines }));
console.log(`${files.length} files, ${files.reduce((sum, f) => sum + f.lines, 0)} lines`);
if (process.env.LIST) for (const f of files) console.log(`  ${String(f.lines).padStart(5)} ${f.file}`);
