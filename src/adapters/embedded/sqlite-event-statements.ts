// The embedded event log's file: its table, how its rows become events, and the statements that read and write it.
import Database from 'better-sqlite3';
import type { EventMetadata, RecordedEvent, StoredEvent } from '../../ports/event-log.ts';
import { privateDatabaseFile } from '../../private-files.ts';
import { mapForReads } from './sqlite-mmap.ts';

/** How long a reader waits for a lock (SQLite's busy_timeout); a group commit never waits blocked, see commitGroup. */
export const BUSY_TIMEOUT_MS = 30_000;

export interface Row {
  position: number;
  stream_id: string;
  revision: number;
  type: string;
  version: number;
  data: string;
  metadata: string;
  created: string;
}

/** A row of `events` as an array, in the column order the raw statements select. */
type RawRow = [
  position: number,
  streamId: string,
  revision: number,
  type: string,
  version: number,
  data: string,
  metadata: string,
  created: string,
];

export function fromRaw(row: RawRow): RecordedEvent {
  return {
    position: row[0],
    streamId: row[1],
    revision: row[2],
    type: row[3],
    version: row[4],
    data: JSON.parse(row[5]),
    metadata: JSON.parse(row[6]) as EventMetadata,
    created: row[7],
  };
}

/** A row of the stored reads: the event's columns, its metadata's tenant in place of the metadata. */
export type StoredRow = [
  position: number,
  streamId: string,
  revision: number,
  type: string,
  version: number,
  data: Buffer,
  tenant: string,
  created: string,
];

// The data as bytes (a BLOB of the stored UTF-8): no string made of it.
const STORED_COLUMNS =
  "position, stream_id, revision, type, version, CAST(data AS BLOB), coalesce(json_extract(metadata, '$.tenant'), ''), created";

export function fromStored(row: StoredRow): StoredEvent {
  return {
    position: row[0],
    streamId: row[1],
    revision: row[2],
    type: row[3],
    version: row[4],
    created: row[7],
    tenant: row[6],
    dataJson: row[5],
  };
}

export function toRecorded(row: Row): RecordedEvent {
  return {
    position: row.position,
    streamId: row.stream_id,
    revision: row.revision,
    type: row.type,
    version: row.version,
    data: JSON.parse(row.data),
    metadata: JSON.parse(row.metadata),
    created: row.created,
  };
}

/** Opens (and makes) the log's file: WAL mode, the `events` table; `mmapBytes` of it read through a map (sqlite-mmap.ts). */
export function openEventsDatabase(file: string, mmapBytes = 0): Database.Database {
  const db = new Database(privateDatabaseFile(file));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  mapForReads(db, mmapBytes);
  db.exec(`
    CREATE TABLE IF NOT EXISTS events (
      position INTEGER PRIMARY KEY AUTOINCREMENT,
      stream_id TEXT NOT NULL,
      revision INTEGER NOT NULL,
      type TEXT NOT NULL,
      version INTEGER NOT NULL,
      data TEXT NOT NULL,
      metadata TEXT NOT NULL,
      created TEXT NOT NULL,
      UNIQUE (stream_id, revision)
    );
  `);
  return db;
}

/** The statements the log runs, prepared once. */
export function prepareEventStatements(db: Database.Database) {
  return {
    streamHead: db.prepare<[string], { revision: number }>(
      'SELECT revision FROM events WHERE stream_id = ? ORDER BY revision DESC LIMIT 1',
    ),
    insert: db.prepare('INSERT INTO events (stream_id, revision, type, version, data, metadata, created) VALUES (?, ?, ?, ?, ?, ?, ?)'),
    readStream: db.prepare<[string, number], Row>('SELECT * FROM events WHERE stream_id = ? AND revision >= ? ORDER BY revision'),
    readAll: db.prepare<[number, number], Row>('SELECT * FROM events WHERE position > ? ORDER BY position LIMIT ?'),
    // Rows as arrays (a rebuild reads every event of its types: no object per row before the event's own).
    readTypes: db
      .prepare<[number, string, number], RawRow>(
        'SELECT position, stream_id, revision, type, version, data, metadata, created FROM events WHERE position > ? AND type IN (SELECT value FROM json_each(?)) ORDER BY position LIMIT ?',
      )
      .raw(),
    // The stored reads: the data as its bytes, the tenant read out of the metadata by SQLite.
    storedAll: db
      .prepare<[number, number], StoredRow>(`SELECT ${STORED_COLUMNS} FROM events WHERE position > ? ORDER BY position LIMIT ?`)
      .raw(),
    storedTypes: db
      .prepare<[number, string, number], StoredRow>(
        `SELECT ${STORED_COLUMNS} FROM events WHERE position > ? AND type IN (SELECT value FROM json_each(?)) ORDER BY position LIMIT ?`,
      )
      .raw(),
    head: db.prepare<[], { p: number | null }>('SELECT max(position) AS p FROM events'),
  };
}

export type EventStatements = ReturnType<typeof prepareEventStatements>;
