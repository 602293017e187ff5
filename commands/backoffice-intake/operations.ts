// Intake over HTTP (BACKOFFICE.md "Intake over HTTP"): the NDJSON records of docs/intake.md for the key's own
// tenant, through the same intake as `npm run import` (app/features/intake.ts); Idempotency-Key decided on a
// stream per key.
import { defineOperation } from '../../src/http/operation.ts';
import { INT32_MAX, z } from '../../src/http/schemas.ts';
import { TooManyRequestsError } from '../../src/errors.ts';
import { readNdjsonBody } from '../../src/http/ndjson-body.ts';
import { onceForKey } from '../../src/idempotency/index.ts';

/** The largest intake body (BACKOFFICE.md). */
export const INTAKE_BODY_LIMIT = 64 * 1024 * 1024;
/** Line errors an answer lists (the first ones); the counts cover every line. */
export const ERRORS_LISTED = 1000;
/**
 * Intake bodies one house has read at once by one process (each up to 64 MiB in memory): more wait their turn as a
 * 429. Counted per house, so that one house's uploads never hold another's door.
 */
const AT_ONCE = 2;
const running = new Map<string, number>();
/** The slowest body taken (BACKOFFICE.md says nothing; a house's link is far faster): 16 KiB in every 10 s, else 408. */
export const INTAKE_FLOOR = { bytes: 16 * 1024, perMs: 10_000 };

export const postIntake = defineOperation({
  route: { number: 10, operationId: 'postIntake', group: 'Back office', method: 'post', path: '/backoffice/v1/intake', auth: 'backoffice' },
  docs: {
    summary: "Send catalogue and member records (NDJSON) for the key's house",
    description:
      "One record of docs/intake.md a line, for the key's own house: a record of another house, the operator's kinds (`tenant`, `apiKey`, `application`, `backOfficeKey`, `backOfficeKeyRevoked`) " +
      'and `file` paths (send `base64`) are line errors. Good lines are taken even when others fail; a record equal to what is stored appends nothing. ' +
      `At most 64 MiB (413); the first ${ERRORS_LISTED} line errors are listed. With \`Idempotency-Key\`: the same key and body within 24 hours answers the first answer again and appends nothing; ` +
      'the same key with another body is `422`; while the first request with a key runs, another is `409`. ' +
      'A house has at most 2 intake requests read at once by a process (a third is `429`, `Retry-After: 1`); a body that arrives slower than 16 KiB in 10 s is ended with `408`.',
    errors: [408, 409, 413, 415, 422, 429],
    problems: ['idempotency-key-in-use', 'idempotency-key-reused', 'rate-limited'],
    examples: { response: { Records: 3, Appended: 2, Errors: [{ Line: 2, Detail: "tenant: must be the key's own tenant (demo)" }] } },
  },
  input: {
    idempotencyKey: true,
    ndjson: {
      maxBytes: INTAKE_BODY_LIMIT,
      description: 'Records of docs/intake.md, one JSON object a line (UTF-8).',
      example:
        '{"kind":"category","tenant":"demo","categoryId":900,"parentId":null,"names":{"en":"Clocks"},"sortOrder":9}\n' +
        '{"kind":"translations","tenant":"demo","language":"en","entries":{"button.placeBid":"Place bid"}}\n',
    },
  },
  output: {
    response: z
      .object({
        Records: z.number().int().min(0).max(INT32_MAX).openapi({ description: 'Records read (non-empty lines).' }),
        Appended: z.number().int().min(0).max(INT32_MAX).openapi({ description: 'Events appended.' }),
        Errors: z
          .array(z.object({ Line: z.number().int().min(1).max(INT32_MAX), Detail: z.string().max(2000) }))
          .max(ERRORS_LISTED)
          .openapi({ description: 'The refused lines, by line number (1-based), in order.' }),
      })
      .openapi('IntakeAnswer'),
  },
  async handler({ idempotencyKey: key }, ctx) {
    const mine = running.get(ctx.tenant) ?? 0;
    if (mine >= AT_ONCE)
      throw new TooManyRequestsError(`${AT_ONCE} intake requests of this house are being read; send again in a second.`, 1);
    running.set(ctx.tenant, mine + 1);
    try {
      const body = await readNdjsonBody(ctx.req, ctx.res, INTAKE_BODY_LIMIT, INTAKE_FLOOR);
      const request = { tenant: ctx.tenant, scope: 'intake', key, body, at: () => new Date().toISOString() };
      return await onceForKey(ctx.commands, request, async () => {
        const report = await ctx.intake(lines(body), { correlationId: ctx.requestId });
        return {
          Records: report.records,
          Appended: report.appended,
          Errors: report.errors.slice(0, ERRORS_LISTED).map((e) => ({ Line: e.line, Detail: e.message })),
        };
      });
    } finally {
      const left = (running.get(ctx.tenant) ?? 1) - 1;
      if (left > 0) running.set(ctx.tenant, left);
      else running.delete(ctx.tenant);
    }
  },
});

/** The body's lines (a final line without a newline included; CRLF taken as LF). */
function* lines(body: Buffer): Generator<string> {
  let start = 0;
  while (start < body.length) {
    let end = body.indexOf(10, start);
    if (end < 0) end = body.length;
    yield body.toString('utf8', start, end > start && body[end - 1] === 13 ? end - 1 : end);
    start = end + 1;
  }
}

export const backofficeIntakeOperations = [postIntake];
