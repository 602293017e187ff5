// The problem codes (src/problem-codes.ts): documented in docs/problems.md exactly as the catalogue and the
// operations say, each messageKey a key of the demo's interface dictionary in every language.
import fs from 'node:fs';
import { expect } from 'chai';
import { renderProblemsDoc } from '../../src/http/openapi/problems-doc.ts';
import { service } from '../../app/features/index.ts';
import { interfaceDictionary } from '../../app/seed/interface-dictionary.ts';
import { PROBLEM_CODES, STATUS_CODES, type ProblemCodeInfo } from '../../src/problem-codes.ts';
import { lotRegistrationReasons } from '../../commands/registrations/rules.ts';
import { operationProblemCodes } from '../../src/http/openapi/problems.ts';

const catalogue: Record<string, ProblemCodeInfo> = PROBLEM_CODES;

describe('the problem codes', () => {
  it('are documented in docs/problems.md exactly as the catalogue and the operations say (run `npm run docs:problems` after a change)', () => {
    const onDisk = fs.readFileSync(new URL('../../docs/problems.md', import.meta.url), 'utf8');
    expect(onDisk).to.equal(renderProblemsDoc(service.operations));
  });

  it('are kebab-case, each of one status; a status default is a code of that status', () => {
    for (const [code, info] of Object.entries(catalogue)) {
      expect(code).to.match(/^[a-z]+(-[a-z]+)*$/);
      expect(info.status).to.be.within(400, 599);
      expect(info.meaning).to.match(/\.$/);
    }
    for (const [status, code] of Object.entries(STATUS_CODES)) expect(catalogue[code].status, code).to.equal(Number(status));
  });

  it("give each messageKey as a key of the house's interface dictionary, in English, Swedish and German", () => {
    for (const [code, info] of Object.entries(catalogue)) {
      if (!info.messageKey) continue;
      for (const language of ['en', 'sv', 'de'] as const)
        expect(interfaceDictionary[language], `${code} in ${language}`).to.have.property(info.messageKey).that.is.a('string').and.not.empty;
    }
  });

  it("name every Reason of GET /v1/me/lots/{lotId}/registration as a code of a 403 that repeats it in `reason`", () => {
    for (const reason of lotRegistrationReasons) expect(catalogue[reason]).to.include({ status: 403, reason: true });
  });

  it('are listed by some operation, or say where they occur', () => {
    const listed = new Set(service.operations.flatMap((op) => [...operationProblemCodes(op).values()].flat()));
    for (const [code, info] of Object.entries(catalogue)) expect(listed.has(code as never) || info.where !== undefined, code).to.equal(true);
  });
});
