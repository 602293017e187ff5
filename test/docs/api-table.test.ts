// The served operations match API.md's tables (number, method, path, credentials), which clients follow.
import fs from 'node:fs';
import { expect } from 'chai';
import { operations } from '../../app/features/operations.ts';

/**
 * The service answers every operation of API.md's tables, with its method, path and credentials: clients follow
 * them literally. API.md lives in ../shared/spec/ beside the project.
 */
const API_MD = new URL('../../../shared/spec/API.md', import.meta.url);

/**
 * Operations API.md lists that are not built yet, each with the open issue that builds it. The spec fails when one
 * of them is served (the list must then lose it) and when any other row is not.
 */
const NOT_YET_SERVED = new Map<number, string>([]);

/**
 * Operations another part of the spec asks for, beyond API.md's tables (its numbers go on after them), each with
 * where: their credentials are none of API.md's.
 */
const BEYOND_API_MD = new Map<number, { method: string; path: string; auth: string; spec: string }>([
  [65, { method: 'get', path: '/v1/push/key', auth: 'anon', spec: 'PUSH.md (Web Push: the VAPID key, any token of the house)' }],
  [66, { method: 'put', path: '/v1/me/push-subscriptions', auth: 'member', spec: 'PUSH.md (a browser subscribes to pushes)' }],
  [67, { method: 'delete', path: '/v1/me/push-subscriptions/{id}', auth: 'member', spec: 'PUSH.md (a push subscription removed)' }],
  [
    64,
    {
      method: 'get',
      path: '/v1/lots/{id}/cost-estimate',
      auth: 'anon',
      spec: 'COSTS.md "Operation 64" (API.md "Operations 64–67" names it, with its own contract)',
    },
  ],
  [
    68,
    {
      method: 'post',
      path: '/v1/notifications/unsubscribe',
      auth: 'link',
      spec: 'PRODUCTION.md "Unsubscribing from notifications" (RFC 8058 one-click, a signed token in the URL)',
    },
  ],
]);

describe("API.md's table of operations", () => {
  it('is served operation by operation: same number, method, path and credentials', function () {
    if (!fs.existsSync(API_MD)) this.skip(); // ../shared is beside the project in CI (see .ci/run)
    const rows = [
      ...fs.readFileSync(API_MD, 'utf8').matchAll(/^\| (\d+) \|(?: [^|]+\|)? (GET|POST|PUT|DELETE) (\S+) \| (\w+)[^|]* \|/gm),
    ].map((r) => ({ number: Number(r[1]), method: r[2].toLowerCase(), path: r[3], auth: r[4] }));
    // The seed's 57, timed bidding's 58–61 and front ends' 62–63, each once.
    expect(rows.map((r) => r.number).sort((a, b) => a - b)).to.deep.equal(Array.from({ length: 63 }, (_, i) => i + 1));
    const served = operations
      .map(({ route }) => ({ number: route.number, method: route.method, path: route.path, auth: route.auth }))
      .filter((op) => {
        const beyond = BEYOND_API_MD.get(op.number);
        if (!beyond) return true;
        const { method, path, auth } = op;
        expect({ method, path, auth }, `operation ${op.number}, ${beyond.spec}`).to.deep.equal({
          method: beyond.method,
          path: beyond.path,
          auth: beyond.auth,
        });
        return false;
      });
    expect(operations.filter(({ route }) => BEYOND_API_MD.has(route.number)), 'every operation beyond API.md is served').to.have.length(
      BEYOND_API_MD.size,
    );
    const due = rows.filter((r) => !NOT_YET_SERVED.has(r.number));
    expect(served.sort((a, b) => a.number - b.number)).to.deep.equal(due.sort((a, b) => a.number - b.number));
  });
});
