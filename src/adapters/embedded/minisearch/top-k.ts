/**
 * Ranking: the best k hits of a search without sorting every match, in a binary min-heap on (score asc,
 * id desc). Equal scores rank by id, so paging is stable.
 */

export interface Scored {
  s: number;
  id: string;
  score: number;
}

/** a ranks after b (worse): lower score, or same score and greater id. */
function worse(a: Scored, b: Scored): boolean {
  return a.score < b.score || (a.score === b.score && a.id > b.id);
}

export class TopK {
  private heap: Scored[] = [];
  constructor(
    private readonly k: number,
    /** The id of shortId s: looked up only for hits that enter the heap. */
    private readonly idOf: (s: number) => string,
  ) {}

  offer(s: number, score: number): void {
    const h = this.heap;
    if (this.k <= 0) return;
    if (h.length < this.k) {
      h.push({ s, id: this.idOf(s), score });
      let i = h.length - 1;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!worse(h[i], h[parent])) break;
        [h[i], h[parent]] = [h[parent], h[i]];
        i = parent;
      }
      return;
    }
    const top = h[0];
    if (score < top.score) return;
    const id = this.idOf(s);
    if (score === top.score && id > top.id) return;
    h[0] = { s, id, score };
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && worse(h[l], h[m])) m = l;
      if (r < h.length && worse(h[r], h[m])) m = r;
      if (m === i) break;
      [h[i], h[m]] = [h[m], h[i]];
      i = m;
    }
  }

  /** Best first. */
  sorted(): Scored[] {
    return [...this.heap].sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }
}
