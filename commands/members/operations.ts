// Sign-up, email confirmation and password resets (`POST /v1/members`, `/v1/members/confirmation`,
// `/v1/password-resets` and `/v1/password-resets/confirmation`), decided on the member streams and rate-limited;
// declared once (defineOperation) for routing, validation and the OpenAPI document.
import { randomUUID } from 'node:crypto';
import { defineOperation, type TenantContext } from '../../src/http/operation.ts';
import { z } from '../../src/http/schemas.ts';
import { ConflictError, ValidationError } from '../../src/errors.ts';
import { hashPassword } from '../../src/security/passwords.ts';
import { OneTimeKeys } from '../../src/security/keys.ts';
import { memberByEmail } from '../../projections/members/index.ts';
import { KEY_PURPOSE, loadMember, signUpMember } from './handlers.ts';
import { badKey, EMAIL_TAKEN_DETAIL, memberDecider, resetKeyWorks } from './decide.ts';
import { memberStreamId, normalizeEmail } from './events.ts';
import { ISSUE_PASSWORD_RESET, JOB_RETRIES, passwordResetJobId, type PasswordResetJob } from './jobs.ts';
import { emailKey, enforceLimit, MEMBER_LIMITS, newPassword, normalizePhone, passwordIsNotEmail } from './rules.ts';

const GROUP = 'Sign-up and sign-in';
const email = () => z.email().max(320).openapi({ description: "The account's email address (compared without regard to case)." });
const oneTimeKey = (description: string) => z.string().min(1).max(100).openapi({ description });
const optionalText = (max: number, description: string) => z.string().trim().max(max).nullable().optional().openapi({ description });

/** The member of an email address of the tenant, from the read model. */
const findByEmail = (ctx: TenantContext, address: string) => memberByEmail(ctx.db, address);

export const signUp = defineOperation({
  route: { number: 34, operationId: 'signUp', group: GROUP, method: 'post', path: '/v1/members', auth: 'anon' },
  docs: {
    summary: 'Sign up: create a bidder account and mail its confirmation key',
    description:
      '`Email` must be a valid address not yet registered with the auction house (409 otherwise); `Password` 10 to 128 characters, not the email address. ' +
      "`FirstName`, `LastName` (200 characters each), `Language` (one of the house's languages; the negotiated language when left out) and `Phone` " +
      "(stored in E.164; a number without a country code is read as one of the house's country) are optional. Other MemberDto fields are ignored: " +
      'the rest of the profile is set with PUT /v1/me, and server-owned fields are never taken from a body. ' +
      'A confirmation key is mailed to the address, valid 24 hours and once (POST /v1/members/confirmation); the account cannot sign in until it is confirmed. ' +
      'At most 10 sign-ups an hour from one client address (429 with Retry-After).',
    errors: [409, 429],
    problems: ['email-taken', 'rate-limited'],
    examples: {
      body: {
        Email: 'anna.berg@example.com',
        Password: 'correct horse battery staple',
        FirstName: 'Anna',
        LastName: 'Berg',
        Language: 'sv',
        Phone: '+46 70 123 45 67',
      },
      response: { Id: 1843920471 },
    },
  },
  input: {
    body: z
      .object({
        Email: email(),
        Password: newPassword('10 to 128 characters, not the email address.'),
        FirstName: optionalText(200, 'First name.'),
        LastName: optionalText(200, 'Last name.'),
        Language: z
          .string()
          .max(5)
          .regex(/^[a-z]{2}(-[A-Z]{2})?$/)
          .nullable()
          .optional()
          .openapi({ description: "The member's language: one of the house's languages; the negotiated language when left out." }),
        Phone: optionalText(50, "A phone number, international (`+46 70 123 45 67`) or as dialled in the house's country."),
      })
      .superRefine(passwordIsNotEmail)
      .openapi('SignUpRequest'),
  },
  output: {
    response: z
      .object({ Id: z.number().int().min(1).max(2147483647).openapi({ description: 'The new member id.' }) })
      .openapi('SignUpResult'),
  },
  async handler({ body }, ctx) {
    const { tenant } = ctx;
    const address = normalizeEmail(body.Email);
    const language = body.Language ?? ctx.language;
    if (!tenant.Languages.includes(language))
      throw new ValidationError("The language is not one of the auction house's.", [
        { field: 'body.Language', message: `one of the house's languages: ${tenant.Languages.join(', ')}` },
      ]);
    const phone = normalizePhone(body.Phone, tenant.Country);
    await enforceLimit(
      ctx.limiter,
      `members:sign-up:${tenant.Tenant}@${ctx.ip}`,
      MEMBER_LIMITS.signUpsPerAddress,
      'Too many sign-ups from this address; try again later.',
    );
    // A quick answer for a known address; the email claim decides for certain (concurrent sign-ups, imports).
    if (await findByEmail(ctx, address)) throw new ConflictError('email-taken', EMAIL_TAKEN_DETAIL);
    const passwordHash = await hashPassword(body.Password);
    const keyId = ctx.keys.newId();
    const now = ctx.now;
    const { memberId, ...appended } = await signUpMember(ctx.commands, {
      tenant: tenant.Tenant,
      uid: randomUUID(),
      email: address,
      passwordHash,
      firstName: body.FirstName ?? '',
      lastName: body.LastName ?? '',
      language,
      phone,
      signedUpAt: now.toISOString(),
      keyId,
      keyHash: OneTimeKeys.hash(ctx.keys.key(KEY_PURPOSE.confirmation, keyId)),
      now,
    });
    // The confirmation mail is sent by the job the reactor on MemberConfirmationKeyIssued adds.
    await ctx.commands.waitFor(appended);
    return { Id: memberId };
  },
});

