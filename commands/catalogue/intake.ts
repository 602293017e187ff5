import { z } from 'zod';
import { foldStream, runCommand } from '../../src/command-runner.ts';
import { isoDateTime, positiveId, tenantId } from '../../src/events/define.ts';
import { ValidationError } from '../../src/errors.ts';
import { defineIntakeKind, lookUp, remember, type IntakeDeps, type IntakeKind } from '../../src/intake-kind.ts';
import { AuctionCatalogued, CategoryCatalogued, auctionStreamId, categoryStreamId } from './events.ts';
import { BidPlaced, LotCatalogued, lotStreamId } from '../lots/events.ts';
import { auctionDecider, lotDecider, recordDecider, type CategoryData } from './decide.ts';
import { costNameErrors, costRulesLookupKey, currentCostRules } from '../costs/rules.ts';

/**
 * Catalogue intake: the system-to-system interface the seed says is not /v1. One NDJSON record per line,
 * each with a `kind`; every record becomes a command on its stream, so the import appends events and
 * nothing else. Re-importing a record that did not change appends nothing. See docs/intake.md. These are the
 * catalogue's own kinds; other features bring theirs (commands/<feature>/intake.ts), and app/features/intake.ts
 * reads them all.
 */
export const auctionRecord = z.object({ kind: z.literal('auction') }).extend(AuctionCatalogued.schema.shape);
export const categoryRecord = z.object({ kind: z.literal('category') }).extend(CategoryCatalogued.schema.shape);
export const lotRecord = z
  .object({ kind: z.literal('lot') })
  .extend(LotCatalogued.schema.shape)
  .superRefine((lot, ctx) => {
    // A VAT-free lot is zero-rated (COSTS.md): another scheme would contradict it.
    if (lot.vatFree && lot.vatScheme !== undefined && lot.vatScheme !== 'zero')
      ctx.addIssue({ code: 'custom', path: ['vatScheme'], message: 'a vatFree lot is zero-rated: leave vatScheme out or give zero' });
    if (lot.importClass !== undefined && lot.import !== 'temporary-admission')
      ctx.addIssue({ code: 'custom', path: ['importClass'], message: 'only with import: temporary-admission' });
  });
// A house's bids name no auction (their lot's is the catalogue's): `auctionId` is timed bidding's own.
export const bidRecord = z.object({ kind: z.literal('bid') }).extend(BidPlaced.schema.omit({ auctionId: true }).shape);
export const lotClosedRecord = z.object({ kind: z.literal('lotClosed'), tenant: tenantId, lotId: positiveId, closedAt: isoDateTime });
export const liveRecord = z.object({
  kind: z.literal('live'),
  tenant: tenantId,
  auctionId: positiveId,
  isLive: z.boolean(),
  currentLotId: positiveId.nullable(),
  at: isoDateTime,
  startsAt: isoDateTime.nullable().optional(),
});
export type CatalogueRecord =
  | z.infer<typeof auctionRecord>
  | z.infer<typeof categoryRecord>
  | z.infer<typeof lotRecord>
  | z.infer<typeof bidRecord>
  | z.infer<typeof lotClosedRecord>
  | z.infer<typeof liveRecord>;

export const catalogueIntake: IntakeKind[] = [
  defineIntakeKind('auction', auctionRecord, async (deps, { kind: _k, ...data }) => {
    await checkCostNames(deps, data.tenant, { premiumSchedule: data.premiumSchedule, channelFees: data.channelFees });
    const result = await runCommand(
      deps.log,
      auctionStreamId(data.tenant, data.auctionId),
      auctionDecider,
      { type: 'CatalogueAuction', data },
      { correlationId: deps.correlationId },
    );
    remember(deps, auctionBiddingKey(data.tenant, data.auctionId), data.bidding ?? 'external');
    return result;
  }),
  defineIntakeKind('category', categoryRecord, (deps, { kind: _k, ...data }) =>
    runCommand(deps.log, categoryStreamId(data.tenant, data.categoryId), recordDecider<CategoryData>('CategoryCatalogued'), data, {
      correlationId: deps.correlationId,
    }),
  ),
  defineIntakeKind('lot', lotRecord, async (deps, { kind: _k, ...data }) => {
    await checkCostNames(deps, data.tenant, { premiumSchedule: data.premiumSchedule, shippingClass: data.shippingClass });
    const result = await runCommand(
      deps.log,
      lotStreamId(data.tenant, data.lotId),
      lotDecider,
      { type: 'CatalogueLot', data },
      { correlationId: deps.correlationId },
    );
    remember(deps, lotAuctionKey(data.tenant, data.lotId), data.auctionId);
    return result;
  }),
  defineIntakeKind('bid', bidRecord, async (deps, { kind: _k, ...data }) =>
    runCommand(
      deps.log,
      lotStreamId(data.tenant, data.lotId),
      lotDecider,
      { type: 'PlaceBid', ...data, auctionBidding: await auctionBiddingOf(deps, data.tenant, data.lotId) },
      { correlationId: deps.correlationId },
    ),
  ),
  defineIntakeKind('lotClosed', lotClosedRecord, (deps, { kind: _k, ...data }) =>
    runCommand(
      deps.log,
      lotStreamId(data.tenant, data.lotId),
      lotDecider,
      { type: 'CloseLot', ...data },
      { correlationId: deps.correlationId },
    ),
  ),
  defineIntakeKind('live', liveRecord, (deps, { kind: _k, ...data }) =>
    runCommand(
      deps.log,
      auctionStreamId(data.tenant, data.auctionId),
      auctionDecider,
      { type: 'ChangeLiveStatus', ...data },
      { correlationId: deps.correlationId },
    ),
  ),
];

/** The names a record gives of the house's cost rules must be the rules' own (read once per run, or known from its costRules record). */
async function checkCostNames(deps: IntakeDeps, tenant: string, names: Parameters<typeof costNameErrors>[1]) {
  if (Object.values(names).every((v) => v === undefined)) return;
  const rules = await lookUp(deps, costRulesLookupKey(tenant), () => currentCostRules(deps.log, tenant));
  const errors = costNameErrors(rules, names);
  if (errors.length)
    throw new ValidationError(
      errors.join('; '),
      errors.map((e) => ({ field: e.slice(0, e.indexOf(':')), message: e.slice(e.indexOf(':') + 2) })),
    );
}

const lotAuctionKey = (tenant: string, lotId: number) => `lot-auction ${tenant} ${lotId}`;
const auctionBiddingKey = (tenant: string, auctionId: number) => `auction-bidding ${tenant} ${auctionId}`;

/**
 * The bidding mode of a lot's auction (null: the lot is not catalogued), read from the lot's and the auction's
 * streams once per run, or known from the run's own `lot` and `auction` records: a timed auction's bids are the
 * service's own (commands/bidding), never intake's.
 */
async function auctionBiddingOf(deps: IntakeDeps, tenant: string, lotId: number): Promise<'external' | 'timed' | null> {
  const auctionId = await lookUp(
    deps,
    lotAuctionKey(tenant, lotId),
    async () => (await foldStream(deps.log, lotStreamId(tenant, lotId), lotDecider)).catalogued?.auctionId ?? null,
  );
  if (auctionId === null) return null;
  return lookUp(
    deps,
    auctionBiddingKey(tenant, auctionId),
    async () => (await foldStream(deps.log, auctionStreamId(tenant, auctionId), auctionDecider)).catalogued?.bidding ?? 'external',
  );
}
