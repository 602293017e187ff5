// The served operations match API.md's tables of 57 and of 58–61 (number, method, path, credentials), which clients follow.
import fs from 'node:fs';
import { expect } from 'chai';
import { operations } from '../../app/features/operations.ts';

/**
 * The service answers every operation of API.md's table of 57, with its method, path and credentials:
 * clients follow that table literally. API.md lives in ../shared/spec/ beside the project.
 */
const API_MD = new URL('../../../shared/spec/API.md', import.meta.url);

describe("API.md's table of operations", () => {
  it('is served operation by operation: same number, method, path and credentials', function () {
    if (!fs.existsSync(API_MD)) this.skip(); // ../shared is beside the project in CI (see .ci/run)
    const rows = [...fs.readFileSync(API_MD, 'utf8').matchAll(/^\| (\d+) \|(?: [^|]+\|)? (GET|POST|PUT|DELETE) (\S+) \| (\w+) \|/gm)].map((r) => ({
      number: Number(r[1]),
      method: r[2].toLowerCase(),
      path: r[3],
      auth: r[4],
    }));
    // The seed's 57 and timed bidding's 58–61 (a table without the group column).
    expect(rows).to.have.length(61);
    const served = operations.map(({ route }) => ({ number: route.number, method: route.method, path: route.path, auth: route.auth }));
    expect(served.sort((a, b) => a.number - b.number)).to.deep.equal(rows.sort((a, b) => a.number - b.number));
  });
});
