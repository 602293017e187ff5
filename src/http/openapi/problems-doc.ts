// docs/problems.md, written from the catalogue of problem codes (src/problem-codes.ts) and the codes each
// operation lists in the OpenAPI document (`npm run docs:problems`; a spec fails when it is stale).
import type { Operation } from '../operation.ts';
import { PROBLEM_CODES, type ProblemCode } from '../../problem-codes.ts';
import { operationProblemCodes } from './problems.ts';

/** The operations that list each code (by operationId, in the order of their numbers). */
function whereUsed(operations: readonly Operation[]): Map<ProblemCode, string[]> {
  const used = new Map<ProblemCode, string[]>();
  const sorted = [...operations].sort((a, b) => a.route.number - b.route.number || a.route.path.localeCompare(b.route.path));
  for (const op of sorted)
    for (const codes of operationProblemCodes(op).values())
      for (const code of codes) used.set(code, [...(used.get(code) ?? []), op.route.operationId]);
  return used;
}

const cell = (text: string) => text.replace(/\|/g, '\\|');

/** Names for the sets of operations a code of credentials comes with. */
function groupsOf(operations: readonly Operation[]): Array<[string, Set<string>]> {
  const ids = (keep: (op: Operation) => boolean) => new Set(operations.filter(keep).map((op) => op.route.operationId));
  return [
    ['every operation', ids(() => true)],
    ['every `/v1` operation', ids((op) => op.route.auth !== 'backoffice')],
    [
      'every `/v1` operation that takes an `Api-Key`',
      ids((op) => op.route.auth === 'open' || op.route.auth === 'anon' || op.route.auth === 'member'),
    ],
    ['every `/v1` operation that takes a token', ids((op) => op.route.auth === 'anon' || op.route.auth === 'member')],
    ['every member operation', ids((op) => op.route.auth === 'member')],
    ['every back-office operation', ids((op) => op.route.auth === 'backoffice')],
  ];
}

export function renderProblemsDoc(operations: readonly Operation[]): string {
  const used = whereUsed(operations);
  const groups = groupsOf(operations);
  const named = (ops: string[]) => {
    // The largest group the code's operations hold whole, and the operations beyond it.
    const group = groups.find(([, members]) => members.size > 1 && [...members].every((id) => ops.includes(id)));
    const rest = ops.filter((id) => !group?.[1].has(id)).map((id) => `\`${id}\``);
    return [...(group ? [group[0]] : []), ...rest].join(', ');
  };
  const lines = [
    '# Problem codes',
    '',
    'Every error answer is `application/problem+json` (RFC 9457) with a `code`: a stable kebab-case name of what went',
    'wrong, the same wherever the same thing goes wrong, so that a front end picks its own message without reading',
    "`detail` (which is for developers). Where the house's interface dictionary has a message for it, `messageKey` names",
    'that key (`GET /v1/translations`); `type` stays one per status. The OpenAPI documents list, for each operation and',
    "status, the codes it may answer (an `enum` on `code`, and the response's description). Extensions: `errors` (on",
    '`400`: each bad value), `minimumNextBid` (on `bid-too-low`), `reason` (on a `403` whose code is a `Reason` of',
    '`GET /v1/me/lots/{lotId}/registration`, the same as `code`).',
    '',
    "This file is generated from `src/problem-codes.ts` and the operations' declarations by `npm run docs:problems`; a",
    'spec fails when it is stale.',
    '',
    '| Code | Status | Meaning | messageKey | Operations |',
    '|---|---|---|---|---|',
  ];
  for (const [code, info] of Object.entries(PROBLEM_CODES) as Array<[ProblemCode, (typeof PROBLEM_CODES)[ProblemCode]]>) {
    const ops = used.get(code) ?? [];
    const note: string | undefined = 'where' in info ? info.where : undefined;
    const where = [...(ops.length ? [named(ops)] : []), ...(note ? [note] : [])].join('; ');
    const key = 'messageKey' in info ? `\`${info.messageKey}\`` : '';
    lines.push(`| \`${code}\` | ${info.status} | ${cell(info.meaning)} | ${key} | ${where} |`);
  }
  return `${lines.join('\n')}\n`;
}