export const confirmEmail = defineOperation({
  route: { number: 35, operationId: 'confirmEmail', group: GROUP, method: 'post', path: '/v1/members/confirmation', auth: 'anon' },
  docs: {
    summary: 'Confirm the email address with the key of the confirmation mail',
    description:
      'Sets `Validated`, after which the account can sign in. A wrong, used or expired key is 400, and so is an address that has no account (the same answer). ' +
      'At most 30 attempts an hour from one client address (429 with Retry-After).',
    errors: [429],
    problems: ['key-invalid', 'rate-limited'],
    examples: { body: { Email: 'anna.berg@example.com', Key: 'q3Xv0mRk9LJ2cT5yWb8nHs1ZpD4fGe7A' }, response: { Validated: true } },
  },
  input: { body: z.object({ Email: email(), Key: oneTimeKey('The key of the confirmation mail.') }).openapi('EmailConfirmationRequest') },
  output: {
    response: z
      .object({ Validated: z.boolean().openapi({ description: 'Always true: the address is confirmed.' }) })
      .openapi('EmailConfirmationResult'),
  },
  async handler({ body }, ctx) {
    const { tenant } = ctx;
    await enforceLimit(
      ctx.limiter,
      `members:confirm:${tenant.Tenant}@${ctx.ip}`,
      MEMBER_LIMITS.confirmationsPerAddress,
      'Too many attempts; try again later.',
    );
    const member = await findByEmail(ctx, body.Email);
    if (!member) throw badKey();
    await ctx.commands.run(
      memberStreamId(tenant.Tenant, member.Id),
      memberDecider,
      { type: 'ConfirmEmail', tenant: tenant.Tenant, memberId: member.Id, keyHash: OneTimeKeys.hash(body.Key), at: ctx.now.toISOString() },
      { readYourWrites: true },
    );
    return { Validated: true };
  },
});

