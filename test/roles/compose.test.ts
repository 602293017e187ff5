/**
 * docker-compose.yml describes the production shape: the four engines and the service's roles from one
 * Dockerfile, each with a health check. No Docker engine runs here, but Debian's docker-compose validates
 * the file without one (.ci/run installs it when it is missing). Neither compose file has a default for a secret,
 * and no engine is reachable from outside without its password or key (docs/operations.md "Secrets").
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { expect } from 'chai';
import { PUBLISHED_SECRETS } from '../../src/published-secrets.ts';
import { composeServices, type ComposeService } from '../support/compose-file.ts';
import { BASH_ONLY, IMAGES, type ImageContents, programsOf, runtimeStage } from './image-contents.ts';

const hasCompose = spawnSync('docker-compose', ['version'], { encoding: 'utf8' }).status === 0;

/** The secrets each file requires (`${VAR:?…}`), with values of the spec's own: nothing of the shell that runs it. */
const REQUIRED = {
  'docker-compose.yml': ['MONGODB_PASSWORD', 'REDIS_PASSWORD', 'TYPESENSE_API_KEY', 'TYPESENSE_SEARCH_API_KEY'],
  'docker-compose.postgres.yml': ['POSTGRES_PASSWORD', 'REDIS_PASSWORD'],
} as const;
const valueOf = (name: string) => `${name.toLowerCase().replace(/_/g, '-')}-of-the-compose-spec-0123456789abcdef`;

/** `docker-compose -f FILE ARGS` with only PATH, HOME and `env`. */
function compose(file: keyof typeof REQUIRED, args: string[], env: Record<string, string> = {}) {
  const base = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/root' };
  return spawnSync('docker-compose', ['-f', file, ...args], { encoding: 'utf8', env: { ...base, ...env } });
}
const withSecrets = (file: keyof typeof REQUIRED) => Object.fromEntries(REQUIRED[file].map((name) => [name, valueOf(name)]));

describe('docker-compose.yml', function () {
  this.timeout(60_000);

  (hasCompose ? it : it.skip)('is valid for docker-compose (docker-compose config)', () => {
    const result = compose('docker-compose.yml', ['config', '-q'], withSecrets('docker-compose.yml'));
    expect(result.status, result.stderr).to.equal(0);
  });

  (hasCompose ? it : it.skip)(
    'runs the roles api, projector and worker from one build, on every production engine, with health checks',
    () => {
      const result = compose('docker-compose.yml', ['config'], withSecrets('docker-compose.yml'));
      expect(result.status, result.stderr).to.equal(0);
      const config = result.stdout;
      for (const role of ['api', 'projector', 'worker']) expect(config).to.match(new RegExp(`ROLE: ${role}`));
      for (const variable of ['EVENTSTOREDB_URL', 'MONGODB_URL', 'TYPESENSE_URL', 'TYPESENSE_API_KEY', 'REDIS_URL'])
        expect(config).to.contain(variable);
      for (const service of ['eventstoredb', 'mongodb', 'typesense', 'redis', 'api', 'projector', 'worker']) {
        const block = config.split(/\n {2}(?=\S)/).find((b) => b.startsWith(`${service}:`));
        expect(block, service).to.be.a('string');
        expect(block, `${service} has a health check`).to.contain('healthcheck:');
      }
      expect(config).to.match(/appendonly\s+yes/);
      expect(config).to.contain('--replSet');
    },
  );

  it('builds every role from the one Dockerfile: compiled in a build stage, run from a runtime stage without compilers or curl', () => {
    const dockerfile = fs.readFileSync('Dockerfile', 'utf8');
    const build = dockerfile.slice(0, dockerfile.lastIndexOf('\nFROM '));
    expect(build).to.match(/^FROM \S+ AS build$/m);
    expect(build)
      .to.match(/npm ci/)
      .and.match(/npm run build/)
      .and.match(/npm prune --omit=dev/);
    const runtime = runtimeStage(dockerfile);
    expect(runtime.base).to.equal('node:20-bookworm-slim');
    for (const tool of ['python3', 'make', 'g++', 'gcc', 'curl', 'wget']) expect(runtime.installs, tool).to.not.include(tool);
    // Only what the build stage made: the production dependencies with the native module, the compiled JavaScript.
    const copies = [...runtime.text.matchAll(/^COPY (.*)$/gm)].map((m) => m[1]);
    expect(copies).to.deep.equal([
      '--from=build /app/package.json /app/package-lock.json ./',
      '--from=build /app/node_modules ./node_modules',
      '--from=build /app/dist ./dist',
    ]);
    expect(runtime.text).to.match(/^CMD \["node", "--max-old-space-size=1024", "dist\/app\/main\.js"\]$/m);
    const compose = fs.readFileSync('docker-compose.yml', 'utf8');
    expect(compose.match(/build: \./g)).to.have.length(1);
  });

  if (!hasCompose) {
    it('(docker-compose is not installed here: the two validation specs above were skipped)', () => undefined);
  }
});

