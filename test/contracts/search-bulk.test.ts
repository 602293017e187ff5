/**
 * The embedded index adds documents it does not hold yet in one pass (Engine.insertAll, used by upserts of
 * new documents: catch-up, first builds, rebuilds). It must leave the engine exactly as MiniSearch's own add
 * of each document in turn: the same snapshot bytes (shortIds, field lengths, running averages, postings and
 * their order, the term index), hence the same answers.
 */
import { expect } from 'chai';
import { Engine } from '../../src/adapters/embedded/minisearch/engine.ts';
import { PartitionSet } from '../../src/adapters/embedded/minisearch/partitions.ts';
import { exportSnapshot } from '../../src/adapters/embedded/minisearch/snapshot.ts';
import { compileSpec } from '../../src/adapters/embedded/minisearch/spec.ts';
import { searchCollection } from '../../src/adapters/embedded/minisearch/search.ts';
import { lotSearchProjection } from '../../projections/lot-search/projection.ts';
import type { SearchDocument } from '../../src/ports/search.ts';

const compiled = compileSpec(lotSearchProjection.collection, 'Language');

/** Texts that stress the tokenizer and the field lengths: punctuation first, the same word in two cases, accents, ß. */
const TEXTS = [
  '...Carved chair, oak; carved CHAIR',
  'Größe: Stuhl aus Eiche — gustavianisch, 1780er',
  '  Målning, olja på duk. Signerad',
  'Art-déco vase (Ørrefors), glass — glass',
  '',
  'Æbleskiver pan, cast iron!',
  'chair',
];

function docs(n: number, offset = 0): SearchDocument[] {
  return Array.from({ length: n }, (_, i) => {
    const k = i + offset;
    return {
      id: String(k % 37 === 5 ? 5 : k),
      Language: 'en',
      Title: TEXTS[k % TEXTS.length],
      Description: `${TEXTS[(k * 3) % TEXTS.length]} lot ${k} ${k % 11 === 0 ? 'rare' : ''}`,
      AttributeText: k % 5 === 0 ? '' : `${TEXTS[(k * 7) % TEXTS.length]} ${k % 2 ? 'Oak' : 'oak'}`,
      AuctionId: 1 + (k % 4),
      CategoryId: k % 9,
      LotNumber: k,
      EndTime: 1_800_000_000_000 + k,
    };
  });
}

const bytes = async (engine: Engine) => Buffer.concat(await exportSnapshot(engine));

describe('embedded index: documents added together', () => {
  it('leaves an engine exactly as adding them one by one does', async () => {
    const unique = docs(300).filter((d, i, all) => all.findIndex((x) => x.id === d.id) === i);
    const one = new Engine(compiled);
    for (const d of unique) one.insert(d);
    const together = new Engine(compiled);
    together.insertAll(unique.slice(0, 120));
    together.insertAll(unique.slice(120));
    expect((await bytes(together)).equals(await bytes(one))).to.equal(true);
  });

  it('refuses a document the engine holds', () => {
    const engine = new Engine(compiled);
    engine.insertAll(docs(3));
    expect(() => engine.insertAll(docs(1))).to.throw(/holds/);
  });

  it('upserts batches with new, repeated and replaced documents as one by one, and answers alike', async () => {
    const one = new PartitionSet(compiled, () => undefined);
    const together = new PartitionSet(compiled, () => undefined);
    for (const batch of [docs(150), docs(150, 100), docs(40, 20)]) {
      for (const d of batch) one.upsert('t', [d]);
      together.upsert('t', batch);
    }
    const a = one.get('t', 'en')!.engine;
    const b = together.get('t', 'en')!.engine;
    expect((await bytes(b)).equals(await bytes(a))).to.equal(true);
    for (const q of ['carved chair', 'oak', 'grosse', 'malning', 'glas', 'chiar', 'lot 1', 'rare']) {
      const request = {
        q,
        queryBy: ['Title', 'AttributeText', 'Description'],
        filter: { Language: 'en' },
        facetBy: ['CategoryId', 'AuctionId'],
        page: 1,
        perPage: 10,
      };
      expect(searchCollection(together, 't', request), q).to.deep.equal(searchCollection(one, 't', request));
    }
  });
});
