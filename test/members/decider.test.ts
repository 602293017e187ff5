/**
 * The member decider (sign-up, confirmation, password reset) and the email-claim decider, as
 * given/when/then specifications with explicit times; then the sign-up procedure on a real event log:
 * unique ids and addresses, and recovery from a sign-up that stopped between its two appends.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spec } from '../support/decider.ts';
import { ConflictError, ValidationError } from '../../src/errors.ts';
import { OneTimeKeys } from '../../src/security/keys.ts';
import { SqliteEventLog } from '../../src/adapters/embedded/sqlite-event-log.ts';
import { emailClaimDecider, MemberIdTaken, memberDecider } from '../../commands/members/decide.ts';
import { claimEmail, loadMember, ORPHAN_CLAIM_GRACE_MS, signUpMember, SIGN_UP_ID_RANGE } from '../../commands/members/handlers.ts';
import { memberEmailStreamId, memberEvents, memberStreamId, type MemberEvent } from '../../commands/members/events.ts';
import { importMember } from '../../commands/members/intake.ts';

const T0 = '2026-11-22T12:00:00.000Z';
const plus = (iso: string, ms: number) => new Date(Date.parse(iso) + ms).toISOString();
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

const keyIds = ['6f1d3c2a-8b4e-4f5a-9c7d-0e1f2a3b4c5d', '7a2e4d3b-9c5f-4a6b-8d8e-1f2a3b4c5d6e', '8b3f5e4c-ad6a-4b7c-9e9f-2a3b4c5d6e7f'];
const keyOf = (id: string) => `key-of-${id}`;
const hashOf = (id: string) => OneTimeKeys.hash(keyOf(id));

const signUp = {
  tenant: 'demo',
  memberId: 1234567,
  uid: '0b7c7f52-4d5e-4a43-9f2c-3e9a5b1c2d3e',
  email: 'anna@example.com',
  passwordHash: 'scrypt$1$1$1$a$b',
  firstName: 'Anna',
  lastName: 'Berg',
  language: 'en',
  phone: '',
  signedUpAt: T0,
};
const { tenant, memberId } = signUp;

const signedUp: MemberEvent = { type: 'MemberSignedUp', data: signUp };
const confirmationIssued: MemberEvent = {
  type: 'MemberConfirmationKeyIssued',
  data: { tenant, memberId, keyId: keyIds[0], keyHash: hashOf(keyIds[0]), issuedAt: T0, expiresAt: plus(T0, 24 * HOUR) },
};
const confirmed: MemberEvent = { type: 'MemberEmailConfirmed', data: { tenant, memberId, at: plus(T0, MINUTE) } };
const resetIssued = (keyId: string, requestedAt: string): MemberEvent => ({
  type: 'PasswordResetKeyIssued',
  data: { tenant, memberId, keyId, keyHash: hashOf(keyId), requestedAt, issuedAt: requestedAt, expiresAt: plus(requestedAt, HOUR) },
});

describe('member decider: sign-up and email confirmation', () => {
  it('signs up a new member with the hash of its confirmation key, valid 24 hours', () => {
    spec(memberDecider)
      .given([])
      .when({
        type: 'SignUp',
        signUp,
        confirmationKey: { keyId: keyIds[0], keyHash: hashOf(keyIds[0]) },
        at: T0,
        expiresAt: plus(T0, 24 * HOUR),
      })
      .then([signedUp, confirmationIssued]);
  });

  it('refuses a sign-up under a member id that is in use, was removed, or was closed', () => {
    const command = {
      type: 'SignUp' as const,
      signUp,
      confirmationKey: { keyId: keyIds[1], keyHash: hashOf(keyIds[1]) },
      at: T0,
      expiresAt: plus(T0, 24 * HOUR),
    };
    spec(memberDecider).given([signedUp]).when(command).thenThrows(MemberIdTaken);
    spec(memberDecider)
      .given([signedUp, { type: 'MemberRemoved', data: { tenant, memberId, at: T0 } }])
      .when(command)
      .thenThrows(MemberIdTaken);
    spec(memberDecider)
      .given([{ type: 'MemberSignUpAbandoned', data: { tenant, memberId, email: signUp.email, at: T0 } }])
      .when(command)
      .thenThrows(MemberIdTaken);
  });

  it('confirms the email with the right key before it expires', () => {
    spec(memberDecider)
      .given([signedUp, confirmationIssued])
      .when({ type: 'ConfirmEmail', tenant, memberId, keyHash: hashOf(keyIds[0]), at: plus(T0, 24 * HOUR - 1) })
      .then([{ type: 'MemberEmailConfirmed', data: { tenant, memberId, at: plus(T0, 24 * HOUR - 1) } }]);
  });

  it('refuses a wrong key, an expired key and a used key with the same 400', () => {
    const given = spec(memberDecider).given([signedUp, confirmationIssued]);
    given
      .when({ type: 'ConfirmEmail', tenant, memberId, keyHash: hashOf(keyIds[1]), at: plus(T0, MINUTE) })
      .thenThrows(ValidationError, /wrong, used or expired/);
    given
      .when({ type: 'ConfirmEmail', tenant, memberId, keyHash: hashOf(keyIds[0]), at: plus(T0, 24 * HOUR) })
      .thenThrows(ValidationError, /wrong, used or expired/);
    spec(memberDecider)
      .given([signedUp, confirmationIssued, confirmed])
      .when({ type: 'ConfirmEmail', tenant, memberId, keyHash: hashOf(keyIds[0]), at: plus(T0, 2 * MINUTE) })
      .thenThrows(ValidationError, /wrong, used or expired/);
  });

  it('refuses a confirmation for a removed member, and for an id with no member', () => {
    spec(memberDecider)
      .given([signedUp, confirmationIssued, { type: 'MemberRemoved', data: { tenant, memberId, at: T0 } }])
      .when({ type: 'ConfirmEmail', tenant, memberId, keyHash: hashOf(keyIds[0]), at: plus(T0, MINUTE) })
      .thenThrows(ValidationError);
    spec(memberDecider)
      .given([])
      .when({ type: 'ConfirmEmail', tenant, memberId, keyHash: hashOf(keyIds[0]), at: T0 })
      .thenThrows(ValidationError);
  });

  it('closes an id nothing was appended to, and leaves a member that was created meanwhile alone', () => {
    const command = { type: 'AbandonSignUp' as const, tenant, memberId, email: signUp.email, at: T0 };
    spec(memberDecider)
      .given([])
      .when(command)
      .then([{ type: 'MemberSignUpAbandoned', data: { tenant, memberId, email: signUp.email, at: T0 } }]);
    spec(memberDecider).given([signedUp, confirmationIssued]).when(command).thenNothingHappened();
  });

  it('refuses to import a member id that holds another email address', () => {
    spec(memberDecider)
      .given([signedUp])
      .when({ type: 'ImportMember', signUp: { ...signUp, email: 'someone.else@example.com' }, confirmed: true, roles: ['bidder'], at: T0 })
      .thenThrows(ConflictError);
  });
});

describe('member decider: password reset', () => {
  const history = [signedUp, confirmationIssued, confirmed];
  const issue = (keyId: string, requestedAt: string) => ({
    type: 'IssuePasswordResetKey' as const,
    tenant,
    memberId,
    keyId,
    keyHash: hashOf(keyId),
    requestedAt,
    at: requestedAt,
    expiresAt: plus(requestedAt, HOUR),
  });
  const reset = (keyId: string, at: string) => ({
    type: 'ResetPassword' as const,
    tenant,
    memberId,
    keyHash: hashOf(keyId),
    passwordHash: 'scrypt$new$hash',
    at,
  });

  it('issues a reset key valid 1 hour', () => {
    spec(memberDecider)
      .given(history)
      .when(issue(keyIds[1], T0))
      .then([resetIssued(keyIds[1], T0)]);
  });

  it('issues a key once for a retried job, nothing for a request older than the newest key, and nothing without a member', () => {
    spec(memberDecider)
      .given([...history, resetIssued(keyIds[1], T0)])
      .when(issue(keyIds[1], T0))
      .thenNothingHappened();
    spec(memberDecider)
      .given([...history, resetIssued(keyIds[2], plus(T0, MINUTE))])
      .when(issue(keyIds[1], T0))
      .thenNothingHappened();
    spec(memberDecider).given([]).when(issue(keyIds[1], T0)).thenNothingHappened();
    spec(memberDecider)
      .given([...history, { type: 'MemberRemoved', data: { tenant, memberId, at: T0 } }])
      .when(issue(keyIds[1], T0))
      .thenNothingHappened();
  });

  it('sets the new password with the current key before it expires, ending the sessions', () => {
    spec(memberDecider)
      .given([...history, resetIssued(keyIds[1], T0)])
      .when(reset(keyIds[1], plus(T0, HOUR - 1)))
      .then([
        {
          type: 'MemberPasswordChanged',
          data: { tenant, memberId, keyId: keyIds[1], passwordHash: 'scrypt$new$hash', at: plus(T0, HOUR - 1) },
        },
      ]);
  });

  it('confirms the email of an unconfirmed member too: the key reached the mailbox', () => {
    spec(memberDecider)
      .given([signedUp, confirmationIssued, resetIssued(keyIds[1], T0)])
      .when(reset(keyIds[1], plus(T0, MINUTE)))
      .then([
        {
          type: 'MemberPasswordChanged',
          data: { tenant, memberId, keyId: keyIds[1], passwordHash: 'scrypt$new$hash', at: plus(T0, MINUTE) },
        },
        { type: 'MemberEmailConfirmed', data: { tenant, memberId, at: plus(T0, MINUTE) } },
      ]);
  });

  it('refuses an expired key, a used key, a key voided by a newer request, and the confirmation key', () => {
    const issued = [...history, resetIssued(keyIds[1], T0)];
    spec(memberDecider)
      .given(issued)
      .when(reset(keyIds[1], plus(T0, HOUR)))
      .thenThrows(ValidationError, /wrong, used or expired/);
    const used: MemberEvent = {
      type: 'MemberPasswordChanged',
      data: { tenant, memberId, keyId: keyIds[1], passwordHash: 'scrypt$x', at: plus(T0, MINUTE) },
    };
    spec(memberDecider)
      .given([...issued, used])
      .when(reset(keyIds[1], plus(T0, 2 * MINUTE)))
      .thenThrows(ValidationError);
    const newer = [...issued, resetIssued(keyIds[2], plus(T0, MINUTE))];
    spec(memberDecider)
      .given(newer)
      .when(reset(keyIds[1], plus(T0, 2 * MINUTE)))
      .thenThrows(ValidationError);
    spec(memberDecider)
      .given(newer)
      .when(reset(keyIds[2], plus(T0, 2 * MINUTE)))
      .then([
        {
          type: 'MemberPasswordChanged',
          data: { tenant, memberId, keyId: keyIds[2], passwordHash: 'scrypt$new$hash', at: plus(T0, 2 * MINUTE) },
        },
      ]);
    spec(memberDecider)
      .given(issued)
      .when(reset(keyIds[0], plus(T0, MINUTE)))
      .thenThrows(ValidationError);
  });

  it('refuses a reset for a removed member', () => {
    spec(memberDecider)
      .given([...history, resetIssued(keyIds[1], T0), { type: 'MemberRemoved', data: { tenant, memberId, at: T0 } }])
      .when(reset(keyIds[1], plus(T0, MINUTE)))
      .thenThrows(ValidationError);
  });
});

describe('email claim decider', () => {
  const claim = (id: number, replacing: number | null = null) => ({
    type: 'ClaimEmail' as const,
    tenant,
    email: signUp.email,
    memberId: id,
    at: T0,
    replacing,
  });
  const claimed = (id: number): MemberEvent => ({
    type: 'MemberEmailClaimed',
    data: { tenant, email: signUp.email, memberId: id, at: T0 },
  });

  it('claims a free address, and appends nothing when the same member claims it again', () => {
    spec(emailClaimDecider)
      .given([])
      .when(claim(7))
      .then([claimed(7)]);
    spec(emailClaimDecider)
      .given([claimed(7)])
      .when(claim(7))
      .thenNothingHappened();
  });

  it('answers 409 to another member, unless it replaces the holder the caller proved free', () => {
    spec(emailClaimDecider)
      .given([claimed(7)])
      .when(claim(8))
      .thenThrows(ConflictError, /already registered/);
    spec(emailClaimDecider)
      .given([claimed(7)])
      .when(claim(8, 7))
      .then([claimed(8)]);
    // The claim moved on since the caller looked: the proof was about another holder.
    spec(emailClaimDecider)
      .given([claimed(7), claimed(9)])
      .when(claim(8, 7))
      .thenThrows(ConflictError);
  });
});

describe('sign-up on the event log', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-members-'));
  let log: SqliteEventLog;
  let n = 0;
  const input = (email: string, now = new Date()) => ({
    tenant: 'demo',
    uid: signUp.uid,
    email,
    passwordHash: 'scrypt$1$1$1$a$b',
    firstName: 'A',
    lastName: 'B',
    language: 'en',
    phone: '',
    signedUpAt: now.toISOString(),
    keyId: keyIds[0],
    keyHash: hashOf(keyIds[0]),
    now,
  });
  const append = (event: MemberEvent, stream: string) => log.appendToStream(stream, [memberEvents.toNew(event)]);

  before(() => {
    log = new SqliteEventLog(path.join(dir, 'events.sqlite'));
  });
  after(async () => {
    await log.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const fresh = () => `member-${++n}@example.com`;

  it('draws an int32 member id and claims the address for it before creating the member', async () => {
    const email = fresh();
    const { memberId: id } = await signUpMember(log, input(email));
    expect(id).to.be.within(SIGN_UP_ID_RANGE.min, SIGN_UP_ID_RANGE.max);
    const claims = await log.readStream(memberEmailStreamId('demo', email));
    expect(claims.map((e) => [e.type, e.data.memberId])).to.deep.equal([['MemberEmailClaimed', id]]);
    expect((await log.readStream(memberStreamId('demo', id))).map((e) => e.type)).to.deep.equal([
      'MemberSignedUp',
      'MemberConfirmationKeyIssued',
    ]);
    expect(claims[0].position).to.be.below((await log.readStream(memberStreamId('demo', id)))[0].position);
  });

  it('gives parallel sign-ups of one address one member and 409 to the others; different addresses all get their own id', async () => {
    const email = fresh();
    const results = await Promise.allSettled(Array.from({ length: 8 }, () => signUpMember(log, input(email))));
    const won = results.filter((r) => r.status === 'fulfilled');
    expect(won).to.have.length(1);
    for (const r of results.filter((r) => r.status === 'rejected'))
      expect((r as PromiseRejectedResult).reason).to.be.instanceOf(ConflictError);

    const many = await Promise.all(Array.from({ length: 20 }, () => signUpMember(log, input(fresh()))));
    expect(new Set(many.map((r) => r.memberId)).size).to.equal(20);
  });

  it('keeps the address of a sign-up under way (a claim without its member, younger than the grace period): 409', async () => {
    const email = fresh();
    await append(
      { type: 'MemberEmailClaimed', data: { tenant: 'demo', email, memberId: 4242, at: new Date().toISOString() } },
      memberEmailStreamId('demo', email),
    );
    let error: unknown;
    await signUpMember(log, input(email)).catch((e) => (error = e));
    expect(error).to.be.instanceOf(ConflictError);
    expect(await log.readStream(memberStreamId('demo', 4242))).to.deep.equal([]);
  });

  it('recovers an address whose sign-up stopped between its two appends: closes the orphan id, then claims it anew', async () => {
    const email = fresh();
    const then = new Date(Date.now() - ORPHAN_CLAIM_GRACE_MS - 1000).toISOString();
    await append(
      { type: 'MemberEmailClaimed', data: { tenant: 'demo', email, memberId: 4343, at: then } },
      memberEmailStreamId('demo', email),
    );
    const { memberId: id } = await signUpMember(log, input(email));
    expect(id).to.not.equal(4343);
    expect((await log.readStream(memberStreamId('demo', 4343))).map((e) => e.type)).to.deep.equal(['MemberSignUpAbandoned']);
    expect((await log.readStream(memberEmailStreamId('demo', email))).map((e) => e.data.memberId)).to.deep.equal([4343, id]);
    // The stopped sign-up, resumed late, can no longer create its member.
    let error: unknown;
    await log
      .appendToStream(
        memberStreamId('demo', 4343),
        [memberEvents.toNew({ type: 'MemberSignedUp', data: { ...signUp, memberId: 4343, email } })],
        { expectedRevision: 'no_stream' },
      )
      .catch((e) => (error = e));
    expect(error).to.be.an('error');
    expect((await loadMember(log, 'demo', 4343)).exists).to.equal(false);
  });

  it("lets a removed member's address sign up again, and never an imported member's", async () => {
    const email = fresh();
    await importMember(
      { log },
      {
        kind: 'member',
        tenant: 'demo',
        memberId: 77,
        email: email.toUpperCase(),
        passwordHash: 'scrypt$1$1$1$a$b',
        firstName: 'I',
        lastName: 'M',
        language: 'en',
        phone: '',
        signedUpAt: T0,
        confirmed: true,
        roles: ['bidder'],
      },
    );
    expect((await log.readStream(memberEmailStreamId('demo', email))).map((e) => e.data.memberId)).to.deep.equal([77]);
    let error: unknown;
    await signUpMember(log, input(email)).catch((e) => (error = e));
    expect(error).to.be.instanceOf(ConflictError);

    await append({ type: 'MemberRemoved', data: { tenant: 'demo', memberId: 77, at: T0 } }, memberStreamId('demo', 77));
    const { memberId: id } = await signUpMember(log, input(email));
    expect((await loadMember(log, 'demo', id)).email).to.equal(email);
  });

  it('imports a member idempotently, and refuses an address another member holds', async () => {
    const email = fresh();
    const record = {
      kind: 'member' as const,
      tenant: 'demo',
      memberId: 88,
      email,
      passwordHash: 'scrypt$1$1$1$a$b',
      firstName: 'I',
      lastName: 'M',
      language: 'en',
      phone: '',
      signedUpAt: T0,
      confirmed: true,
      roles: ['bidder' as const],
    };
    expect((await importMember({ log }, record)).events.map((e) => e.type)).to.deep.equal([
      'MemberEmailClaimed',
      'MemberSignedUp',
      'MemberEmailConfirmed',
      'MemberRoleGranted',
    ]);
    expect((await importMember({ log }, record)).events).to.deep.equal([]);
    let error: unknown;
    await importMember({ log }, { ...record, memberId: 89 }).catch((e) => (error = e));
    expect(error).to.be.instanceOf(ConflictError);
    expect(await log.readStream(memberStreamId('demo', 89))).to.deep.equal([]);
    expect((await claimEmail(log, { tenant: 'demo', email, memberId: 88, at: T0, now: new Date() })).events).to.deep.equal([]);
  });
});
