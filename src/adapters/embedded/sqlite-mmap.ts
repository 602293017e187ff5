// Reads of an embedded SQLite file through a memory map (SQLITE_MMAP_MB): a page SQLite's own cache lacks is then
// read from the kernel's page cache in place, without a system call and a copy. Writes still go through the
// file (SQLite maps for reading only), so a full disk answers as before. A mapped read of a file cut short under it
// would be a crash, not an error: these files never shrink while the service runs (no VACUUM of a live file, a
// rebuild's dropped tables leave free pages, a restore goes to an empty DATA_DIR).
import type Database from 'better-sqlite3';

/**
 * Maps up to `bytes` of the connection's database file (0 or none: no map). SQLite never maps more than its
 * compiled limit (about 2 GB) and reads a larger file's rest as before.
 */
export function mapForReads(db: Database.Database, bytes = 0): void {
  if (!Number.isSafeInteger(bytes) || bytes < 0) throw new RangeError(`mmap size must be a non-negative integer (got ${bytes})`);
  db.pragma(`mmap_size = ${bytes}`);
}
