// The analyst's projection module type-checked with the project's tsconfig before any event is replayed: a
// misspelt field (`d.lotid`) is a type error there, where the replay alone would run and write `undefined`.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** Modules that passed, by their content and the project's compiler settings: a second run of one skips the check. */
const CACHE = path.join(ROOT, 'node_modules', '.cache', 'bidder-project-typecheck');

export interface TypeCheck {
  /** The module's own type errors, one line each (`file:line:column message`); empty when it is sound. */
  errors: string[];
  /** Why it was not checked (TypeScript is not installed where the tool runs), or null. */
  skipped: string | null;
}

export async function typeCheck(file: string): Promise<TypeCheck> {
  const resolved = path.resolve(file);
  let ts: typeof import('typescript');
  try {
    ts = (await import('typescript')).default;
  } catch {
    return { errors: [], skipped: 'TypeScript is not installed here (npm ci installs it): the module was not type-checked' };
  }
  const configFile = path.join(ROOT, 'tsconfig.json');
  const key = createHash('sha256')
    .update(fs.readFileSync(resolved))
    .update(fs.readFileSync(configFile))
    .update(ts.version)
    .update(resolved)
    .digest('hex');
  const passed = path.join(CACHE, key);
  if (fs.existsSync(passed)) return { errors: [], skipped: null };
  const config = ts.readConfigFile(configFile, (f) => ts.sys.readFile(f));
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
  const program = ts.createProgram([resolved], { ...options, noEmit: true });
  const errors = ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.category === ts.DiagnosticCategory.Error && (!d.file || path.resolve(d.file.fileName) === resolved))
    .map((d) => {
      const text = ts.flattenDiagnosticMessageText(d.messageText, ' ');
      if (!d.file || d.start === undefined) return text;
      const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
      return `${path.relative(process.cwd(), d.file.fileName)}:${line + 1}:${character + 1} ${text}`;
    });
  if (errors.length === 0) {
    fs.mkdirSync(CACHE, { recursive: true });
    fs.writeFileSync(passed, '');
  }
  return { errors, skipped: null };
}
