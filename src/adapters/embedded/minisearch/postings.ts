/**
 * One posting list (the documents of one term in one field, shortId -> term frequency) as pairs in a single
 * Int32Array sorted by shortId, in place of the Map MiniSearch makes: 8 bytes a posting outside the objects
 * the garbage collector traces, instead of a Map entry on the JS heap (Map postings would be most of the lot
 * index's heap: docs/performance.md). It offers the part of Map's interface MiniSearch and this adapter use;
 * iterating while deleting (MiniSearch's vacuum) is safe.
 */
export class Postings {
  /** [shortId, tf, shortId, tf, ...], the first 2 x size used (the query runner reads them in place). */
  pairs: Int32Array;
  size = 0;

  constructor(capacity = 1) {
    this.pairs = new Int32Array(2 * Math.max(1, capacity));
  }

  /** From pairs already sorted by shortId (a snapshot's): copied. */
  static fromPairs(pairs: Int32Array): Postings {
    const p = new Postings(pairs.length / 2);
    p.pairs.set(pairs);
    p.size = pairs.length / 2;
    for (let i = 2; i < pairs.length; i += 2) {
      if (pairs[i] <= pairs[i - 2]) {
        // Not sorted (never written so, but cheap to survive): insert one by one.
        const q = new Postings(pairs.length / 2);
        for (let j = 0; j < pairs.length; j += 2) q.set(pairs[j], pairs[j + 1]);
        return q;
      }
    }
    return p;
  }

  /** Index of shortId s in pairs (even), or -(insertion index) - 1. */
  private find(s: number): number {
    const a = this.pairs;
    let lo = 0;
    let hi = this.size - 1;
    if (hi >= 0 && a[2 * hi] < s) return -(hi + 1) - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const v = a[2 * mid];
      if (v < s) lo = mid + 1;
      else if (v > s) hi = mid - 1;
      else return 2 * mid;
    }
    return -lo - 1;
  }

  get(s: number): number | undefined {
    const i = this.find(s);
    return i >= 0 ? this.pairs[i + 1] : undefined;
  }

  has(s: number): boolean {
    return this.find(s) >= 0;
  }

  set(s: number, tf: number): this {
    const i = this.find(s);
    if (i >= 0) {
      this.pairs[i + 1] = tf;
      return this;
    }
    const at = -(i + 1);
    if (2 * (this.size + 1) > this.pairs.length) {
      const grown = new Int32Array(Math.max(4, this.pairs.length * 2));
      grown.set(this.pairs.subarray(0, 2 * this.size));
      this.pairs = grown;
    }
    if (at < this.size) this.pairs.copyWithin(2 * at + 2, 2 * at, 2 * this.size);
    this.pairs[2 * at] = s;
    this.pairs[2 * at + 1] = tf;
    this.size++;
    return this;
  }

  delete(s: number): boolean {
    const i = this.find(s);
    if (i < 0) return false;
    this.pairs.copyWithin(i, i + 2, 2 * this.size);
    this.size--;
    return true;
  }

  /** Calls fn(tf, shortId) in shortId order (Map's argument order). */
  forEach(fn: (tf: number, s: number) => void): void {
    const a = this.pairs;
    const end = 2 * this.size;
    for (let i = 0; i < end; i += 2) fn(a[i + 1], a[i]);
  }

  /** Iterates a copy, so the list may change meanwhile. */
  *entries(): IterableIterator<[number, number]> {
    const a = this.pairs.slice(0, 2 * this.size);
    for (let i = 0; i < a.length; i += 2) yield [a[i], a[i + 1]];
  }

  *keys(): IterableIterator<number> {
    for (const [s] of this.entries()) yield s;
  }

  [Symbol.iterator](): IterableIterator<[number, number]> {
    return this.entries();
  }
}
