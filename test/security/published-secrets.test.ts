/**
 * Every example value of a secret in this service's own files (README.md, docs/, the compose files, the Dockerfile) is
 * in src/published-secrets.ts, so the service refuses it as JWT_SECRET or OPERATOR_TOKEN (test/security/secret-settings.test.ts):
 * an operator who copies an example gets a refusal, not a secret everyone can read.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { PUBLISHED_SECRETS } from '../../src/published-secrets.ts';

const SECRET_NAME = /PASSWORD|SECRET|KEY|TOKEN|AUTH/i;

/** The files the service publishes: its README, docs, compose files and Dockerfile, and the examples' READMEs. */
function publishedFiles(): string[] {
  const markdown = (dir: string): string[] =>
    fs.existsSync(dir)
      ? fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
          const file = path.join(dir, entry.name);
          if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : markdown(file);
          return entry.name.endsWith('.md') ? [file] : [];
        })
      : [];
  const top = fs.readdirSync('.').filter((name) => /^(README\.md|Dockerfile|docker-compose.*\.ya?ml|\.env\.example)$/.test(name));
  return [...top, ...markdown('docs'), ...markdown('examples'), ...markdown('clients')];
}

/** A placeholder, not a value: `...`, `<key>`, `$(openssl …)`, `${VAR}`, empty. */
const placeholder = (value: string) => value === '' || /\.\.\.|…/.test(value) || /^[$<[{(]/.test(value);

/** The example values of secrets in a file's text. */
function exampleSecrets(text: string): string[] {
  const found: string[] = [];
  const add = (value: string) => {
    const bare = value.replace(/^['"]|['"]$/g, '');
    if (!placeholder(bare)) found.push(bare);
  };
  // A default in an interpolation: ${JWT_SECRET:-value}.
  for (const [, name, value] of text.matchAll(/\$\{(\w+):?-([^}]*)\}/g)) if (SECRET_NAME.test(name)) add(value);
  // An assignment in a shell line or an environment list: JWT_SECRET=value, JWT_SECRET: value.
  for (const [, name, value] of text.matchAll(/\b([A-Z][A-Z0-9_]*)(?:=|: +)(['"]?[^\s'"`|,;)]+['"]?)/g))
    if (SECRET_NAME.test(name) && !value.startsWith('${')) add(value);
  // The password of a URL: postgres://user:password@host.
  for (const [, value] of text.matchAll(/[a-z]+:\/\/[^/:@\s[\]`]+:([^@/\s`]+)@/g)) if (!value.startsWith('${')) add(value);
  return found;
}

describe('the secrets printed in our own files', () => {
  it('finds examples where they are written (the way this spec reads them)', () => {
    const text =
      'export JWT_SECRET=abc123\n  TOKEN: "xyz"\nPOSTGRES_URL=postgres://u:pw@h/d ${KEY:-dflt} KEY=... A_KEY=$(openssl rand -hex 32)';
    expect(exampleSecrets(text)).to.have.members(['abc123', 'xyz', 'pw', 'dflt']);
  });

  it('are each in src/published-secrets.ts, which the service refuses as a secret', () => {
    const files = publishedFiles();
    expect(files).to.include.members([
      'README.md',
      'docker-compose.yml',
      'docker-compose.postgres.yml',
      path.join('docs', 'operations.md'),
    ]);
    const unlisted = files.flatMap((file) =>
      exampleSecrets(fs.readFileSync(file, 'utf8'))
        .filter((value) => !PUBLISHED_SECRETS.includes(value))
        .map((value) => `${file}: ${value}`),
    );
    expect(unlisted, 'add them to src/published-secrets.ts (or write a placeholder)').to.deep.equal([]);
  });
});
