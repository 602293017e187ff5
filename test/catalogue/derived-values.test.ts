/**
 * Values a handler works out from the catalogue read models (TenantContext.derived, src/http/derived-values.ts)
 * are reused per tenant and key while the read models stand still, and while the handler's own check holds.
 */
import { expect } from 'chai';
import { DerivedValues } from '../../src/http/derived-values.ts';

describe('derived values', () => {
  let version: string | null = 'v1';
  let computed = 0;
  const compute = (value: number) => async () => ((computed += 1), value);
  const values = new DerivedValues(() => version, 3);
  beforeEach(() => {
    version = `v${Math.random()}`;
    computed = 0;
  });

  it('works a value out once per tenant and key while the read models stand still', async () => {
    expect(await values.get('a', 'k', compute(1))).to.equal(1);
    expect(await values.get('a', 'k', compute(2))).to.equal(1);
    expect(await values.get('b', 'k', compute(3))).to.equal(3);
    expect(await values.get('a', 'other', compute(4))).to.equal(4);
    expect(computed).to.equal(3);
  });

  it('works it out again once they moved, or when the handler says the kept one no longer holds', async () => {
    await values.get('a', 'k', compute(1));
    version = 'moved';
    expect(await values.get('a', 'k', compute(2))).to.equal(2);
    expect(await values.get('a', 'k', compute(3), (v) => v > 5)).to.equal(3);
    expect(await values.get('a', 'k', compute(4), (v) => v > 2)).to.equal(3);
    expect(computed).to.equal(3);
  });

  it('keeps nothing without a version, and at most its bound', async () => {
    version = null;
    await values.get('a', 'k', compute(1));
    await values.get('a', 'k', compute(1));
    expect(computed).to.equal(2);
    version = 'v';
    for (const key of ['1', '2', '3', '4']) await values.get('a', key, compute(1));
    computed = 0;
    await values.get('a', '1', compute(1));
    expect(computed, 'the oldest went first').to.equal(1);
  });
});
