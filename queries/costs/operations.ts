// The all-in cost estimate of a lot (`GET /v1/lots/{id}/cost-estimate`, COSTS.md operation 64), answered from the
// read models (the lot, its auction, the house's cost rules, a member's profile); declared once (defineOperation).
import { defineOperation } from '../../src/http/operation.ts';
import { idText, z } from '../../src/http/schemas.ts';
import { ValidationError, type FieldError, type ProblemCode } from '../../src/errors.ts';
import { CHANNELS, type Channel } from '../../commands/costs/events.ts';
import { costEstimateExample, costEstimateSchema, vatNumberFormat } from '../../commands/costs/dto.ts';
import { costEstimateOf, memberBuyer } from '../../commands/costs/find.ts';
import { isCountryCode, normaliseVatNumber } from '../../commands/profile/rules.ts';

/** The largest hammer price an estimate is worked out for, in minor units. */
const MAX_AMOUNT = 1_000_000_000_000;

const estimateQuery = z.object({
  amount: z
    .string()
    .max(100)
    .optional()
    .openapi({
      type: 'integer',
      minimum: 1,
      maximum: MAX_AMOUNT,
      description:
        "The hammer price in minor units of the lot's currency; by default the lot's `MinimumNextBid`, else its `StartingPrice`.",
    } as never),
  country: z
    .string()
    .max(100)
    .optional()
    .openapi({
      type: 'string',
      pattern: '^[A-Za-z]{2}$',
      maxLength: 2,
      description:
        "ISO 3166-1 alpha-2 destination (any case). Required unless a member token's profile names a country (the delivery country, else the country).",
    } as never),
  vatNumber: z
    .string()
    .max(100)
    .optional()
    .openapi({
      type: 'string',
      pattern: '^[A-Za-z0-9 .+*-]{4,40}$',
      maxLength: 40,
      description:
        "A buyer's VAT number (country prefix first): the buyer is then a business. Only its form is checked (never VIES inline), and `Assumptions` says `vat-number-not-verified`; a member's own number that passed the member's VAT check counts without being given.",
    } as never),
  channel: z
    .string()
    .max(100)
    .optional()
    .openapi({
      type: 'string',
      enum: [...CHANNELS],
      description:
        "The channel of the bid (whose fee applies): by default `live` while the lot's auction is live, `timed` for a timed auction, else none.",
    } as never),
  displayCurrency: z
    .string()
    .max(100)
    .optional()
    .openapi({
      type: 'string',
      pattern: '^[A-Za-z]{3}$',
      maxLength: 3,
      description: 'ISO 4217: `Display` converts `Total` to it at the rate the house published, for display only.',
    } as never),
});

type Query = z.infer<typeof estimateQuery>;
interface Checked {
  amount: number | null;
  country: string | null;
  vatNumber: string | null;
  channel: Channel | null;
  displayCurrency: string | null;
}

/** The query's values, checked: a 400 naming each bad one, with the code of the first (in the order of the table). */
function checked(query: Query): Checked {
  const errors: Array<FieldError & { code: ProblemCode }> = [];
  const bad = (field: string, message: string, code: ProblemCode) => errors.push({ field: `query.${field}`, message, code });
  const amount = query.amount === undefined ? null : /^\d{1,13}$/.test(query.amount) ? Number(query.amount) : NaN;
  if (amount !== null && !(amount >= 1 && amount <= MAX_AMOUNT))
    bad('amount', `a positive integer of minor units, at most ${MAX_AMOUNT}`, 'amount-invalid');
  const country = query.country?.toUpperCase() ?? null;
  if (country !== null && !isCountryCode(country)) bad('country', 'not an ISO 3166-1 alpha-2 country', 'country-unknown');
  const vatNumber = query.vatNumber === undefined ? null : normaliseVatNumber(query.vatNumber);
  if (query.vatNumber !== undefined && (vatNumber === null || !vatNumberFormat.test(vatNumber)))
    bad('vatNumber', 'a country prefix, then 2 to 13 letters or digits', 'vat-number-invalid');
  const channel = query.channel?.toLowerCase() ?? null;
  if (channel !== null && !(CHANNELS as readonly string[]).includes(channel)) bad('channel', 'live or timed', 'channel-unknown');
  const displayCurrency = query.displayCurrency?.toUpperCase() ?? null;
  if (displayCurrency !== null && !/^[A-Z]{3}$/.test(displayCurrency)) bad('displayCurrency', 'an ISO 4217 code', 'currency-unknown');
  if (errors.length)
    throw new ValidationError(
      'The request has invalid values.',
      errors.map(({ field, message }) => ({ field, message })),
      { code: errors[0].code },
    );
  return { amount, country, vatNumber, channel: channel as Channel | null, displayCurrency };
}

export const getCostEstimate = defineOperation({
  route: { number: 64, operationId: 'getCostEstimate', group: 'Lots', method: 'get', path: '/v1/lots/{id}/cost-estimate', auth: 'anon' },
  docs: {
    summary: 'What winning the lot costs, all in',
    description:
      "The all-in cost of a hammer price delivered to a country, under the house's cost rules (COSTS.md): every line with its VAT treatment (`none`, `included`, `separate`, `zero` on a condition), " +
      'ranges (`TotalRange`), what a failed condition costs (`TotalIfConditionsUnmet`), and what it leaves out (`NotIncluded`). ' +
      "Amounts are minor units of the lot's currency, rates parts per million, each line rounded half up once. " +
      "A member token fills `country` and the buyer's VAT status from the profile. An answer to a caller without a member token may be kept a minute (`Cache-Control: max-age=60`). " +
      'The house must have published cost rules (`409` `cost-rules-missing`).',
    errors: [404, 409],
    problems: [
      'amount-invalid',
      'country-unknown',
      'country-required',
      'vat-number-invalid',
      'channel-unknown',
      'currency-unknown',
      'cost-rules-missing',
      'session-ended',
    ],
    examples: { response: costEstimateExample },
  },
  input: { params: z.object({ id: idText('The lot id.') }), query: estimateQuery },
  output: { response: costEstimateSchema },
  anonymousMaxAge: 60,
  async handler({ params, query }, ctx) {
    const values = checked(query);
    const member = ctx.claims.kind === 'member' ? await ctx.auth.requireMember(ctx.claims).then(() => Number(ctx.claims.sub)) : null;
    const buyer =
      member !== null
        ? await memberBuyer(ctx.db, member, values.vatNumber)
        : { country: null, business: values.vatNumber !== null, assumptions: values.vatNumber !== null ? ['vat-number-not-verified'] : [] };
    const country = values.country ?? (buyer.country !== null && isCountryCode(buyer.country) ? buyer.country : null);
    if (country === null)
      throw new ValidationError('The destination country is needed.', [{ field: 'query.country', message: 'is required' }], {
        code: 'country-required',
      });
    return costEstimateOf(
      ctx.db,
      {
        lotId: params.id,
        amount: values.amount,
        country,
        buyer,
        channel: values.channel,
        displayCurrency: values.displayCurrency,
        language: ctx.language,
        fallbackLanguage: ctx.tenant.DefaultLanguage,
        houseCountry: ctx.tenant.Country ?? null,
      },
      ctx.now.toISOString(),
    );
  },
});

export const costsQueryOperations = [getCostEstimate];
