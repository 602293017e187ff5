// What each key of a ring does now, and whether one may be retired (`npm run keys`): a key that stopped signing
// still verifies what it signed until that has expired, so retiring it earlier signs those members out.
import type { KeyRing, SigningKey } from '../ports/key-ring.ts';
import { KEY_REFRESH_MS } from './signing-keys.ts';
import { LONGEST_CREDENTIAL_SECONDS } from './tokens.ts';

/**
 * Beyond a credential's lifetime: a process signs with the key it read last for up to KEY_REFRESH_MS after a newer
 * one was added, and clocks of several machines differ by a little.
 */
const SLACK_MS = 2 * KEY_REFRESH_MS + 60_000;

export interface KeyStatus {
  id: string;
  created: string;
  state: 'signs' | 'verifies' | 'retired';
  /** `verifies`: until when a credential it signed may still be valid (ISO 8601); `retired`: when it was retired. */
  until?: string;
}

const newest = (keys: SigningKey[]) => keys.reduce((a, b) => (Date.parse(b.created) >= Date.parse(a.created) ? b : a));

/**
 * When a key not signing now signed last, as far as the ring tells: a newer key still active has signed since it was
 * added (so this one has not), and before that this one may have (a newer key retired since may have left it signing).
 */
function stoppedSigning(ring: KeyRing, key: SigningKey): number {
  const newer = ring.keys.filter((k) => k.retired === undefined && k !== key && Date.parse(k.created) >= Date.parse(key.created));
  return Math.min(...newer.map((k) => Date.parse(k.created)));
}

/** Each key of the ring, oldest first, with what it does. */
export function keyStatuses(ring: KeyRing): KeyStatus[] {
  const active = ring.keys.filter((key) => key.retired === undefined);
  const signer = active.length > 0 ? newest(active) : null;
  return ring.keys.map((key) => {
    const base = { id: key.id, created: key.created };
    if (key.retired !== undefined) return { ...base, state: 'retired', until: key.retired };
    if (key === signer) return { ...base, state: 'signs' };
    const until = stoppedSigning(ring, key) + LONGEST_CREDENTIAL_SECONDS * 1000 + SLACK_MS;
    return { ...base, state: 'verifies', until: new Date(until).toISOString() };
  });
}

/** Why `id` may not be retired now, or null when it may; `force` lifts only the refusal that would sign members out. */
export function retireRefusal(ring: KeyRing, id: string, now: Date, force: boolean): string | null {
  const status = keyStatuses(ring).find((s) => s.id === id);
  if (!status) return `there is no key ${id} in the ring (npm run keys -- list)`;
  if (status.state === 'retired') return `${id} was retired at ${status.until}`;
  const active = ring.keys.filter((key) => key.retired === undefined);
  if (active.length === 1) return `${id} is the only key that signs: add another first (npm run keys -- rotate)`;
  if (force) return null;
  if (status.state === 'signs')
    return `${id} signs now: rotate first (npm run keys -- rotate), or --force to retire it at once and sign out whoever holds a token it signed`;
  if (Date.parse(status.until!) > now.getTime())
    return (
      `tokens ${id} signed may be valid until ${status.until} (${LONGEST_CREDENTIAL_SECONDS / 3600} h after it stopped signing): ` +
      'retiring it now signs their holders out; wait until then, or --force'
    );
  return null;
}
