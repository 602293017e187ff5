// `npm run keys -- list [--json] | rotate | retire ID [--force] | init`: the signing keys of the deployment the
// environment names (docs/operations.md "Secrets"), in the store every process reads (app/key-ring.ts). No secret
// is ever printed. Exit codes: 0 done, 1 refused (the line says why), 2 bad input.
import { ConfigError, loadConfig, type Config } from '../../src/config.ts';
import type { KeyRingStore } from '../../src/ports/key-ring.ts';
import { BadInput, runTool } from '../../src/cli/tool.ts';
import { keyStatuses, retireRefusal, type KeyStatus } from '../../src/security/key-rotation.ts';
import { KEY_REFRESH_MS, keyIdOf, newSigningKey } from '../../src/security/signing-keys.ts';
import { initialRing, openKeyRingStore } from '../key-ring.ts';

const USAGE = 'usage: npm run keys -- list [--json] | rotate | retire ID [--force] | init';
/** Within how long every process follows a change: its next reading of the ring, and its callers' caches. */
const TAKES_EFFECT = `${(KEY_REFRESH_MS + 5000) / 1000} s`;

const say = (line: string) => process.stdout.write(`${line}\n`);

function table(statuses: KeyStatus[]): string[] {
  const what = (s: KeyStatus) =>
    s.state === 'signs' ? 'signs' : s.state === 'verifies' ? `verifies (what it signed lives until ${s.until})` : `retired ${s.until}`;
  const width = Math.max(2, ...statuses.map((s) => s.id.length));
  return [
    `${'ID'.padEnd(width)}  ${'CREATED'.padEnd(24)}  STATE`,
    ...statuses.map((s) => `${s.id.padEnd(width)}  ${s.created.padEnd(24)}  ${what(s)}`),
  ];
}

/** With JWT_SECRET set the service signs with it alone: the ring is not used, and changing it changes nothing. */
function fixedKey(config: Config, command: string, json: boolean): number {
  const id = keyIdOf(Buffer.from(config.jwtSecret!, 'utf8'));
  if (command === 'list') {
    if (json) say(JSON.stringify({ store: 'JWT_SECRET', keys: [{ id, state: 'signs' }] }));
    else say(`JWT_SECRET is set: every process signs and verifies with it alone (key ${id})`);
    return 0;
  }
  process.stderr.write(
    `keys: JWT_SECRET is set, so the service signs with it alone and ${command} would change nothing. To rotate: ` +
      '`npm run keys -- init` with JWT_SECRET still set (the ring starts from it), then unset JWT_SECRET on every process\n',
  );
  return 1;
}

async function run(store: KeyRingStore, describe: string, config: Config, args: string[]): Promise<number> {
  const [command, ...rest] = args;
  const now = new Date();
  if (command === 'init') {
    const before = await store.read();
    const ring = before ?? (await store.open(() => initialRing(config)));
    say(before ? `the key ring exists already in ${describe} (${ring.keys.length} keys)` : `made the key ring in ${describe}`);
    if (!before && config.jwtSecret) say('it starts from JWT_SECRET: unset JWT_SECRET on every process and restart them');
    return 0;
  }
  const ring = await store.open(() => initialRing(config));
  if (command === 'list') {
    const statuses = keyStatuses(ring);
    if (rest.includes('--json')) say(JSON.stringify({ store: describe, keys: statuses }));
    else [`key ring: ${describe}`, ...table(statuses)].forEach(say);
    return 0;
  }
  if (command === 'rotate') {
    const key = newSigningKey(now);
    if (!(await store.add(key))) throw new Error(`a key ${key.id} exists already`);
    say(`added ${key.id}: it signs on every process within ${TAKES_EFFECT}; the keys before it verify what they signed until it expires`);
    return 0;
  }
  // retire
  const id = rest.find((arg) => !arg.startsWith('--'))!;
  const refusal = retireRefusal(ring, id, now, rest.includes('--force'));
  if (refusal) {
    process.stderr.write(`keys: ${refusal}\n`);
    return 1;
  }
  if (!(await store.retire(id, now.toISOString()))) {
    process.stderr.write(`keys: ${id} was retired meanwhile\n`);
    return 1;
  }
  say(`retired ${id}: every process refuses what it signed within ${TAKES_EFFECT}`);
  return 0;
}

function checkArgs(args: string[]): void {
  const [command, ...rest] = args;
  const options = { list: ['--json'], rotate: [], init: [], retire: ['--force'] }[command as 'list'];
  if (!options) throw new BadInput(USAGE);
  const unknown = rest.find((arg) => arg.startsWith('--') && !options.includes(arg));
  if (unknown) throw new BadInput(`unknown option ${unknown}; ${USAGE}`);
  const positional = rest.filter((arg) => !arg.startsWith('--'));
  if (positional.length !== (command === 'retire' ? 1 : 0)) throw new BadInput(USAGE);
}

runTool('keys', async () => {
  const args = process.argv.slice(2);
  checkArgs(args);
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    throw error instanceof ConfigError ? new BadInput(error.message) : error;
  }
  if (config.jwtSecret && args[0] !== 'init') return fixedKey(config, args[0], args.includes('--json'));
  const { store, describe } = await openKeyRingStore(config);
  try {
    return await run(store, describe, config, args);
  } finally {
    await store.close();
  }
});
