// An operation's request input (path, query, JSON body) checked against its declared schemas, with every bad value
// named in one 400, so a handler only ever sees valid, typed input.
import type { Request } from 'express';
import type { z } from 'zod';
import { ValidationError, type FieldError } from '../errors.ts';
import { idempotencyKeyOf } from '../idempotency/once-for-key.ts';
import type { Operation } from './operation.ts';

function issues(where: string, error: z.ZodError): FieldError[] {
  return error.issues.map((issue) => ({
    field: [where, ...issue.path.map(String)].join('.'),
    message: issue.message,
  }));
}

/**
 * Query parameters by canonical name, matched case-insensitively (`page`, `Page` and `PAGE` are one
 * parameter). A parameter given twice, or in bracket form (`AuctionId[]=1`, `status[x]=current`), is a 400:
 * the caller meant a filter the service would otherwise drop silently. `MetaDataProperties[Name]=Value` is
 * the one bracket form accepted, where the operation declares MetaDataProperties (its operation reads it from
 * the raw query). Other names the operation does not declare are ignored (cache busters, tracking tags).
 */
export function canonicalQuery(req: Request, shape: Record<string, unknown>): { values: Record<string, string>; errors: FieldError[] } {
  const canonical = new Map(Object.keys(shape).map((k) => [k.toLowerCase(), k]));
  const values: Record<string, string> = {};
  const errors: FieldError[] = [];
  let langSeen = false;
  for (const [key, value] of Object.entries(req.query as Record<string, unknown>)) {
    if (key.includes('[') || key.includes(']')) {
      if (!(canonical.has('metadataproperties') && /^metadataproperties\[/i.test(key)))
        errors.push({
          field: `query.${key.slice(0, 100)}`,
          message: 'bracket form is not accepted: give the parameter once, as name=value',
        });
      continue;
    }
    const name = canonical.get(key.toLowerCase());
    if (!name) {
      // `lang` is accepted on every operation (Accept-Language override), once, whatever its case.
      if (key.toLowerCase() === 'lang') {
        if (langSeen || typeof value !== 'string') errors.push({ field: 'query.lang', message: 'must be given once' });
        langSeen = true;
      }
      continue;
    }
    if (name in values || typeof value !== 'string') {
      errors.push({ field: `query.${name}`, message: 'must be given once' });
      continue;
    }
    values[name] = value;
  }
  return { values, errors };
}

/** The raw value of a query parameter, whatever its case (for `lang`). */
export function rawQueryValue(req: Request, name: string): string | undefined {
  const lower = name.toLowerCase();
  for (const [key, value] of Object.entries(req.query as Record<string, unknown>)) {
    if (key.toLowerCase() === lower && typeof value === 'string') return value;
  }
  return undefined;
}

function hasBody(req: Request): boolean {
  return Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
}

/** The request's params, query and body as the operation's `input` declares them; a 400 naming every bad value. */
export function parseInput(
  operation: Operation,
  req: Request,
): { params: unknown; query: unknown; body: unknown; idempotencyKey?: string } {
  const spec = operation.input;
  const errors: FieldError[] = [];
  let idempotencyKey: string | undefined;
  if (spec?.idempotencyKey) {
    try {
      idempotencyKey = idempotencyKeyOf(req.headers['idempotency-key']);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      errors.push(...(error.extra.errors ?? []));
    }
  }
  let params: unknown = {};
  if (spec?.params) {
    const result = spec.params.safeParse(req.params);
    if (result.success) params = result.data;
    else errors.push(...issues('path', result.error));
  }
  let query: unknown = {};
  const { values, errors: queryErrors } = canonicalQuery(req, spec?.query?.shape ?? {});
  errors.push(...queryErrors);
  if (spec?.query) {
    const result = spec.query.safeParse(values);
    if (result.success) query = result.data;
    else errors.push(...issues('query', result.error));
  }
  let body: unknown = undefined;
  if (spec?.body) {
    const present = hasBody(req) && req.body !== undefined;
    if (!present && spec.bodyOptional) body = undefined;
    else {
      const result = spec.body.safeParse(present ? req.body : undefined);
      if (result.success) body = result.data;
      else errors.push(...issues('body', result.error));
    }
  }
  if (errors.length) throw new ValidationError('The request has invalid values.', errors);
  return { params, query, body, ...(spec?.idempotencyKey ? { idempotencyKey } : {}) };
}

export { hasBody };
