// A mocha root hook (.mocharc.json "require"): after all specs, every problem code an HTTP spec received must be
// listed for its operation and status in the OpenAPI document, so an operation cannot answer a code it does not
// document.
import { expect } from 'chai';
import { undocumentedProblems } from './problem-codes.ts';

export const mochaHooks = {
  afterAll() {
    const found = undocumentedProblems();
    expect(found, `problem codes answered but not documented:\n${found.join('\n')}`).to.deep.equal([]);
  },
};
