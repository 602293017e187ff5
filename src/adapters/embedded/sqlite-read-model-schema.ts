/** The embedded read-model store's own tables: the aliases (name → physical copy), the checkpoints, the parked events. */
export const READ_MODEL_TABLES = `
  CREATE TABLE IF NOT EXISTS rm_aliases (name TEXT PRIMARY KEY, physical TEXT NOT NULL, generation INTEGER NOT NULL, spec TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS rm_checkpoints (projection TEXT PRIMARY KEY, position INTEGER NOT NULL, updated TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS rm_parked (
    projection TEXT NOT NULL, position INTEGER NOT NULL, type TEXT NOT NULL, stream TEXT NOT NULL, tenant TEXT NOT NULL,
    state TEXT NOT NULL, error TEXT NOT NULL, attempts INTEGER NOT NULL, first_at TEXT NOT NULL, last_at TEXT NOT NULL,
    PRIMARY KEY (projection, position));
`;
