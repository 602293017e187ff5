import { expect } from 'chai';
import { hashPassword, verifyPassword } from '../../src/security/passwords.ts';

describe('password storage', function () {
  this.timeout(20_000);

  it('stores scrypt with N = 2^17, r = 8, p = 1 and a random salt, never the password', async () => {
    const a = await hashPassword('hunter2-hunter2');
    const b = await hashPassword('hunter2-hunter2');
    expect(a).to.match(/^scrypt\$131072\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(a).to.not.equal(b);
    expect(a).to.not.include('hunter2');
  });

  it('verifies the right password only, and answers false for an unknown account (after the same work)', async () => {
    const stored = await hashPassword('right-password');
    expect(await verifyPassword('right-password', stored)).to.equal(true);
    expect(await verifyPassword('wrong-password', stored)).to.equal(false);
    expect(await verifyPassword('right-password', null)).to.equal(false);
    expect(await verifyPassword('right-password', 'scrypt$disabled')).to.equal(false);
  });
});