describe('docker-compose.postgres.yml', function () {
  this.timeout(60_000);

  (hasCompose ? it : it.skip)(
    'runs the roles api, projector and worker on PostgreSQL and Redis alone, sharing no volume, with health checks',
    () => {
      const result = compose('docker-compose.postgres.yml', ['config'], withSecrets('docker-compose.postgres.yml'));
      expect(result.status, result.stderr).to.equal(0);
      const config = result.stdout;
      const blocks = config.split(/\n {2}(?=\S)/);
      for (const role of ['api', 'projector', 'worker']) {
        const block = blocks.find((b) => b.startsWith(`${role}:`));
        expect(block, role).to.be.a('string');
        expect(block).to.contain(`ROLE: ${role}`).and.contain('POSTGRES_URL').and.contain('REDIS_URL').and.contain('healthcheck:');
        expect(block, `${role} mounts no shared volume`).to.not.match(/\n {4}volumes:/);
      }
      for (const engine of ['postgres', 'redis']) expect(blocks.find((b) => b.startsWith(`${engine}:`))).to.contain('healthcheck:');
      for (const other of ['eventstoredb', 'mongodb', 'typesense'])
        expect(
          blocks.some((b) => b.startsWith(`${other}:`)),
          other,
        ).to.equal(false);
    },
  );
});

/** A variable that holds a secret, by its name. */
const SECRET_NAME = /PASSWORD|SECRET|KEY|TOKEN|AUTH/i;

/** Each service's block of a compose file's text (two-space indented keys under `services:`). */
function serviceBlocks(text: string): Map<string, string> {
  const services = text.slice(text.indexOf('\nservices:\n'));
  const blocks = new Map<string, string>();
  for (const block of services.split(/\n(?= {2}[a-z0-9-]+:\n)/).slice(1)) blocks.set(/^ {2}([a-z0-9-]+):/.exec(block)![1], block);
  return blocks;
}

/** The `ports:` of a service block (its flow list), empty when it publishes none. */
const portsOf = (block: string) => [...(/ports: \[([^\]]*)\]/.exec(block)?.[1].matchAll(/'([^']+)'/g) ?? [])].map((m) => m[1]);

