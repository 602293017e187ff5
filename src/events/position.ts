import { createCipheriv, createDecipheriv, createHmac } from 'node:crypto';
import { ValidationError } from '../errors.ts';

/**
 * The positions clients see (the back office's feed, webhooks, the auction stream's ids, exports): opaque per house.
 * A position is the log's position (8 bytes) and a check word of the house (8 bytes), one AES block encrypted with
 * the house's own key (derived from the key ring's anchor, which is never rotated: a house keeps positions), base64url: equal positions give equal strings, but
 * nothing of the log's own numbering shows, so no house can count another's events between two of its own; one
 * that is not the house's (another house's, a forged or an old `p:` one) does not decrypt to its check word.
 * The same on the embedded log and EventStoreDB (whose commit positions the log port gives as numbers too).
 */
export class TenantPositions {
  private readonly key: Buffer;
  private readonly check: Buffer;

  constructor(secret: Buffer, tenant: string) {
    const derived = createHmac('sha256', secret).update(`positions\0${tenant}`).digest();
    this.key = derived.subarray(0, 16);
    this.check = derived.subarray(16, 24);
  }

  /** The opaque form of a log position. */
  token(position: number): string {
    return this.tokens([position])[0];
  }

  /** The opaque forms of several positions: one cipher for all their blocks (ECB encrypts each block alone). */
  tokens(positions: readonly number[]): string[] {
    if (positions.length === 0) return [];
    const blocks = Buffer.alloc(16 * positions.length);
    positions.forEach((position, i) => {
      blocks.writeBigUInt64BE(BigInt(position), 16 * i);
      this.check.copy(blocks, 16 * i + 8);
    });
    const cipher = createCipheriv('aes-128-ecb', this.key, null).setAutoPadding(false);
    const sealed = Buffer.concat([cipher.update(blocks), cipher.final()]);
    return positions.map((_, i) => sealed.toString('base64url', 16 * i, 16 * i + 16));
  }

  /** The log position of an opaque one of this house, or null when it is not one. */
  read(text: string): number | null {
    if (!/^[A-Za-z0-9_-]{22}$/.test(text)) return null;
    const bytes = Buffer.from(text, 'base64url');
    if (bytes.length !== 16) return null;
    const decipher = createDecipheriv('aes-128-ecb', this.key, null).setAutoPadding(false);
    const block = Buffer.concat([decipher.update(bytes), decipher.final()]);
    if (!block.subarray(8).equals(this.check)) return null;
    const position = block.readBigUInt64BE(0);
    return position <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(position) : null;
  }

  /**
   * A position a client gives back (`after`, `Last-Event-ID`, a replay's `After`): an empty text is the start (0);
   * one that is not this house's is a 400 naming the field (`query.after`, `header.Last-Event-ID`, `body.After`).
   * (Whether it is beyond the log's end is the caller's check: TenantFeed.position.)
   */
  parse(text: string, field: string): number {
    if (text === '') return 0;
    const position = this.read(text);
    if (position === null) throw notAPosition(field);
    return position;
  }
}

export const notAPosition = (field: string) =>
  new ValidationError(`${field.slice(field.indexOf('.') + 1)} is not a position the feed gave.`, [
    { field, message: 'is not a known position' },
  ]);

/** Every house's positions, from one secret (the key ring's anchor, src/ports/key-ring.ts): each house's made once. */
export class PositionCodec {
  private readonly houses = new Map<string, TenantPositions>();

  constructor(private readonly secret: Buffer) {}

  /** The secret as hex, for a worker thread that makes the same positions (the export's). */
  get secretHex(): string {
    return this.secret.toString('hex');
  }

  forTenant(tenant: string): TenantPositions {
    let positions = this.houses.get(tenant);
    if (!positions) this.houses.set(tenant, (positions = new TenantPositions(this.secret, tenant)));
    return positions;
  }
}
