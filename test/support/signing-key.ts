// The key a spec's service signs with now, read from its key ring (DATA_DIR/secrets/keys.json), for specs that sign
// tokens of their own: its id goes in the token's `kid` header.
import fs from 'node:fs';
import path from 'node:path';
import type { KeyRing } from '../../src/ports/key-ring.ts';

export function signingKeyOf(dataDir: string): { id: string; secret: Buffer } {
  const ring = JSON.parse(fs.readFileSync(path.join(dataDir, 'secrets', 'keys.json'), 'utf8')) as KeyRing;
  const active = ring.keys.filter((key) => key.retired === undefined);
  const newest = active.reduce((a, b) => (Date.parse(b.created) >= Date.parse(a.created) ? b : a));
  return { id: newest.id, secret: Buffer.from(newest.secret, 'utf8') };
}
