import { z } from 'zod';
import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';

extendZodWithOpenApi(z);

/**
 * Query and path values arrive as strings: these schemas check the text, convert it, and describe the
 * parameter in the OpenAPI document with its real type. The same schemas validate and document.
 */
const INT32_MAX = 2147483647;

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
    .openapi({ type: 'integer', format: 'int32', minimum: options.min, maximum: options.max, description: options.description });

export const idText = (description = 'An int32 id.') => int32Text({ min: 1, description });

export const boolText = (description?: string) =>
  z
    .string()
    .regex(/^(true|false|1|0)$/i, 'must be true or false')
    .transform((v) => v.toLowerCase() === 'true' || v === '1')
    .openapi({ type: 'boolean', description });

export const pageQuery = {
  page: int32Text({ min: 1, description: '1-based page number.' }).optional(),
  pageSize: int32Text({ min: 1, max: 100, description: "Items per page, at most 100; the tenant's configured page size when omitted." }).optional(),
};

export const pagedEnvelope = <T extends z.ZodType>(item: T, name: string) =>
  z
    .object({
      Items: z.array(item),
      TotalCount: z.number().int(),
      Page: z.number().int(),
      PageSize: z.number().int(),
      TotalPages: z.number().int(),
    })
    .openapi(name);

export const problemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    instance: z.string().optional(),
    errors: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
  })
  .openapi('Problem', { description: 'RFC 9457 problem details.' });

export { z };
