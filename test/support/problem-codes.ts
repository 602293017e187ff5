// Every problem the HTTP specs receive, by the operation that answered it, so that a root hook
// (problem-codes.hook.ts) can check each code is one the OpenAPI document lists for that operation and status.
import { service } from '../../app/features/index.ts';
import { operationProblemCodes } from '../../src/http/openapi/problems.ts';
import type { Operation } from '../../src/http/operation.ts';

const seen = new Map<string, { method: string; path: string; status: number; code: string }>();

/** The operation of a request, by method and path (the one with the most literal segments when several match). */
function operationOf(method: string, urlPath: string): Operation | undefined {
  const pathname = urlPath.split('?')[0];
  let best: { op: Operation; literals: number } | undefined;
  for (const op of service.operations) {
    if (op.route.method !== method.toLowerCase()) continue;
    const pattern = new RegExp(`^${op.route.path.replace(/\{[^}]+\}/g, '[^/]+')}/?$`);
    if (!pattern.test(pathname)) continue;
    const literals = op.route.path.split('/').filter((s) => s && !s.startsWith('{')).length;
    if (!best || literals > best.literals) best = { op, literals };
  }
  return best?.op;
}

/** Records a problem answer of a spec's request (any other answer is ignored). */
export function recordProblem(method: string, urlPath: string, status: number, body: unknown) {
  if (status < 400 || !body || typeof body !== 'object') return;
  const code = (body as { code?: unknown }).code;
  seen.set(`${method} ${urlPath.split('?')[0]} ${status} ${String(code)}`, { method, path: urlPath, status, code: String(code) });
}

/** The problems seen whose code the OpenAPI document does not list for their operation and status. */
export function undocumentedProblems(): string[] {
  const found: string[] = [];
  for (const { method, path, status, code } of seen.values()) {
    const op = operationOf(method, path);
    if (!op) continue; // no route: 404 or 405, documented for no operation
    const codes: readonly string[] = operationProblemCodes(op).get(status) ?? [];
    if (!codes.includes(code))
      found.push(
        `${op.route.operationId} (${method} ${path.split('?')[0]}) answered ${status} "${code}", which it does not list (docs.problems)`,
      );
  }
  return [...new Set(found)];
}
