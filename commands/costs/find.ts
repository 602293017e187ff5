// The cost estimate looked up from the read models (the lot, its auction, the house's rules, the member's profile):
// operation 64's answer and the one a bid gives (operation 58's CostEstimate).
import { ConflictError, NotFoundError, ValidationError } from '../../src/errors.ts';
import { fractionDigits } from '../../src/format.ts';
import type { TenantScope } from '../../src/ports/read-models.ts';
import { biddingSettings, catalogueAuctions, catalogueLots, type AuctionDoc, type LotDoc } from '../../projections/catalogue/index.ts';
import { houseCostRules, type CostRulesDoc } from '../../projections/costs/index.ts';
import { profileOf } from '../../projections/profile/index.ts';
import { DEFAULT_INCREMENTS, minimumNextBid } from '../bidding/rules.ts';
import { isCountryCode } from '../profile/rules.ts';
import type { Channel, CostRules } from './events.ts';
import { estimateCosts } from './rules.ts';
import { displayRateOf, lotCosts, toCostEstimateDto, type CostEstimateDto, type CostEstimateRequest } from './dto.ts';

/** The channel of an auction's bids: live while it is live, timed for a timed auction, else none. */
const auctionChannel = (auction: AuctionDoc | null): Channel | null =>
  auction?.IsLive ? 'live' : auction?.BiddingMode === 'timed' ? 'timed' : null;

/** The hammer price an estimate is for when none is asked: the lot's minimum next bid, else its starting price. */
async function defaultAmount(db: TenantScope, lot: LotDoc, nowIso: string): Promise<number> {
  if (lot.EndTime <= nowIso) return Math.max(1, lot.StartingPrice);
  const increments = (await biddingSettings(db))?.Increments ?? DEFAULT_INCREMENTS;
  return Math.max(1, minimumNextBid(increments, lot.StartingPrice, lot.CurrentBid));
}

/**
 * The estimate of a lot from the read models: 404 for a lot the house does not have, 409 `cost-rules-missing`
 * when the house published no rules, 400 `currency-unknown` for a `displayCurrency` the house gives no rate for.
 */
export async function costEstimateOf(db: TenantScope, request: CostEstimateRequest, nowIso: string): Promise<CostEstimateDto> {
  const [lot, rulesDoc] = await Promise.all([catalogueLots(db).findById(String(request.lotId)), houseCostRules(db)]);
  if (!lot) throw new NotFoundError(`Lot ${request.lotId} does not exist.`);
  const rules = publishedRules(rulesDoc);
  if (request.displayCurrency !== null && displayRateOf(rules, lot.Currency, request.displayCurrency) === null)
    throw new ValidationError(
      `The house publishes no display rate for ${request.displayCurrency}.`,
      [
        {
          field: 'query.displayCurrency',
          message: `no rate for ${request.displayCurrency}: one of ${[lot.Currency, ...Object.keys(rules.displayRates)].join(', ')}`,
        },
      ],
      { code: 'currency-unknown' },
    );
  const auction = await catalogueAuctions(db).findById(String(lot.AuctionId));
  const hammer = request.amount ?? (await defaultAmount(db, lot, nowIso));
  return estimateFrom({ lot, auction, rules }, request, hammer);
}

/** The house's published rules; 409 `cost-rules-missing` when there are none. */
function publishedRules(rulesDoc: CostRulesDoc | null): CostRules {
  if (!rulesDoc) throw new ConflictError('cost-rules-missing', 'The auction house has published no cost rules.');
  return { tenant: '', ...rulesDoc.Rules } as CostRules;
}

/** The estimate at `hammer`, from the lot, its auction and the rules already read. */
function estimateFrom(read: { lot: LotDoc; auction: AuctionDoc | null; rules: CostRules }, request: CostEstimateRequest, hammer: number) {
  const { lot, auction, rules } = read;
  const channel = request.channel ?? auctionChannel(auction);
  const estimate = estimateCosts({
    rules,
    lot: lotCosts(lot),
    auction: { premiumSchedule: auction?.PremiumSchedule ?? null, channelFees: auction?.ChannelFees ?? null },
    amount: hammer,
    currencyDigits: fractionDigits(lot.Currency),
    country: request.country,
    business: request.buyer.business,
    channel,
    houseCountry: request.houseCountry,
  });
  return toCostEstimateDto(estimate, { lot, rules, request, hammer, channel });
}

/**
 * Who a member is as a buyer, from their profile: the destination (the delivery country, else the country) and
 * whether a VAT number passed their VAT check. A `vatNumber` the caller gives that is not the checked one is taken
 * as given, reported in `Assumptions` (never checked inline).
 */
export async function memberBuyer(
  db: TenantScope,
  memberId: number,
  vatNumber: string | null,
): Promise<{ country: string | null; business: boolean; assumptions: string[] }> {
  const profile = await profileOf(db, memberId);
  const country = profile?.DeliveryCountry || profile?.Country || null;
  const check = profile?.LastVatCheck;
  const checked = check && check.Valid && profile?.VATNumber && check.VatNumber === profile.VATNumber ? profile.VATNumber : null;
  if (vatNumber === null || vatNumber === checked)
    return { country: country?.toUpperCase() ?? null, business: checked !== null, assumptions: [] };
  return { country: country?.toUpperCase() ?? null, business: true, assumptions: ['vat-number-not-verified'] };
}

/**
 * The estimate a bid answers (operation 58's `CostEstimate`): operation 64's for the bid's maximum, the `timed`
 * channel and the member's own country and VAT check; null when the house published no rules or the member's
 * profile names no country. Its reads go out with the bid's own (bidEstimateReads with the lot, then the lot and
 * auction the bid read): no look-up of its own after them.
 */
export function bidEstimateReads(db: TenantScope, memberId: number) {
  return { buyer: memberBuyer(db, memberId, null), rulesDoc: houseCostRules(db) };
}

export async function bidCostEstimate(
  reads: ReturnType<typeof bidEstimateReads>,
  bid: { lot: LotDoc; auction: AuctionDoc | null },
  o: { memberId: number; lotId: number; maxAmount: number; language: string; fallbackLanguage: string; houseCountry: string | null },
): Promise<CostEstimateDto | null> {
  const [buyer, rulesDoc] = await Promise.all([reads.buyer, reads.rulesDoc]);
  if (buyer.country === null || !isCountryCode(buyer.country) || !rulesDoc) return null;
  const request = { ...o, amount: o.maxAmount, country: buyer.country, buyer, channel: 'timed' as const, displayCurrency: null };
  return estimateFrom({ ...bid, rules: publishedRules(rulesDoc) }, request, o.maxAmount);
}
