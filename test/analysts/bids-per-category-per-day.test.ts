import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import Database from 'better-sqlite3';
import { expect } from 'chai';
import { startTestServer } from '../support/server.ts';

/**
 * examples/projections/bids-per-category-per-day.ts replayed into the demo data with `npm run project`, as an
 * analyst runs it; its numbers checked against the log's events counted here, directly.
 */
describe('examples/projections/bids-per-category-per-day.ts (bids per category and day, replayed from the demo log)', function () {
  this.timeout(120_000);

  const EXAMPLE = 'examples/projections/bids-per-category-per-day.ts';
  const COLLECTION = 'analysis_bids_per_category_day';
  let dataDir: string;

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bids-per-category-'));
    const server = await startTestServer({ dataDir });
    await server.close();
  });

  after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  function project(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const child = spawn('npm', ['run', '--silent', 'project', '--', ...args], {
      env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
  }

  interface Counts {
    CategoryId: number;
    Category: string;
    Day: string;
    Currency: string;
    Bids: number;
    Amount: number;
    HighestBid: number;
  }

  /**
   * The example's numbers from the log itself, folded in log order: each bid goes to the category (and currency)
   * its lot had at that point, under the name its category had at that point.
   */
  function countedFromLog(): Record<string, Counts> {
    const db = new Database(path.join(dataDir, 'events.sqlite'), { readonly: true });
    const events = db
      .prepare("SELECT type, data FROM events WHERE type IN ('CategoryCatalogued', 'LotCatalogued', 'BidPlaced') ORDER BY position")
      .all() as Array<{ type: string; data: string }>;
    db.close();
    const categories = new Map<string, string>();
    const lots = new Map<string, { categoryId: number; currency: string }>();
    const counts: Record<string, Counts> = {};
    for (const { type, data } of events) {
      const d = JSON.parse(data);
      if (type === 'CategoryCatalogued') categories.set(`${d.tenant} ${d.categoryId}`, d.names.en ?? Object.values(d.names)[0]);
      else if (type === 'LotCatalogued') lots.set(`${d.tenant} ${d.lotId}`, { categoryId: d.categoryId ?? 0, currency: d.currency });
      else {
        const lot = lots.get(`${d.tenant} ${d.lotId}`)!;
        const day = d.placedAt.slice(0, 10);
        const key = `${d.tenant} ${lot.categoryId}:${day}:${lot.currency}`;
        const c = (counts[key] ??= {
          CategoryId: lot.categoryId,
          Category: '',
          Day: day,
          Currency: lot.currency,
          Bids: 0,
          Amount: 0,
          HighestBid: 0,
        });
        c.Category = lot.categoryId === 0 ? '(no category)' : categories.get(`${d.tenant} ${lot.categoryId}`)!;
        c.Bids += 1;
        c.Amount += d.amount;
        c.HighestBid = Math.max(c.HighestBid, d.amount);
      }
    }
    return counts;
  }

  function readModel(): Record<string, Counts> {
    const db = new Database(path.join(dataDir, 'read-models.sqlite'), { readonly: true });
    const { physical } = db.prepare('SELECT physical FROM rm_aliases WHERE name = ?').get(COLLECTION) as { physical: string };
    const rows = db.prepare(`SELECT tenant, id, json(doc) AS doc FROM ${physical}`).all() as Array<{
      tenant: string;
      id: string;
      doc: string;
    }>;
    db.close();
    return Object.fromEntries(
      rows.map((r) => {
        const { CategoryId, Category, Day, Currency, Bids, Amount, HighestBid } = JSON.parse(r.doc) as Counts;
        return [`${r.tenant} ${r.id}`, { CategoryId, Category, Day, Currency, Bids, Amount, HighestBid }];
      }),
    );
  }

  it('counts every bid of the demo log under its category, day and currency, as the log does', async () => {
    const run = await project([EXAMPLE]);
    expect(run.code, run.stderr).to.equal(0);
    expect(JSON.parse(run.stdout.trim().split('\n').at(-1)!)).to.include({
      projection: 'analysis-bids-per-category-per-day',
      stopped: false,
    });

    const expected = countedFromLog();
    const bids = Object.values(expected).reduce((n, c) => n + c.Bids, 0);
    // The demo data has bids on lots of several categories, over several days.
    expect(bids).to.be.greaterThan(1000);
    expect(new Set(Object.values(expected).map((c) => c.CategoryId)).size).to.be.greaterThan(3);
    expect(new Set(Object.values(expected).map((c) => c.Day)).size).to.be.greaterThan(3);
    expect(readModel()).to.deep.equal(expected);
  });

  it('a second run finds nothing new and leaves the numbers as they are', async () => {
    const before = readModel();
    const run = await project([EXAMPLE]);
    expect(run.code, run.stderr).to.equal(0);
    expect(readModel()).to.deep.equal(before);
    expect(readModel()).to.deep.equal(countedFromLog());
  });
});