export const requestPasswordReset = defineOperation({
  route: { number: 38, operationId: 'requestPasswordReset', group: GROUP, method: 'post', path: '/v1/password-resets', auth: 'anon' },
  docs: {
    summary: 'Ask for a password-reset key by mail',
    description:
      'Always 200 with the same answer, whether or not the address has an account: the account is looked up in the background, and when it exists a reset key ' +
      'is mailed to it, valid 1 hour and once; asking again voids the earlier keys. At most 3 reset mails an hour go to one account (further requests are ' +
      'answered alike and send nothing), and at most 10 requests an hour are taken from one client address (429 with Retry-After).',
    errors: [429],
    problems: ['rate-limited'],
    examples: { body: { Email: 'anna.berg@example.com' }, response: { Accepted: true } },
  },
  input: { body: z.object({ Email: email() }).openapi('PasswordResetRequest') },
  output: {
    response: z
      .object({ Accepted: z.boolean().openapi({ description: 'Always true: a key is mailed if the address has an account.' }) })
      .openapi('PasswordResetAccepted'),
  },
  async handler({ body }, ctx) {
    const { tenant } = ctx;
    await enforceLimit(
      ctx.limiter,
      `members:reset:${tenant.Tenant}@${ctx.ip}`,
      MEMBER_LIMITS.resetRequestsPerAddress,
      'Too many password-reset requests; try again later.',
    );
    const address = normalizeEmail(body.Email);
    // The same work whether or not the account exists: the job looks it up.
    const mails = await ctx.limiter.hit(
      `members:reset-mail:${tenant.Tenant}:${emailKey(address)}`,
      MEMBER_LIMITS.resetMailsPerAccount.limit,
      MEMBER_LIMITS.resetMailsPerAccount.windowMs,
    );
    if (mails.allowed) {
      const keyId = ctx.keys.newId();
      const job: PasswordResetJob = { tenant: tenant.Tenant, email: address, keyId, requestedAt: ctx.now.toISOString() };
      await ctx.jobs.add(ISSUE_PASSWORD_RESET, job, { jobId: passwordResetJobId(tenant.Tenant, keyId), ...JOB_RETRIES });
    }
    return { Accepted: true };
  },
});

export const confirmPasswordReset = defineOperation({
  route: {
    number: 39,
    operationId: 'confirmPasswordReset',
    group: GROUP,
    method: 'post',
    path: '/v1/password-resets/confirmation',
    auth: 'anon',
  },
  docs: {
    summary: 'Set a new password with the key of the reset mail',
    description:
      '`Password` follows the sign-up rules (10 to 128 characters, not the email address). A wrong, used, voided (a newer request was made) or expired key is 400, ' +
      'and so is an address that has no account (the same answer). The reset ends every session of the member: member tokens issued before it are 401. ' +
      'It also confirms the email address, if it was not confirmed yet. At most 20 attempts an hour from one client address (429 with Retry-After).',
    errors: [429],
    problems: ['key-invalid', 'rate-limited'],
    examples: {
      body: { Email: 'anna.berg@example.com', Key: 'q3Xv0mRk9LJ2cT5yWb8nHs1ZpD4fGe7A', Password: 'a new and better passphrase' },
      response: { PasswordChanged: true },
    },
  },
  input: {
    body: z
      .object({
        Email: email(),
        Key: oneTimeKey('The key of the reset mail.'),
        Password: newPassword('The new password: 10 to 128 characters, not the email address.'),
      })
      .superRefine(passwordIsNotEmail)
      .openapi('PasswordResetConfirmation'),
  },
  output: {
    response: z
      .object({ PasswordChanged: z.boolean().openapi({ description: 'Always true: the new password is set.' }) })
      .openapi('PasswordResetResult'),
  },
  async handler({ body }, ctx) {
    const { tenant } = ctx;
    await enforceLimit(
      ctx.limiter,
      `members:reset-confirm:${tenant.Tenant}@${ctx.ip}`,
      MEMBER_LIMITS.resetConfirmationsPerAddress,
      'Too many attempts; try again later.',
    );
    const member = await findByEmail(ctx, body.Email);
    if (!member) throw badKey();
    const keyHash = OneTimeKeys.hash(body.Key);
    // A key that cannot work is refused before the slow hash (as fast as for an unknown address); the decider
    // checks again when it appends, so of two concurrent uses of one key only one wins.
    if (!resetKeyWorks(await loadMember(ctx.commands, tenant.Tenant, member.Id), keyHash, ctx.now.toISOString())) throw badKey();
    const passwordHash = await hashPassword(body.Password);
    await ctx.commands.run(
      memberStreamId(tenant.Tenant, member.Id),
      memberDecider,
      { type: 'ResetPassword', tenant: tenant.Tenant, memberId: member.Id, keyHash, passwordHash, at: ctx.now.toISOString() },
      { readYourWrites: true },
    );
    return { PasswordChanged: true };
  },
});

/** The HTTP operations of members that run commands. */
export const membersCommandOperations = [signUp, confirmEmail, requestPasswordReset, confirmPasswordReset];
