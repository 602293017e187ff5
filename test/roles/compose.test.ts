/**
 * docker-compose.yml describes the production shape: the four engines and the service's roles from one
 * Dockerfile, each with a health check. No Docker engine runs here, but Debian's docker-compose validates
 * the file without one (.ci/run installs it when it is missing).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { expect } from 'chai';

const hasCompose = spawnSync('docker-compose', ['version'], { encoding: 'utf8' }).status === 0;

describe('docker-compose.yml', function () {
  this.timeout(60_000);

  (hasCompose ? it : it.skip)('is valid for docker-compose (docker-compose config)', () => {
    const result = spawnSync('docker-compose', ['config', '-q'], { encoding: 'utf8' });
    expect(result.status, result.stderr).to.equal(0);
  });

  (hasCompose ? it : it.skip)(
    'runs the roles api, projector and worker from one build, on every production engine, with health checks',
    () => {
      const result = spawnSync('docker-compose', ['config'], { encoding: 'utf8' });
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
      expect(config).to.contain('--appendonly');
      expect(config).to.contain('--replSet');
    },
  );

  it('builds every role from the one Dockerfile, which installs with npm ci and starts app/main.ts', () => {
    const dockerfile = fs.readFileSync('Dockerfile', 'utf8');
    expect(dockerfile).to.match(/npm ci/);
    expect(dockerfile).to.contain('app/main.ts');
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
      const result = spawnSync('docker-compose', ['-f', 'docker-compose.postgres.yml', 'config'], { encoding: 'utf8' });
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
