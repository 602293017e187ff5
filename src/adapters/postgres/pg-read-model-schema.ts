/**
 * The read-model store's own tables on PostgreSQL (aliases, checkpoints, parked events) and `rm_commit`, the
 * function that commits a live batch's writes and its checkpoint in one statement (pg-documents.ts).
 */
import type { MigrationSteps } from './migrate.ts';

export const READ_MODEL_STEPS: MigrationSteps = [
  (s) => `
    CREATE TABLE ${s}.rm_aliases (
      name text PRIMARY KEY,
      physical text NOT NULL,
      allocated integer NOT NULL,
      spec jsonb NOT NULL
    );
    CREATE TABLE ${s}.rm_checkpoints (
      projection text PRIMARY KEY,
      position bigint NOT NULL,
      updated timestamptz NOT NULL DEFAULT now()
    );`,
  // Events a projection set aside (src/projector/parking.ts), under its checkpoint's name.
  (s) => `
    CREATE TABLE ${s}.rm_parked (
      projection text NOT NULL,
      position bigint NOT NULL,
      type text NOT NULL,
      stream text NOT NULL,
      tenant text NOT NULL,
      state text NOT NULL,
      error text NOT NULL,
      attempts integer NOT NULL,
      first_at timestamptz NOT NULL,
      last_at timestamptz NOT NULL,
      PRIMARY KEY (projection, position)
    );`,
  // A live batch's writes and its checkpoint in one statement.
  (s) => rmCommitFunction(s),
];

/**
 * `rm_commit(projection, expected, position, ops)`: moves the checkpoint from `expected` to `position` (its row
 * locked until the statement's transaction ends), then, through the aliases read after it, applies `ops`
 * (`[{c: collection, d: [[tenant, id]...], p: [[tenant, id, doc]...]}]`, one write a document). Answers
 * `{conflict: stored position}` with nothing written when the checkpoint was elsewhere, else `{tables: {name: copy}}`.
 */
function rmCommitFunction(s: string): string {
  const schema = s.slice(1, -1);
  return `
    CREATE FUNCTION ${s}.rm_commit(p_projection text, p_expected bigint, p_position bigint, p_ops jsonb) RETURNS jsonb
    LANGUAGE plpgsql AS $fn$
    DECLARE
      v_moved integer;
      v_actual bigint;
      v_op jsonb;
      v_physical text;
      v_tables jsonb := '{}';
    BEGIN
      IF p_expected = 0 THEN
        INSERT INTO ${s}.rm_checkpoints AS c (projection, position) VALUES (p_projection, p_position) ON CONFLICT (projection)
          DO UPDATE SET position = excluded.position, updated = now() WHERE c.position = 0;
      ELSE
        UPDATE ${s}.rm_checkpoints SET position = p_position, updated = now() WHERE projection = p_projection AND position = p_expected;
      END IF;
      GET DIAGNOSTICS v_moved = ROW_COUNT;
      IF v_moved <> 1 THEN
        SELECT position INTO v_actual FROM ${s}.rm_checkpoints WHERE projection = p_projection;
        RETURN jsonb_build_object('conflict', coalesce(v_actual, 0));
      END IF;
      FOR v_op IN SELECT * FROM jsonb_array_elements(p_ops) LOOP
        SELECT physical INTO v_physical FROM ${s}.rm_aliases WHERE name = v_op->>'c';
        IF v_physical IS NULL THEN
          RAISE EXCEPTION 'unknown collection %', v_op->>'c';
        END IF;
        v_tables := v_tables || jsonb_build_object(v_op->>'c', v_physical);
        IF jsonb_array_length(v_op->'d') > 0 THEN
          EXECUTE format('DELETE FROM %I.%I t USING jsonb_array_elements($1) AS d WHERE t.tenant = d->>0 AND t.id = d->>1', '${schema}', v_physical)
            USING v_op->'d';
        END IF;
        IF jsonb_array_length(v_op->'p') > 0 THEN
          EXECUTE format('INSERT INTO %I.%I (tenant, id, doc) SELECT p->>0, p->>1, p->2 FROM jsonb_array_elements($1) WITH ORDINALITY AS e(p, n)
            ORDER BY n ON CONFLICT (tenant, id) DO UPDATE SET doc = excluded.doc', '${schema}', v_physical)
            USING v_op->'p';
        END IF;
      END LOOP;
      RETURN jsonb_build_object('tables', v_tables);
    END
    $fn$;`;
}
