// A writer process for the PostgreSQL log's ordering spec: appends N events to a few streams, many at once,
// with expected revisions (a conflict is decided again), then exits 0. Args: URL SCHEMA WRITER N.
import { PgEventLog } from '../../src/adapters/postgres/pg-event-log.ts';
import { WrongExpectedVersionError } from '../../src/ports/event-log.ts';

const [url, schema, writer, count] = process.argv.slice(2);
const log = await PgEventLog.open(url, { schema });
let next = 0;
const total = Number(count);

async function worker(): Promise<void> {
  for (;;) {
    const n = next++;
    if (n >= total) return;
    const streamId = `stream-${n % 5}`;
    for (;;) {
      const revision = (await log.readStream(streamId)).length - 1;
      try {
        await log.appendToStream(streamId, [{ type: 'Written', version: 1, data: { writer, n }, metadata: { tenant: 't' } }], {
          expectedRevision: revision < 0 ? 'no_stream' : revision,
        });
        break;
      } catch (error) {
        if (!(error instanceof WrongExpectedVersionError)) throw error;
      }
    }
  }
}

await Promise.all(Array.from({ length: 8 }, () => worker()));
await log.close();
