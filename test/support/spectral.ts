// Spectral, as the OpenAPI specs run it: the installed CLI with the repository's ruleset (.spectral.yaml).
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface SpectralResult {
  code: string;
  message: string;
  path: string[];
  /** 0 error, 1 warning, 2 information, 3 hint. */
  severity: number;
}

/** Runs the installed Spectral CLI on a file; its exit status is non-zero when it finds errors, so only the JSON counts. */
export function spectral(file: string): Promise<SpectralResult[]> {
  const bin = path.join(ROOT, 'node_modules', '.bin', process.platform === 'win32' ? 'spectral.cmd' : 'spectral');
  return new Promise((resolve, reject) => {
    execFile(
      bin,
      ['lint', file, '--ruleset', path.join(ROOT, '.spectral.yaml'), '--format', 'json'],
      { cwd: ROOT, timeout: 120_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const start = stdout.indexOf('[');
        if (start === -1) {
          reject(new Error(`spectral gave no JSON (${error?.message ?? 'no error'}):\n${stderr}\n${stdout}`));
          return;
        }
        try {
          resolve(JSON.parse(stdout.slice(start)) as SpectralResult[]);
        } catch (parseError) {
          reject(new Error(`spectral's output is not JSON (${String(parseError)}):\n${stderr}\n${stdout.slice(0, 2000)}`));
        }
      },
    );
  });
}

/** Lints a document (written to a temporary file named `name`) and answers its errors, with the first ones worded for a failure message. */
export async function spectralErrors(document: unknown, name: string): Promise<{ errors: SpectralResult[]; shown: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-api-openapi-'));
  try {
    const file = path.join(dir, name);
    fs.writeFileSync(file, JSON.stringify(document, null, 2));
    const errors = (await spectral(file)).filter((r) => r.severity === 0);
    const shown = errors
      .slice(0, 15)
      .map((r) => `${r.code} at ${r.path.join('.')}: ${r.message}`)
      .join('\n');
    return { errors, shown };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
