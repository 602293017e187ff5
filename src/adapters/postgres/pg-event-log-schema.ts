// The event log's tables and its SQL function append_group (group commit in one statement), as migration steps.
import type { MigrationSteps } from './migrate.ts';

/** The event log's schema, step by step. */
export const EVENT_LOG_STEPS: MigrationSteps = [
  (s) => `
    CREATE SEQUENCE ${s}.event_positions;
    CREATE TABLE ${s}.events (
      position bigint PRIMARY KEY,
      stream_id text NOT NULL,
      revision integer NOT NULL,
      type text NOT NULL,
      version integer NOT NULL,
      data json NOT NULL,
      metadata json NOT NULL,
      created timestamptz NOT NULL DEFAULT clock_timestamp(),
      UNIQUE (stream_id, revision)
    );
    CREATE INDEX events_type_position ON ${s}.events (type, position);`,
  // A group of appends in one statement: the lock, the streams' revisions, the checks, the positions and the rows.
  (s) => appendGroupFunction(s),
];

/**
 * `append_group(streams, expected, counts, types, versions, data, metadata)`: the group's appends (append i: stream
 * i, expected revision i as EXPECTED_CODES says, its counts[i] events next in the flat event arrays) checked and
 * written under the append lock, in the order given, as one statement (one round trip, its own transaction).
 * Answers `{o: [{x: current} | {n: next revision, k: events written so far}], p: positions, c: created (epoch ms),
 * h: head when an append of nothing needs it}`. The data stay `json` values throughout (PostgreSQL's JSON functions
 * would refuse a `\u0000` in them). The unique (stream, revision) key refusing a row (a writer that did not take the
 * lock) fails the whole statement (23505).
 */
export function appendGroupFunction(s: string): string {
  const schema = s.slice(1, -1);
  return `
    CREATE FUNCTION ${s}.append_group(p_streams text[], p_expected integer[], p_counts integer[], p_types text[],
      p_versions integer[], p_data json[], p_metadata json[]) RETURNS json LANGUAGE plpgsql AS $fn$
    DECLARE
      v_names text[];
      v_revs integer[];
      v_at integer;
      v_cur integer;
      v_count integer;
      v_from integer := 0;
      v_outcomes jsonb[] := '{}';
      v_sids text[] := '{}';
      v_revisions integer[] := '{}';
      v_types text[] := '{}';
      v_versions integer[] := '{}';
      v_datas json[] := '{}';
      v_metas json[] := '{}';
      v_positions bigint[];
      v_created bigint[];
      v_head bigint;
      v_empty boolean := false;
    BEGIN
      PERFORM pg_advisory_xact_lock(hashtext('${schema}.append'));
      -- Each stream's last revision from the end of its index.
      SELECT array_agg(id), array_agg(coalesce((SELECT e.revision FROM ${s}.events e WHERE e.stream_id = id ORDER BY e.revision DESC LIMIT 1), -1))
        INTO v_names, v_revs FROM (SELECT DISTINCT id FROM unnest(p_streams) AS id) AS streams;
      FOR i IN 1 .. coalesce(cardinality(p_streams), 0) LOOP
        v_at := array_position(v_names, p_streams[i]);
        v_cur := v_revs[v_at];
        v_count := p_counts[i];
        IF NOT (p_expected[i] = -3 OR p_expected[i] = v_cur OR (p_expected[i] = -2 AND v_cur >= 0)) THEN
          v_outcomes := v_outcomes || jsonb_build_object('x', v_cur);
        ELSIF v_count = 0 THEN
          v_empty := true;
          v_outcomes := v_outcomes || jsonb_build_object('n', v_cur, 'k', 0);
        ELSE
          v_sids := v_sids || array_fill(p_streams[i], ARRAY[v_count]);
          v_revisions := v_revisions || ARRAY(SELECT generate_series(v_cur + 1, v_cur + v_count));
          v_types := v_types || p_types[v_from + 1 : v_from + v_count];
          v_versions := v_versions || p_versions[v_from + 1 : v_from + v_count];
          v_datas := v_datas || p_data[v_from + 1 : v_from + v_count];
          v_metas := v_metas || p_metadata[v_from + 1 : v_from + v_count];
          v_revs[v_at] := v_cur + v_count;
          v_outcomes := v_outcomes || jsonb_build_object('n', v_cur + v_count, 'k', cardinality(v_sids));
        END IF;
        v_from := v_from + v_count;
      END LOOP;
      IF cardinality(v_sids) > 0 THEN
        -- Positions drawn first (in order), then the rows written with them, in the order asked.
        SELECT array_agg(p ORDER BY p) INTO v_positions
          FROM (SELECT nextval('${s}.event_positions') AS p FROM generate_series(1, cardinality(v_sids))) AS drawn;
        WITH written AS (
          INSERT INTO ${s}.events (position, stream_id, revision, type, version, data, metadata)
          SELECT * FROM unnest(v_positions, v_sids, v_revisions, v_types, v_versions, v_datas, v_metas)
          RETURNING position, created
        )
        SELECT array_agg(floor(extract(epoch FROM w.created) * 1000)::bigint ORDER BY w.position) INTO v_created FROM written AS w;
        PERFORM pg_notify('${schema}_events', v_positions[cardinality(v_positions)]::text);
      END IF;
      IF v_empty THEN
        SELECT max(position) INTO v_head FROM ${s}.events;
      END IF;
      RETURN json_build_object('o', to_json(v_outcomes), 'p', to_json(v_positions), 'c', to_json(v_created), 'h', v_head);
    END
    $fn$;`;
}

/** How append_group reads an expected revision: a revision, or one of these. */
export const EXPECTED_CODES = { no_stream: -1, stream_exists: -2, any: -3 } as const;

/** What append_group answers (see appendGroupFunction). */
export interface GroupAnswer {
  o: Array<{ x?: number; n?: number; k?: number }>;
  p: Array<number | string> | null;
  c: Array<number | string> | null;
  h: number | string | null;
}
