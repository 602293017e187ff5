import { expect } from 'chai';
import type { DocumentStore, ParkedEvent } from '../../src/ports/read-models.ts';
import { CheckpointConflictError } from '../../src/ports/read-models.ts';
import { rebuildCheckpoint } from '../../src/read-models/rebuild.ts';
import { STORABLE_KEYS, STORABLE_TEXTS } from '../support/storable-texts.ts';

/** What every read-model adapter must do (embedded SQLite; MongoDB over a driver fake, and a real server when its URL is set). */
export function documentStoreContract(name: string, makeStore: () => Promise<DocumentStore>) {
  describe(`DocumentStore contract: ${name}`, () => {
    let store: DocumentStore;
    let projection: string;
    const docs = [
      { _id: '1', Auction: 1, Number: 3, Title: 'Oak chair', Open: true, Tags: { en: 'oak' }, Price: 100 },
      { _id: '2', Auction: 1, Number: 1, Title: 'Birch table', Open: false, Tags: { en: 'birch' }, Price: null },
      { _id: '3', Auction: 2, Number: 2, Title: 'Café chair', Open: true, Tags: { en: 'oak' }, Price: 300 },
      { _id: '4', Auction: 1, Number: 2, Title: 'Silver bowl', Open: true, Tags: { en: 'silver' }, Price: 200 },
    ];

    beforeEach(async () => {
      store = await makeStore();
      projection = `p${Math.random().toString(36).slice(2, 8)}`;
      await store.ensureCollection({ name: 'items', indexes: [{ fields: ['Auction', 'Number'] }, { fields: ['Tags.en'] }] });
      await store.live().commit(
        [
          ...docs.map((doc) => ({ op: 'put' as const, collection: 'items', tenant: 'a', doc })),
          {
            op: 'put',
            collection: 'items',
            tenant: 'b',
            doc: { _id: '1', Auction: 1, Number: 9, Title: 'Other tenant', Open: true, Tags: { en: 'oak' }, Price: 5 },
          },
        ],
        { projection, expected: 0, position: 10 },
      );
    });
    afterEach(async () => store.close());

    it('gives back a collection as it was last declared (its private fields), and null for one never declared', async () => {
      await store.ensureCollection({ name: 'secrets', private: ['Hash'], privateIds: true });
      expect(await store.collectionSpec('secrets')).to.deep.equal({ name: 'secrets', private: ['Hash'], privateIds: true });
      await store.ensureCollection({ name: 'secrets', private: ['Hash', 'Salt'] });
      expect((await store.collectionSpec('secrets'))!.private).to.deep.equal(['Hash', 'Salt']);
      expect(await store.collectionSpec('never_declared')).to.equal(null);
    });

    it('finds by id within the tenant only', async () => {
      expect((await store.forTenant('a').collection('items').findById('1'))?.Title).to.equal('Oak chair');
      expect((await store.forTenant('b').collection('items').findById('1'))?.Title).to.equal('Other tenant');
      expect(await store.forTenant('c').collection('items').findById('1')).to.equal(null);
    });

    it('filters with equality, ranges, $in, $ne, $exists, $or and nested fields', async () => {
      const items = store.forTenant('a').collection('items');
      const ids = async (filter: object) => (await items.find(filter as never, { sort: [['_id', 1]] })).map((d) => d._id);
      expect(await ids({ Auction: 1 })).to.deep.equal(['1', '2', '4']);
      expect(await ids({ Auction: 1, Open: true })).to.deep.equal(['1', '4']);
      expect(await ids({ Number: { $gte: 2, $lte: 2 } })).to.deep.equal(['3', '4']);
      expect(await ids({ _id: { $in: ['2', '3', '9'] } })).to.deep.equal(['2', '3']);
      expect(await ids({ Auction: { $ne: 1 } })).to.deep.equal(['3']);
      expect(await ids({ Price: { $exists: false } })).to.deep.equal(['2']);
      expect(await ids({ Price: null })).to.deep.equal(['2']);
      expect(await ids({ 'Tags.en': 'oak' })).to.deep.equal(['1', '3']);
      expect(await ids({ $or: [{ Number: 1 }, { Number: 3 }] })).to.deep.equal(['1', '2']);
    });

    it('matches $contains as a literal substring, case and accents as given (callers fold both sides)', async () => {
      const items = store.forTenant('a').collection('items');
      const ids = async (text: string) => (await items.find({ Title: { $contains: text } })).map((d) => d._id).sort();
      expect(await ids('chair')).to.deep.equal(['1', '3']);
      expect(await ids('Chair')).to.deep.equal([]);
      expect(await ids('é')).to.deep.equal(['3']);
      expect(await ids('.*')).to.deep.equal([]);
      expect(await ids('Other')).to.deep.equal([]);
    });

    it('refuses what the filter language (src/read-models/filter.ts) lacks', async () => {
      const items = store.forTenant('a').collection('items');
      const refused = async (filter: object) => {
        let error: unknown;
        await items.find(filter as never).catch((e: unknown) => (error = e));
        return String(error);
      };
      expect(await refused({ Title: { $regex: 'x' } })).to.match(/unsupported operator \$regex/);
      expect(await refused({ $where: 'true' })).to.match(/invalid field path/);
      expect(await refused({ 'Tags.$en': 'oak' })).to.match(/invalid field path/);
      expect(await refused({ '_id.x': '1' })).to.match(/invalid field path/);
      expect(await refused({ Auction: { $in: 1 } })).to.match(/\$in takes an array/);
      expect(await refused({ $or: { Auction: 1 } })).to.match(/\$or takes an array/);
    });

    it('stores and gives back, byte for byte, every text a document may hold (emoji, RTL and combining marks, lines, the longest field) and every key, and finds each by equality', async () => {
      await store.ensureCollection({ name: 'texts', indexes: [{ fields: ['Text'] }] });
      const docs = Object.entries(STORABLE_TEXTS).map(([name, text]) => ({
        _id: name,
        Text: text,
        Texts: { en: text },
        Entries: STORABLE_KEYS,
      }));
      await store.live().commit(
        docs.map((doc) => ({ op: 'put' as const, collection: 'texts', tenant: 'a', doc })),
        { projection, expected: 10, position: 11 },
      );
      const texts = store.forTenant('a').collection('texts');
      for (const doc of docs) {
        const found = await texts.findById(doc._id);
        expect(found, doc._id).to.deep.equal(doc);
        expect(Buffer.from(found!.Text as string).equals(Buffer.from(doc.Text)), doc._id).to.equal(true);
        // The keys as given (in an order of the engine's: PostgreSQL's jsonb keeps its own).
        expect(Object.keys(found!.Entries as object).sort(), doc._id).to.deep.equal(Object.keys(STORABLE_KEYS).sort());
        expect(
          (await texts.find({ Text: doc.Text })).map((d) => d._id),
          doc._id,
        ).to.deep.equal([doc._id]);
        expect(
          (await texts.find({ 'Texts.en': { $in: [doc.Text] } })).map((d) => d._id),
          doc._id,
        ).to.deep.equal([doc._id]);
      }
      expect(await texts.countDocuments({})).to.equal(docs.length);
    });

    it('sorts, skips and limits; counts; groups', async () => {
      const items = store.forTenant('a').collection('items');
      const page = await items.find({ Auction: 1 }, { sort: [['Number', -1]], skip: 1, limit: 1 });
      expect(page.map((d) => d._id)).to.deep.equal(['4']);
      expect(await items.countDocuments({ Auction: 1 })).to.equal(3);
      expect(await items.countDocuments({})).to.equal(4);
      expect(await items.countBy({}, 'Auction')).to.deep.equal([
        { value: 1, count: 3 },
        { value: 2, count: 1 },
      ]);
    });

    it('moves the checkpoint with the writes, and refuses a commit whose expected checkpoint is stale', async () => {
      expect(await store.getCheckpoint(projection)).to.equal(10);
      await store.live().commit([{ op: 'delete', collection: 'items', tenant: 'a', id: '4' }], { projection, expected: 10, position: 12 });
      expect(await store.getCheckpoint(projection)).to.equal(12);
      let error: unknown;
      try {
        await store
          .live()
          .commit([{ op: 'delete', collection: 'items', tenant: 'a', id: '1' }], { projection, expected: 10, position: 13 });
      } catch (e) {
        error = e;
      }
      expect(error).to.be.instanceOf(CheckpointConflictError);
      expect(await store.forTenant('a').collection('items').findById('1')).to.not.equal(null);
      expect(await store.getCheckpoint(projection)).to.equal(12);
    });

    it('accepts any number of documents without a unique field (missing or null, nested too), and refuses a second with the same value in a tenant', async () => {
      await store.ensureCollection({
        name: 'codes',
        indexes: [
          { fields: ['Code'], unique: true },
          { fields: ['Ref.id'], unique: true },
        ],
      });
      const put = (tenant: string, doc: { _id: string; Code?: string | null; Ref?: object | null }) => ({
        op: 'put' as const,
        collection: 'codes',
        tenant,
        doc,
      });
      await store
        .live()
        .commit(
          [
            put('a', { _id: '1' }),
            put('a', { _id: '2' }),
            put('a', { _id: 'n1', Code: null, Ref: null }),
            put('a', { _id: 'n2', Code: null, Ref: { id: null } }),
            put('a', { _id: 'n3', Code: null, Ref: {} }),
            put('a', { _id: '3', Code: 'x', Ref: { id: 'r' } }),
            put('b', { _id: '1', Code: 'x', Ref: { id: 'r' } }),
          ],
          { projection, expected: 10, position: 11 },
        );
      const codes = store.forTenant('a').collection('codes');
      expect(await codes.countDocuments({})).to.equal(6);
      expect((await codes.find({ Code: null }, { sort: [['_id', 1]] })).map((d) => d._id)).to.deep.equal(['1', '2', 'n1', 'n2', 'n3']);
      // A nested value held twice is refused as a top-level one is.
      let nested: unknown;
      await store
        .live()
        .commit([put('a', { _id: '6', Ref: { id: 'r' } })], { projection, expected: 11, position: 12 })
        .catch((e: unknown) => (nested = e));
      expect(nested).to.be.instanceOf(Error);
      expect(nested).to.not.be.instanceOf(CheckpointConflictError);
      // A conflict fails the whole commit: nothing of the batch is written and the checkpoint stays.
      let error: unknown;
      await store
        .live()
        .commit([put('a', { _id: '5' }), put('a', { _id: '4', Code: 'x' })], { projection, expected: 11, position: 12 })
        .catch((e: unknown) => (error = e));
      expect(error).to.be.instanceOf(Error);
      expect(error).to.not.be.instanceOf(CheckpointConflictError);
      expect(await codes.countDocuments({})).to.equal(6);
      expect(await store.getCheckpoint(projection)).to.equal(11);
    });

    it('rebuilds into a fresh copy while reads use the old one, then swaps it in with its checkpoint', async () => {
      const rebuild = await store.startRebuild(projection, ['items']);
      expect(await rebuild.get('items', 'a', '1')).to.equal(null);
      await rebuild.commit([{ op: 'put', collection: 'items', tenant: 'a', doc: { _id: '7', Auction: 7, Number: 1 } }], {
        projection,
        expected: 0,
        position: 20,
      });
      expect((await store.forTenant('a').collection('items').findById('1'))?.Title).to.equal('Oak chair');
      await rebuild.finish();
      expect(await store.forTenant('a').collection('items').findById('1')).to.equal(null);
      expect((await store.forTenant('a').collection('items').findById('7'))?.Auction).to.equal(7);
      expect(await store.getCheckpoint(projection)).to.equal(20);
    });

    describe('events set aside (parked) with the checkpoint', () => {
      const event = (position: number, state: ParkedEvent['state'], at = '2025-01-01T00:00:00.000Z'): ParkedEvent => ({
        position,
        type: 'LotUpdated',
        streamId: `lot-${position % 2}`,
        tenant: 'a',
        state,
        error: state === 'held' ? 'held behind 11' : 'boom',
        attempts: state === 'held' ? 0 : 5,
        firstAt: at,
        lastAt: at,
      });

      it('stores them in the transaction of the batch, not when the batch is refused, and lists them in log order', async () => {
        let stale: unknown;
        await store
          .live()
          .commit([], { projection, expected: 9, position: 12, parked: [event(11, 'parked')] })
          .catch((e: unknown) => (stale = e));
        expect(stale).to.be.instanceOf(CheckpointConflictError);
        expect(await store.parkedEvents(projection)).to.deep.equal([]);
        await store.live().commit([], { projection, expected: 10, position: 13, parked: [event(13, 'held'), event(11, 'parked')] });
        expect(await store.getCheckpoint(projection)).to.equal(13);
        expect((await store.parkedEvents(projection)).map((e) => [e.position, e.state])).to.deep.equal([
          [11, 'parked'],
          [13, 'held'],
        ]);
        expect(await store.parkedEvents('another')).to.deep.equal([]);
      });

      it('replaces one by position (keeping when it was first set aside), counts them by state, and forgets them', async () => {
        await store.park(projection, [event(11, 'parked'), event(13, 'held'), event(15, 'held')]);
        await store.park(projection, [{ ...event(11, 'skipped', '2025-02-01T00:00:00.000Z'), attempts: 7 }]);
        const [first] = await store.parkedEvents(projection);
        expect(first).to.deep.equal({ ...event(11, 'skipped'), attempts: 7, lastAt: '2025-02-01T00:00:00.000Z' });
        expect((await store.parkedCounts()).find((c) => c.projection === projection)).to.deep.equal({
          projection,
          parked: 0,
          held: 2,
          skipped: 1,
        });
        await store.unpark(projection, [13, 15, 99]);
        expect((await store.parkedEvents(projection)).map((e) => e.position)).to.deep.equal([11]);
        await store.unpark(projection, [11]);
        expect((await store.parkedCounts()).find((c) => c.projection === projection)).to.equal(undefined);
      });

      it("a rebuild's swap puts its own list in place of the live one, keeping what an operator skipped; an abort drops its list", async () => {
        await store.park(projection, [event(3, 'skipped'), event(5, 'parked'), event(7, 'held')]);
        const aborted = await store.startRebuild(projection, ['items']);
        await aborted.commit([], { projection, expected: 0, position: 10, parked: [event(9, 'parked')] });
        await aborted.abort();
        expect(await store.parkedEvents(rebuildCheckpoint(projection))).to.deep.equal([]);
        const rebuild = await store.startRebuild(projection, ['items']);
        await rebuild.commit([], { projection, expected: 0, position: 10, parked: [event(9, 'parked')] });
        expect(await rebuild.finish()).to.equal(true);
        expect((await store.parkedEvents(projection)).map((e) => [e.position, e.state])).to.deep.equal([
          [3, 'skipped'],
          [9, 'parked'],
        ]);
        expect(await store.parkedEvents(rebuildCheckpoint(projection))).to.deep.equal([]);
      });
    });

    describe('the rebuild and alias-swap protocol (src/read-models/rebuild.ts)', () => {
      const put = (collection: string, _id: string, fields: object = {}) => ({
        op: 'put' as const,
        collection,
        tenant: 'a',
        doc: { _id, ...fields },
      });
      const ids = async (collection: string) =>
        (
          await store
            .forTenant('a')
            .collection(collection)
            .find({}, { sort: [['_id', 1]] })
        ).map((d) => d._id);

      it("moves the rebuild's own checkpoint, reads back only what the rebuild wrote, and refuses other collections", async () => {
        const rebuild = await store.startRebuild(projection, ['items']);
        await rebuild.commit([put('items', '1', { Auction: 9 })], { projection, expected: 0, position: 10 });
        expect((await rebuild.get('items', 'a', '1'))?.Auction).to.equal(9);
        expect(await rebuild.get('items', 'a', '2')).to.equal(null);
        expect(await store.getCheckpoint(rebuildCheckpoint(projection))).to.equal(10);
        let error: unknown;
        await rebuild.commit([put('others', 'x')], { projection, expected: 10, position: 11 }).catch((e: unknown) => (error = e));
        expect(String(error)).to.match(/not part of the rebuild/);
        let stale: unknown;
        await rebuild.commit([put('items', '2')], { projection, expected: 0, position: 12 }).catch((e: unknown) => (stale = e));
        expect(stale).to.be.instanceOf(CheckpointConflictError);
        expect(await store.getCheckpoint(rebuildCheckpoint(projection))).to.equal(10);
        expect(await rebuild.finish()).to.equal(true);
        expect(await ids('items')).to.deep.equal(['1']);
        expect(await store.getCheckpoint(rebuildCheckpoint(projection))).to.equal(0);
      });

      it('swaps several collections together, and live writes go on in the new copies', async () => {
        await store.ensureCollection({ name: 'tags', indexes: [{ fields: ['Name'] }] });
        await store.live().commit([put('tags', 'old')], { projection, expected: 10, position: 11 });
        const rebuild = await store.startRebuild(projection, ['items', 'tags']);
        await rebuild.commit([put('items', '7'), put('tags', 'new', { Name: 'n' })], { projection, expected: 0, position: 12 });
        expect(await ids('tags')).to.deep.equal(['old']);
        expect(await rebuild.finish()).to.equal(true);
        expect(await ids('items')).to.deep.equal(['7']);
        expect(await ids('tags')).to.deep.equal(['new']);
        await store.live().commit([put('tags', 'later', { Name: 'n' })], { projection, expected: 12, position: 13 });
        expect(await store.forTenant('a').collection('tags').countDocuments({ Name: 'n' })).to.equal(2);
        expect(await store.getCheckpoint(projection)).to.equal(13);
      });

      it('does not swap while the live copy is ahead of the rebuilt one, and swaps once the rebuild caught up', async () => {
        const rebuild = await store.startRebuild(projection, ['items']);
        await rebuild.commit([put('items', '1')], { projection, expected: 0, position: 10 });
        await store.live().commit([put('items', '8')], { projection, expected: 10, position: 11 });
        expect(await rebuild.finish()).to.equal(false);
        expect(await store.getCheckpoint(projection)).to.equal(11);
        expect(await ids('items')).to.deep.equal(['1', '2', '3', '4', '8']);
        await rebuild.commit([put('items', '8')], { projection, expected: 10, position: 11 });
        expect(await rebuild.finish()).to.equal(true);
        expect(await store.getCheckpoint(projection)).to.equal(11);
        expect(await ids('items')).to.deep.equal(['1', '8']);
      });

      it('leaves the live copies and checkpoint as they were on abort, and a later rebuild starts empty', async () => {
        const first = await store.startRebuild(projection, ['items']);
        await first.commit([put('items', '5')], { projection, expected: 0, position: 4 });
        await first.abort();
        expect(await ids('items')).to.deep.equal(['1', '2', '3', '4']);
        expect(await store.getCheckpoint(projection)).to.equal(10);
        expect(await store.getCheckpoint(rebuildCheckpoint(projection))).to.equal(0);
        const second = await store.startRebuild(projection, ['items']);
        await second.commit([put('items', '6')], { projection, expected: 0, position: 10 });
        expect(await second.finish()).to.equal(true);
        expect(await ids('items')).to.deep.equal(['6']);
      });
    });
  });
}
