import Database from 'better-sqlite3';
import { holderIsGone, type LeaseHolder, type LeaseStore } from '../../ports/leases.ts';
import { privateDatabaseFile } from '../../private-files.ts';

interface Row {
  name: string;
  holder: string;
  expires: number;
}

/**
 * Leases in a SQLite file of the data folder: every process on one DATA_DIR sees the same table, and each
 * decision is one IMMEDIATE transaction, so two processes starting at once cannot both take a lease.
 */
export class SqliteLeases implements LeaseStore {
  private readonly db: Database.Database;

  constructor(file: string) {
    this.db = new Database(privateDatabaseFile(file));
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('busy_timeout = 10000');
    this.db.exec('CREATE TABLE IF NOT EXISTS leases (name TEXT PRIMARY KEY, holder TEXT NOT NULL, expires INTEGER NOT NULL)');
  }

  async acquire(name: string, holder: LeaseHolder, ttlMs: number) {
    return this.db
      .transaction((): { acquired: true } | { acquired: false; heldBy: LeaseHolder } => {
        const row = this.db.prepare('SELECT * FROM leases WHERE name = ?').get(name) as Row | undefined;
        if (row) {
          const current = JSON.parse(row.holder) as LeaseHolder;
          const free = row.expires <= Date.now() || current.id === holder.id || holderIsGone(current, holder);
          if (!free) return { acquired: false, heldBy: current };
        }
        this.db
          .prepare(
            'INSERT INTO leases (name, holder, expires) VALUES (?, ?, ?) ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires = excluded.expires',
          )
          .run(name, JSON.stringify(holder), Date.now() + ttlMs);
        return { acquired: true };
      })
      .immediate();
  }

  async renew(name: string, holder: LeaseHolder, ttlMs: number): Promise<boolean> {
    const result = this.db
      .prepare("UPDATE leases SET expires = ? WHERE name = ? AND json_extract(holder, '$.id') = ?")
      .run(Date.now() + ttlMs, name, holder.id);
    return result.changes === 1;
  }

  async release(name: string, holder: LeaseHolder): Promise<void> {
    this.db.prepare("DELETE FROM leases WHERE name = ? AND json_extract(holder, '$.id') = ?").run(name, holder.id);
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
