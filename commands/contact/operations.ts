// The contact form's operation (`POST /v1/contact`): a visitor's message to the auction house, rate-limited
// per address; declared once (defineOperation), so its route, validation and OpenAPI entry agree.
import { randomUUID } from 'node:crypto';
import { defineOperation } from '../../src/http/operation.ts';
import { z } from '../../src/http/schemas.ts';
import { holdsLines } from '../../src/text/holds-lines.ts';
import { NotFoundError, TooManyRequestsError } from '../../src/errors.ts';
import { lotExists } from '../../projections/catalogue/index.ts';
import { contactDecider } from './decide.ts';
import { contactStreamId } from './events.ts';

/** Contact messages accepted per client address and tenant in a window (spam guard). */
export const CONTACT_LIMIT = { count: 10, windowMs: 60 * 60_000 };

export const sendContactMessage = defineOperation({
  route: { number: 54, operationId: 'sendContactMessage', group: 'Contact', method: 'post', path: '/v1/contact', auth: 'anon' },
  docs: {
    summary: "Send a contact-form message to the auction house's contact address",
    description:
      'Delivered in the background (on the embedded default: a file in the outbox). LotId, when given, must be a lot of the tenant (404 otherwise). ' +
      'At most 10 messages an hour from one address (429).',
    errors: [404, 429],
    problems: ['rate-limited'],
    examples: {
      body: {
        Name: 'Anna Berg',
        Email: 'anna.berg@example.com',
        Subject: 'Condition of lot 12',
        Message: 'Is there any damage to the back of the mirror frame?',
        LotId: 412,
      },
      response: { Id: '3f2b8c1e-9d4a-4b6e-8a7f-1c2d3e4f5a6b' },
    },
  },
  input: {
    body: z
      .object({
        Name: z.string().trim().min(1).max(200),
        Email: z.email().max(320),
        Subject: z.string().trim().min(1).max(200),
        Message: holdsLines(z.string().trim().min(1).max(5000)),
        LotId: z.number().int().min(1).max(2147483647).nullable().optional(),
      })
      .openapi('ContactRequest'),
  },
  output: {
    response: z.object({ Id: z.string().max(36).openapi({ format: 'uuid', description: "The message's id." }) }).openapi('ContactReceipt'),
  },
  async handler({ body }, ctx) {
    const decision = await ctx.limiter.hit(`contact:${ctx.tenant.Tenant}@${ctx.ip}`, CONTACT_LIMIT.count, CONTACT_LIMIT.windowMs);
    if (!decision.allowed) throw new TooManyRequestsError('Too many messages; try again later.', decision.retryAfterSeconds);
    const lotId = body.LotId ?? null;
    if (lotId !== null && !(await lotExists(ctx.db, lotId))) throw new NotFoundError(`Lot ${lotId} does not exist.`);
    const messageId = randomUUID();
    await ctx.commands.run(contactStreamId(ctx.tenant.Tenant, messageId), contactDecider, {
      tenant: ctx.tenant.Tenant,
      messageId,
      name: body.Name,
      email: body.Email,
      subject: body.Subject,
      message: body.Message,
      lotId,
      memberId: ctx.claims.kind === 'member' ? Number(ctx.claims.sub) : null,
      at: ctx.now.toISOString(),
    });
    return { Id: messageId };
  },
});

export const contactCommandOperations = [sendContactMessage];