for (const file of Object.keys(REQUIRED) as Array<keyof typeof REQUIRED>) {
  describe(`${file}: secrets`, function () {
    this.timeout(60_000);
    const text = fs.readFileSync(file, 'utf8');

    it('gives no secret a default: each is required (${VAR:?what to set}) or optional and empty (${VAR:-})', () => {
      const found: string[] = [];
      for (const [, name, op, value] of text.matchAll(/\$\{(\w+)(:?[-?])([^}]*)\}/g)) {
        if (!SECRET_NAME.test(name)) continue;
        if (op.endsWith('-') && value !== '') found.push(`\${${name}${op}${value}}`);
        if (op.endsWith('?') && !/^set /.test(value)) found.push(`\${${name}${op}${value}}: says what to set`);
      }
      // A literal value of a secret variable, other than an empty one.
      for (const [, name, value] of text.matchAll(/^ +(\w+): *(.+)$/gm))
        if (SECRET_NAME.test(name) && !value.startsWith('${') && value !== "''") found.push(`${name}: ${value}`);
      expect(found).to.deep.equal([]);
      for (const name of REQUIRED[file]) expect(text, name).to.contain(`\${${name}:?set ${name}`);
    });

    it('puts no secret on a command line (ps shows it): engines read theirs from the environment or standard input', () => {
      for (const line of text.split('\n').filter((l) => /^ *(command|entrypoint):|^ +- /.test(l)))
        for (const [, name] of line.matchAll(/\$\{(\w+)/g)) expect(SECRET_NAME.test(name), line).to.equal(false);
      expect(text).to.not.match(/--api-key|--requirepass|--password/);
    });

    it('publishes each engine only with its password or key, or on no port', () => {
      const blocks = serviceBlocks(text);
      // What makes each engine ask for credentials, in its block.
      const auth: Record<string, RegExp> = {
        postgres: /POSTGRES_PASSWORD: \$\{POSTGRES_PASSWORD:\?/,
        redis: /REDISCLI_AUTH: \$\{REDIS_PASSWORD:\?[^}]*\}[\s\S]*requirepass "%s"/,
        mongodb: /MONGO_INITDB_ROOT_PASSWORD: \$\{MONGODB_PASSWORD:\?[\s\S]*--keyFile/,
        typesense: /TYPESENSE_API_KEY: \$\{TYPESENSE_API_KEY:\?/,
      };
      const engines = [...blocks.keys()].filter((name) => !['api', 'projector', 'worker', 'typesense-keys'].includes(name));
      expect(engines.length).to.be.greaterThan(1);
      for (const engine of engines) {
        const block = blocks.get(engine)!;
        const ports = portsOf(block);
        if (engine === 'eventstoredb') expect(ports, 'EventStoreDB without TLS has no users: published on no port').to.deep.equal([]);
        else if (ports.length > 0) expect(block, `${engine} publishes ${ports.join(', ')}`).to.match(auth[engine]);
      }
      // Each role reaches the engines with their credentials.
      if (file === 'docker-compose.yml') {
        expect(text).to.contain('mongodb://bidder:${MONGODB_PASSWORD:?');
        expect(text).to.match(/EVENTSTORE_INSECURE: 'true'/);
      }
      expect(text).to.contain('redis://:${REDIS_PASSWORD:?');
    });

    (hasCompose ? it : it.skip)('will not render while a required secret is unset, naming it', () => {
      for (const missing of REQUIRED[file]) {
        const env = withSecrets(file);
        delete env[missing];
        const result = compose(file, ['config', '-q'], env);
        expect(result.status, missing).to.not.equal(0);
        expect(result.stderr, missing).to.contain(`set ${missing}`);
      }
    });

    (hasCompose ? it : it.skip)('renders with the secrets given, none of a published example', () => {
      const result = compose(file, ['config'], withSecrets(file));
      expect(result.status, result.stderr).to.equal(0);
      for (const name of REQUIRED[file]) expect(result.stdout, name).to.contain(valueOf(name));
      for (const example of PUBLISHED_SECRETS) expect(result.stdout).to.not.match(new RegExp(`[:@ ]${example}[@\\s'"]`));
      expect(result.stdout).to.match(/SEED_DEMO: "false"/);
    });
  });
}

/** The service's own image (Dockerfile): its runtime stage's base and what that stage installs. */
function ownImage(): ImageContents {
  const stage = runtimeStage(fs.readFileSync('Dockerfile', 'utf8'));
  const base = IMAGES[stage.base];
  if (!base) throw new Error(`the Dockerfile's runtime stage is FROM ${stage.base}, which test/roles/image-contents.ts does not know`);
  return { ...base, has: [...base.has, ...stage.installs], lacks: base.lacks.filter((p) => !stage.installs.includes(p)) };
}

/** Why a command (exec form, or a script for `shell`) cannot run in `image`; empty when it can. */
function cannotRun(image: ImageContents, argv: string[], shell?: 'sh' | 'bash'): string[] {
  const [path, ...args] = argv;
  const program = path.split('/').pop()!;
  const problems: string[] = [];
  const runs = (p: string) => {
    if (!image.has.includes(p))
      problems.push(
        image.lacks.includes(p) ? `${p}: the image has none` : `${p}: not known to be in the image (add it to the table, with its source)`,
      );
  };
  if (shell) {
    const sh = shell === 'bash' ? 'bash' : image.sh;
    if (sh !== 'bash')
      for (const [pattern, what] of BASH_ONLY) if (pattern.test(path)) problems.push(`${what}: /bin/sh is ${sh}, which has none`);
    for (const p of programsOf(path)) runs(p);
    return problems;
  }
  runs(program);
  const script = args[args.indexOf('-c') + 1];
  if ((program === 'bash' || program === 'sh') && args.includes('-c') && script) problems.push(...cannotRun(image, [script], program));
  return problems;
}

/** Every command a service runs in its image by a shell or as a health check, with how it is run. */
function commandsOf(service: ComposeService): Array<{ what: string; argv: string[]; shell?: 'sh' | 'bash' }> {
  const found: Array<{ what: string; argv: string[]; shell?: 'sh' | 'bash' }> = [];
  const test = service.healthcheck?.test;
  if (test?.[0] === 'CMD-SHELL') found.push({ what: 'health check', argv: [test[1]], shell: 'sh' });
  else if (test?.[0] === 'CMD') found.push({ what: 'health check', argv: test.slice(1) });
  const entrypoint = service.entrypoint;
  if (entrypoint && /(^|\/)(ba)?sh$/.test(entrypoint[0]) && entrypoint[1] === '-c')
    found.push({ what: 'entrypoint', argv: entrypoint.length > 2 ? entrypoint : [...entrypoint, service.command?.[0] ?? ''] });
  return found;
}

describe('health checks and shell entrypoints run with what their images contain (test/roles/image-contents.ts)', () => {
  for (const file of Object.keys(REQUIRED)) {
    it(`${file}: each calls only programs its image has, and nothing of bash where /bin/sh is dash`, () => {
      const problems: string[] = [];
      for (const [name, service] of Object.entries(composeServices(file))) {
        const image = service.build ? ownImage() : IMAGES[service.image ?? ''];
        if (!image) {
          problems.push(`${name}: image ${service.image} is not in the table`);
          continue;
        }
        for (const { what, argv, shell } of commandsOf(service))
          for (const problem of cannotRun(image, argv, shell)) problems.push(`${name}'s ${what}: ${problem}`);
      }
      expect(problems).to.deep.equal([]);
    });

    it(`${file}: every engine and role has a health check with a time-out`, () => {
      for (const [name, service] of Object.entries(composeServices(file))) {
        if (name === 'typesense-keys') continue; // a one-shot job: done is its exit code
        expect(service.healthcheck?.test, name).to.be.an('array');
        expect(service.healthcheck, name).to.have.property('timeout');
      }
    });
  }

  it("the Dockerfile's own HEALTHCHECK runs with what its runtime stage contains", () => {
    const stage = runtimeStage(fs.readFileSync('Dockerfile', 'utf8'));
    const command = /HEALTHCHECK[^\n]*?\sCMD\s+(.*)$/m.exec(stage.text)?.[1];
    expect(command, 'a HEALTHCHECK in the runtime stage').to.be.a('string');
    const problems = command!.startsWith('[') ? cannotRun(ownImage(), JSON.parse(command!)) : cannotRun(ownImage(), [command!], 'sh');
    expect(problems).to.deep.equal([]);
  });

  it('the table knows no program as both present and missing', () => {
    for (const [image, contents] of Object.entries(IMAGES))
      expect(
        contents.has.filter((p) => contents.lacks.includes(p)),
        image,
      ).to.deep.equal([]);
  });
});
