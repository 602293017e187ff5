// An operation's request input (path, query, JSON body) checked against its declared schemas, with every bad value
// named in one 400, so a handler only ever sees valid, typed input.
import type { Request } from 'express';
import type { z } from 'zod';
import { ValidationError, type FieldError } from '../errors.ts';
import { idempotencyKeyOf } from '../idempotency/once-for-key.ts';
import { printable, textProblem } from '../text/allowed-characters.ts';
import { textErrors } from '../text/text-errors.ts';
import type { Operation } from './operation.ts';

function issues(where: string, error: z.ZodError): FieldError[] {
  return error.issues.map((issue) => ({
    field: [where, ...issue.path.map(String)].join('.'),
    message: issue.message,
  }));
}

/** The texts of a path or query parameter the operation reads (its name when given in brackets, and its values), as one line each. */
function parameterTextErrors(field: string, key: string | null, value: unknown): FieldError[] {
  const texts = [...(key === null ? [] : [key]), ...(Array.isArray(value) ? value : [value])];
  const problem = texts.map((text) => (typeof text === 'string' ? textProblem(text) : null)).find((p) => p !== null);
  return problem ? [{ field, message: problem }] : [];
}

/**
 * Query parameters by canonical name, matched case-insensitively (`page`, `Page` and `PAGE` are one
 * parameter). A parameter given twice, or in bracket form (`AuctionId[]=1`, `status[x]=current`), is a 400:
 * the caller meant a filter the service would otherwise drop silently. `MetaDataProperties[Name]=Value` is
 * the one bracket form accepted, where the operation declares MetaDataProperties (its operation reads it from
 * the raw query). Other names the operation does not declare are ignored (cache busters, tracking tags).
 * `textErrors`: the parameters read whose texts hold what no text may (src/text/allowed-characters.ts).
 */
export function canonicalQuery(
  req: Request,
  shape: Record<string, unknown>,
): { values: Record<string, string>; errors: FieldError[]; textErrors: FieldError[] } {
  const canonical = new Map(Object.keys(shape).map((k) => [k.toLowerCase(), k]));
  const values: Record<string, string> = {};
  const errors: FieldError[] = [];
  const badTexts: FieldError[] = [];
  let langSeen = false;
  for (const [key, value] of Object.entries(req.query as Record<string, unknown>)) {
    if (key.includes('[') || key.includes(']')) {
      if (!(canonical.has('metadataproperties') && /^metadataproperties\[/i.test(key)))
        errors.push({
          field: `query.${printable(key)}`,
          message: 'bracket form is not accepted: give the parameter once, as name=value',
        });
      else badTexts.push(...parameterTextErrors(`query.${printable(key)}`, key, value));
      continue;
    }
    const name = canonical.get(key.toLowerCase());
    if (!name) {
      // `lang` is accepted on every operation (Accept-Language override), once, whatever its case.
      if (key.toLowerCase() === 'lang') {
        if (langSeen || typeof value !== 'string') errors.push({ field: 'query.lang', message: 'must be given once' });
        badTexts.push(...parameterTextErrors('query.lang', null, value));
        langSeen = true;
      }
      continue;
    }
    badTexts.push(...parameterTextErrors(`query.${name}`, null, value));
    if (name in values || typeof value !== 'string') {
      errors.push({ field: `query.${name}`, message: 'must be given once' });
      continue;
    }
    values[name] = value;
  }
  return { values, errors, textErrors: badTexts };
}

/** The raw value of a query parameter, whatever its case (for `lang`). */
export function rawQueryValue(req: Request, name: string): string | undefined {
  return queryValue(req.query as Record<string, unknown>, name);
}

/** A parsed query's value of a parameter, whatever its case; a repeated one (a list) is none. */
function queryValue(query: Record<string, unknown>, name: string): string | undefined {
  const lower = name.toLowerCase();
  for (const [key, value] of Object.entries(query)) {
    if (key.toLowerCase() === lower && typeof value === 'string') return value;
  }
  return undefined;
}

/** The language a request's query asks for: the operation's own parameter, else `lang`. */
export function languageOverride(query: Record<string, unknown>, languageParam: string | undefined): string | undefined {
  return (languageParam && queryValue(query, languageParam)) || queryValue(query, 'lang');
}

function hasBody(req: Request): boolean {
  return Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
}

/**
 * The request's params, query and body as the operation's `input` declares them; a 400 naming every bad value:
 * `text-invalid` when a text holds what no text may (src/text/allowed-characters.ts), else `validation-failed`.
 */
export function parseInput(
  operation: Operation,
  req: Request,
): { params: unknown; query: unknown; body: unknown; idempotencyKey?: string } {
  const spec = operation.input;
  const errors: FieldError[] = [];
  const badTexts: FieldError[] = [];
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
  for (const [name, value] of Object.entries((req.params ?? {}) as Record<string, unknown>))
    badTexts.push(...parameterTextErrors(`path.${name}`, null, value));
  if (spec?.params) {
    const result = spec.params.safeParse(req.params);
    if (result.success) params = result.data;
    else errors.push(...issues('path', result.error));
  }
  let query: unknown = {};
  const { values, errors: queryErrors, textErrors: queryTexts } = canonicalQuery(req, spec?.query?.shape ?? {});
  errors.push(...queryErrors);
  badTexts.push(...queryTexts);
  if (spec?.query) {
    const result = spec.query.safeParse(values);
    if (result.success) query = result.data;
    else errors.push(...issues('query', result.error));
  }
  let body: unknown = undefined;
  // A JSON body, or a form's fields (read into req.body by the shell: src/http/form-body.ts).
  const bodySchema = spec?.body ?? spec?.form?.fields;
  if (bodySchema) {
    const present = hasBody(req) && req.body !== undefined;
    if (!present && spec?.bodyOptional) body = undefined;
    else {
      if (present) badTexts.push(...textErrors(bodySchema, req.body, 'body'));
      const result = bodySchema.safeParse(present ? req.body : undefined);
      if (result.success) body = result.data;
      else errors.push(...issues('body', result.error));
    }
  }
  const invalid = invalidInput(badTexts, errors);
  if (invalid) throw invalid;
  return { params, query, body, ...(spec?.idempotencyKey ? { idempotencyKey } : {}) };
}

/**
 * The 400 of an input's bad texts and other bad values (null: none): `text-invalid` when a text is bad (a field
 * named there is not named again by the validation), else `validation-failed`.
 */
export function invalidInput(
  badTexts: FieldError[],
  errors: FieldError[],
  detail = 'The request has invalid values.',
): ValidationError | null {
  if (badTexts.length) {
    const named = new Set(badTexts.map((e) => e.field));
    return new ValidationError(
      'The request has texts holding characters no text may hold (control characters, lone surrogates, non-characters).',
      [...badTexts, ...errors.filter((e) => !named.has(e.field))],
      { code: 'text-invalid' },
    );
  }
  return errors.length ? new ValidationError(detail, errors) : null;
}

export { hasBody };
