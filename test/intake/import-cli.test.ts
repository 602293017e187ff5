import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { SqliteEventLog } from '../../src/adapters/embedded/sqlite-event-log.ts';

/** Catalogue intake as an integrator runs it: `npm run import -- FILE.ndjson`. */
describe('catalogue intake (npm run import)', function () {
  this.timeout(60_000);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-import-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  const records = [
    {
      kind: 'tenant',
      tenant: 'house',
      name: 'House',
      languages: ['en', 'sv'],
      defaultLanguage: 'en',
      currency: 'EUR',
      pageSize: 20,
      publicAccess: true,
      contactEmail: 'c@house.example.com',
    },
    { kind: 'apiKey', key: 'house-api-key-0123456789', name: 'web', tenants: ['house'] },
    {
      kind: 'auction',
      tenant: 'house',
      auctionId: 1,
      auctionType: 1,
      texts: { en: { title: 'Sale', description: '' } },
      startTime: '2026-01-01T00:00:00Z',
      endTime: '2030-01-01T00:00:00Z',
      currency: 'EUR',
      requiresTermsAcceptance: false,
    },
    {
      kind: 'lot',
      tenant: 'house',
      lotId: 1,
      auctionId: 1,
      lotNumber: 1,
      categoryId: null,
      texts: { en: { title: 'Oak chair', description: 'A chair' }, sv: { title: 'Ekstol', description: 'En stol' } },
      attributes: [],
      images: [],
      hotLot: false,
      vatFree: false,
      currency: 'EUR',
      startingPrice: 1000,
      estimateLow: null,
      estimateHigh: null,
      endTime: '2030-01-01T00:00:00Z',
      combiId: null,
      ownerId: null,
    },
    { kind: 'bid', tenant: 'house', lotId: 1, bidId: 'b-1', amount: 1100, bidType: 'online', placedAt: '2026-02-01T00:00:00Z' },
  ];
  const file = path.join(dir, 'catalogue.ndjson');
  const run = (input: string) =>
    spawnSync(process.execPath, ['--import', 'tsx', 'app/cli/import.ts', input], {
      env: { ...process.env, DATA_DIR: path.join(dir, 'data') },
      encoding: 'utf8',
    });
  const head = async () => {
    const log = new SqliteEventLog(path.join(dir, 'data', 'events.sqlite'));
    const position = await log.headPosition();
    await log.close();
    return position;
  };

  it('appends one event per new record and reports it', async () => {
    fs.writeFileSync(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const result = run(file);
    expect(result.status, result.stderr).to.equal(0);
    const report = JSON.parse(result.stdout);
    expect(report).to.include({ records: 5, appended: 5, unchanged: 0 });
    expect(await head()).to.equal(5);
  });

  it('appends nothing when the same file is imported again', async () => {
    const result = run(file);
    expect(result.status).to.equal(0);
    expect(JSON.parse(result.stdout)).to.include({ records: 5, appended: 0, unchanged: 5 });
    expect(await head()).to.equal(5);
  });

  it('reports a bad line by its number, imports the good ones and exits 1', async () => {
    const changed = { ...records[3], startingPrice: 1200 };
    fs.writeFileSync(
      file,
      [JSON.stringify(changed), '{"kind":"lot","tenant":"house"}', 'not json', JSON.stringify({ ...records[4], lotId: 99 })].join('\n'),
    );
    const result = run(file);
    expect(result.status).to.equal(1);
    const report = JSON.parse(result.stdout);
    expect(report.appended).to.equal(1);
    expect(report.errors.map((e: { line: number }) => e.line)).to.deep.equal([2, 3, 4]);
    expect(report.errors[2].message).to.match(/not catalogued/);
    expect(await head()).to.equal(6);
  });

  it('refuses a record whose text holds a control, a lone surrogate or a bad key (a line error naming the field), and takes lines in a description', async () => {
    const lot = records[3] as { texts: Record<string, { title: string; description: string }> };
    const withTexts = (texts: object) => JSON.stringify({ ...lot, texts });
    fs.writeFileSync(
      file,
      [
        withTexts({ en: { title: 'Oak\u0000chair', description: '' } }),
        JSON.stringify({ kind: 'category', tenant: 'house', categoryId: 7, parentId: null, names: { en: 'Clocks\ud800' }, sortOrder: 1 }),
        JSON.stringify({ kind: 'translations', tenant: 'house', language: 'en', entries: { 'button.ok': 'OK', $where: 'x' } }),
        withTexts({ en: { title: 'Oak chair', description: 'Line one\r\nLine two,\tand a tab' } }),
        withTexts({ en: { title: 'Oak\nchair', description: '' } }),
        JSON.stringify({ ...records[4], bidId: 'b-\u0085' }),
      ].join('\n'),
    );
    const before = await head();
    const result = run(file);
    expect(result.status).to.equal(1);
    const report = JSON.parse(result.stdout);
    expect(report.errors).to.deep.equal([
      { line: 1, message: 'texts.en.title: must not hold the control character U+0000' },
      { line: 2, message: 'names.en: must not hold a lone surrogate (U+D800), which is not Unicode text' },
      { line: 3, message: 'entries.$where: a key must not start with $' },
      { line: 5, message: 'texts.en.title: must not hold a line break (U+000A): the field holds one line' },
      { line: 6, message: 'bidId: must not hold the control character U+0085' },
    ]);
    // The description with its lines: one LotCatalogued, and nothing of the refused lines.
    expect(report.appended).to.equal(1);
    expect(await head()).to.equal(before + 1);
    const log = new SqliteEventLog(path.join(dir, 'data', 'events.sqlite'));
    const [last] = await log.readAll({ fromPosition: before, maxCount: 10 });
    await log.close();
    expect((last.data.texts as Record<string, { description: string }>).en.description).to.equal('Line one\r\nLine two,\tand a tab');
  });

  it("refuses bids on a timed auction's lots (the service takes those), also after the auction became timed in the same file", async () => {
    const timed = { ...records[2], auctionId: 2, bidding: 'timed' };
    const timedLot = { ...records[3], lotId: 2, auctionId: 2 };
    const bidOn = (lotId: number, bidId: string) => JSON.stringify({ ...records[4], lotId, bidId });
    fs.writeFileSync(
      file,
      [
        JSON.stringify({ ...timed, bidding: 'external' }),
        JSON.stringify(timedLot),
        bidOn(2, 'b-2'),
        JSON.stringify(timed),
        bidOn(2, 'b-3'),
        bidOn(1, 'b-4'),
      ].join('\n'),
    );
    const before = await head();
    const result = run(file);
    expect(result.status).to.equal(1);
    const report = JSON.parse(result.stdout);
    expect(report.errors.map((e: { line: number }) => e.line)).to.deep.equal([5]);
    expect(report.errors[0].message).to.match(/timed auction.*POST \/v1\/me\/bids/);
    // The auction twice, the lot, the bid while it was external, the bid on lot 1.
    expect(report.appended).to.equal(5);
    expect(await head()).to.equal(before + 5);
  });
});
