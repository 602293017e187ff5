import { z } from 'zod';
import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { PROBLEM_CODES, type ProblemCode } from '../problem-codes.ts';

extendZodWithOpenApi(z);

/**
 * Query and path values arrive as strings: these schemas check the text, convert it, and describe the
 * parameter in the OpenAPI document with its real type. The same schemas validate and document.
 */
export const INT32_MAX = 2147483647;
export const INT32_MIN = -2147483648;

export const int32Text = (options: { min?: number; max?: number; description?: string } = {}) =>
  z
    .string()
    .regex(/^-?\d{1,10}$/, 'must be an int32')
    .transform(Number)
    .pipe(
      z
        .number()
        .int()
        .min(options.min ?? -2147483648, `must be at least ${options.min ?? -2147483648}`)
        .max(options.max ?? INT32_MAX, `must be at most ${options.max ?? INT32_MAX}`),
    )
    .openapi({
      type: 'integer',
      format: 'int32',
      minimum: options.min ?? INT32_MIN,
      maximum: options.max ?? INT32_MAX,
      description: options.description,
    });

export const idText = (description = 'An int32 id.') => int32Text({ min: 1, description });

export const boolText = (description?: string) =>
  z
    .string()
    .regex(/^(true|false|1|0)$/i, 'must be true or false')
    .transform((v) => v.toLowerCase() === 'true' || v === '1')
    .openapi({ type: 'boolean', description });

/** `?ticket=` of a stream a browser opens without headers (operation 63): checked by the shell, before validation. */
export const streamTicketQuery = z.string().max(4096).optional().openapi({
  description:
    'A stream ticket (`POST /v1/stream-tickets`): then no `Api-Key` nor `Authorization` header is needed, and none is looked at.',
});

export const pageQuery = {
  page: int32Text({ min: 1, description: '1-based page number.' }).optional(),
  pageSize: int32Text({
    min: 1,
    max: 100,
    description: "Items per page, at most 100; the tenant's configured page size when omitted.",
  }).optional(),
};

export const pagedEnvelope = <T extends z.ZodType>(item: T, name: string) =>
  z
    .object({
      Items: z.array(item).max(100).openapi({ description: 'This page: at most `PageSize` items, none past the last page.' }),
      TotalCount: z.number().int().min(0).max(INT32_MAX).openapi({ description: 'Items on all pages.' }),
      Page: z.number().int().min(1).max(INT32_MAX).openapi({ description: 'This page, 1-based.' }),
      PageSize: z.number().int().min(1).max(100),
      TotalPages: z.number().int().min(0).max(INT32_MAX),
    })
    .openapi(name);

export const problemSchema = z
  .object({
    type: z
      .string()
      .max(100)
      .regex(/^urn:bidder-api:problem:[a-z0-9-]+$/)
      .openapi({
        format: 'uri',
        description: 'The kind of problem, one per status: `urn:bidder-api:problem:not-found`, `…:bad-request`, `…:unauthorized`, ….',
      }),
    title: z
      .string()
      .max(100)
      .regex(/^[A-Z][A-Za-z ]*$/)
      .openapi({ description: "The status's reason phrase (`Not Found`)." }),
    status: z.number().int().min(400).max(599),
    detail: z.string().max(1000).openapi({ description: 'What went wrong, for a developer (not shown to end users as is).' }),
    instance: z
      .string()
      .max(100)
      .regex(/^urn:request:[A-Za-z0-9._-]{1,64}$/)
      .optional()
      .openapi({ format: 'uri', description: 'This request: `urn:request:` and its `X-Request-Id`.' }),
    errors: z
      .array(
        z.object({
          // A bracketed query parameter is named as given, so a field is as long as the request line allows (16 KB).
          field: z.string().max(16384).openapi({ description: 'Where the bad value is: `path.id`, `query.PageSize`, `body.Email`.' }),
          message: z.string().max(500),
        }),
      )
      // At most one entry per query parameter (a query has at most 1,000), path parameter or body field.
      .max(2000)
      .optional()
      .openapi({ description: 'On `400`: each bad value.' }),
    code: z.enum(Object.keys(PROBLEM_CODES) as [ProblemCode, ...ProblemCode[]]).openapi({
      description:
        'What went wrong, a stable kebab-case name for a front end to pick its own message by (never parse `detail`); each operation lists the codes it may answer. The table: docs/problems.md.',
    }),
    messageKey: z
      .string()
      .max(100)
      .regex(/^message\.[A-Za-z]+$/)
      .optional()
      .openapi({ description: "The interface dictionary's key of a message for `code` (`message.bidTooLow`), where the house has one." }),
    minimumNextBid: z
      .number()
      .int()
      .min(0)
      .max(Number.MAX_SAFE_INTEGER)
      .optional()
      .openapi({ description: 'On `bid-too-low`: the least `MaxAmount` the lot takes now (minor units).' }),
    reason: z
      .string()
      .max(50)
      .regex(/^[a-z]+(-[a-z]+)*$/)
      .optional()
      .openapi({
        description:
          'On a `403` of a bid: why the caller may not bid, a `Reason` of `GET /v1/me/lots/{lotId}/registration` (the same as `code`).',
      }),
  })
  .openapi('Problem', {
    description:
      'RFC 9457 problem details: every error answer of the API has this shape. `code`, `messageKey`, `minimumNextBid`, `reason` and `errors` are its extension members.',
  });

export { z };
