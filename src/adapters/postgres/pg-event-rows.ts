// The event log's rows as read from PostgreSQL, their columns, and the events they map to.
import type { RecordedEvent, StoredEvent } from '../../ports/event-log.ts';

/** A row of the events table, as `SELECT ${COLUMNS}` reads it. */
export interface Row {
  position: string;
  stream_id: string;
  revision: number;
  type: string;
  version: number;
  data: Record<string, unknown>;
  metadata: RecordedEvent['metadata'];
  created: Date;
}

/** A row of the stored reads: the data as its text (the `json` type keeps what was written), the metadata's tenant. */
export interface StoredRow {
  position: string;
  stream_id: string;
  revision: number;
  type: string;
  version: number;
  data: string;
  tenant: string;
  created: Date;
}

export const STORED_COLUMNS =
  "position, stream_id, revision, type, version, data::text AS data, coalesce(metadata->>'tenant', '') AS tenant, created";

export const toStored = (row: StoredRow): StoredEvent => ({
  position: Number(row.position),
  streamId: row.stream_id,
  revision: row.revision,
  type: row.type,
  version: row.version,
  created: row.created.toISOString(),
  tenant: row.tenant,
  dataJson: Buffer.from(row.data, 'utf8'),
});

export const COLUMNS = 'position, stream_id, revision, type, version, data, metadata, created';

export const toRecorded = (row: Row): RecordedEvent => ({
  position: Number(row.position),
  streamId: row.stream_id,
  revision: row.revision,
  type: row.type,
  version: row.version,
  data: row.data,
  metadata: row.metadata,
  created: row.created.toISOString(),
});
