import { defineDocumentProjection, type UnitOfWork } from '../../src/projector/projection.ts';
import { catalogueEvents, type CatalogueEvent } from '../../commands/catalogue/events.ts';
import { lotEvents, type LotEvent } from '../../commands/lots/events.ts';
import { accessEvents, type AccessEvent } from '../../commands/access/events.ts';
import type { Recorded } from '../../src/events/define.ts';
import {
  AUCTION_TYPES,
  AUCTION_TYPES_ID,
  BIDDING_SETTINGS_ID,
  CATALOGUE_PROJECTION,
  isoMs,
  type BiddingSettingsDoc,
  type AuctionDoc,
  type AuctionTypesDoc,
  type CategoryDoc,
  type LotCostsDoc,
  type LotDoc,
  type Texts,
} from './collections.ts';
import { foldText } from '../../src/text/fold.ts';

const auctionPlaceholder = (id: number): Omit<AuctionDoc, '_id'> => ({
  Id: id,
  Catalogued: false,
  AuctionType: 0,
  Texts: {},
  StartTime: '',
  EndTime: '',
  Currency: '',
  RequiresTermsAcceptance: false,
  RegistrationApproval: 'automatic',
  IsLive: false,
  CurrentLotId: null,
  LiveStartsAt: null,
  LotCount: 0,
  CatalogueVersion: 0,
  LotsVersion: 0,
  Created: '',
});
const categoryPlaceholder = (id: number): Omit<CategoryDoc, '_id'> => ({
  Id: id,
  Catalogued: false,
  ParentId: null,
  Names: {},
  SortOrder: 0,
  LotCount: 0,
});

const toTexts = (texts: Record<string, { title: string; description: string }>): Texts =>
  Object.fromEntries(Object.entries(texts).map(([lang, t]) => [lang, { Title: t.title, Description: t.description }]));

// Documents are changed in place where an event changes a few fields of them (UnitOfWork.update): a bid
// must not copy its lot and auction, a rebuild applies a million of them.

async function addToCount(uow: UnitOfWork, collection: 'categories', tenant: string, id: number | null, delta: number) {
  if (id === null || delta === 0) return;
  await uow.update<CategoryDoc>(collection, tenant, String(id), (doc) => {
    const base = doc ?? ({ _id: String(id), ...categoryPlaceholder(id) } as CategoryDoc);
    base.LotCount = Math.max(0, (base.LotCount as number) + delta);
    return base;
  });
}

/** Moves the LotsVersion of a lot's auction (a bid or a close changed one of its lots). */
async function lotsChanged(uow: UnitOfWork, tenant: string, lotId: number, position: number) {
  const lot = await uow.get<LotDoc>('lots', tenant, String(lotId));
  if (!lot) return;
  await uow.update<AuctionDoc>('auctions', tenant, String(lot.AuctionId), (doc) => {
    const auction = doc ?? ({ _id: String(lot.AuctionId), ...auctionPlaceholder(lot.AuctionId) } as AuctionDoc);
    auction.LotsVersion = position;
    return auction;
  });
}

/** An auction's document less the cost fields its record gives (a new record says them again, or not). */
function withoutCostFields<T extends Partial<AuctionDoc>>(doc: T): Omit<T, 'PremiumSchedule' | 'ChannelFees'> {
  const { PremiumSchedule: _schedule, ChannelFees: _fees, ...rest } = doc;
  return rest;
}

/** A lot's cost fields, kept only when its record gives any (most lots' documents stay as they were). */
function lotCosts(d: {
  import?: LotCostsDoc['Import'];
  importClass?: LotCostsDoc['ImportClass'];
  resaleRight?: boolean;
  shippingClass?: string;
  premiumSchedule?: string;
}): { Costs?: LotCostsDoc } {
  const given = [d.import, d.importClass, d.resaleRight, d.shippingClass, d.premiumSchedule].some((v) => v !== undefined);
  if (!given) return {};
  return {
    Costs: {
      Import: d.import ?? null,
      ImportClass: d.importClass ?? null,
      ResaleRight: d.resaleRight ?? null,
      ShippingClass: d.shippingClass ?? null,
      PremiumSchedule: d.premiumSchedule ?? null,
    },
  };
}

/** Auctions, categories and lots, with lot counts kept per auction and category. */
export const catalogueProjection = defineDocumentProjection({
  name: CATALOGUE_PROJECTION,
  // A lot's documents change with each of its bids: kept between live batches instead of read back each time.
  keepDocuments: 2_000,
  events: [catalogueEvents, lotEvents, accessEvents],
  handles: [
    'AuctionCatalogued',
    'LiveStatusChanged',
    'CategoryCatalogued',
    'LotCatalogued',
    'LotClosed',
    'BidPlaced',
    'LotEndTimeExtended',
    'TenantConfigured',
  ],
  collections: [
    { name: 'auctions', indexes: [{ fields: ['StartTime'] }, { fields: ['EndTime'] }] },
    { name: AUCTION_TYPES },
    { name: 'categories', indexes: [{ fields: ['ParentId'] }] },
    {
      name: 'lots',
      indexes: [
        { fields: ['AuctionId', 'LotNumber'] },
        { fields: ['AuctionId', 'EndTime'] },
        { fields: ['LotNumber'] },
        { fields: ['EndTime'] },
        { fields: ['CategoryId', 'LotNumber'] },
        { fields: ['CombiId'] },
        { fields: ['OwnerId'] },
      ],
      // The reserve price (LotCatalogued's private field): lots answer ReserveMet alone.
      private: ['Reserve'],
    },
  ],
  async apply(event, uow) {
    switch (event.type) {
      case 'AuctionCatalogued':
        return auctionCatalogued(event, uow);
      case 'LiveStatusChanged':
        return liveStatusChanged(event, uow);
      case 'CategoryCatalogued':
        return categoryCatalogued(event, uow);
      case 'LotCatalogued':
        return lotCatalogued(event, uow);
      case 'LotClosed':
        return lotClosed(event, uow);
      case 'LotEndTimeExtended':
        return lotEndTimeExtended(event, uow);
      case 'TenantConfigured':
        return tenantConfigured(event, uow);
      case 'BidPlaced':
        return bidPlaced(event, uow);
    }
  },
});

/** The events this projection reads, each with where the log holds it. */
type Read = Recorded<CatalogueEvent | LotEvent | AccessEvent>;
type Of<T extends Read['type']> = Extract<Read, { type: T }>;

async function auctionCatalogued(event: Of<'AuctionCatalogued'>, uow: UnitOfWork) {
  const d = event.data;
  await uow.update<AuctionDoc>('auctions', d.tenant, String(d.auctionId), (doc) => ({
    // The record is whole: cost fields it leaves out are gone.
    ...withoutCostFields(doc ?? auctionPlaceholder(d.auctionId)),
    Catalogued: true,
    AuctionType: d.auctionType,
    Texts: toTexts(d.texts),
    StartTime: isoMs(d.startTime),
    EndTime: isoMs(d.endTime),
    Currency: d.currency,
    RequiresTermsAcceptance: d.requiresTermsAcceptance,
    RegistrationApproval: d.registrationApproval ?? 'automatic',
    BiddingMode: d.bidding ?? 'external',
    ...(d.premiumSchedule !== undefined ? { PremiumSchedule: d.premiumSchedule } : {}),
    ...(d.channelFees !== undefined ? { ChannelFees: d.channelFees } : {}),
    CatalogueVersion: event.position,
    LotsVersion: event.position,
    Created: doc?.Created || event.created,
  }));
  await uow.update<AuctionTypesDoc>(AUCTION_TYPES, d.tenant, AUCTION_TYPES_ID, (doc) => {
    const timed = { ...(doc?.Timed ?? {}) };
    if (d.bidding === 'timed') timed[String(d.auctionId)] = true;
    else delete timed[String(d.auctionId)];
    const types = { ...(doc?.Types ?? {}), [String(d.auctionId)]: d.auctionType };
    return Object.keys(timed).length > 0 ? { Types: types, Timed: timed } : { Types: types };
  });
}

async function liveStatusChanged({ data: d }: Of<'LiveStatusChanged'>, uow: UnitOfWork) {
  await uow.update<AuctionDoc>('auctions', d.tenant, String(d.auctionId), (doc) => ({
    ...(doc ?? auctionPlaceholder(d.auctionId)),
    IsLive: d.isLive,
    CurrentLotId: d.currentLotId,
    LiveStartsAt: d.startsAt === undefined ? (doc?.LiveStartsAt ?? null) : d.startsAt,
  }));
}

async function categoryCatalogued({ data: d }: Of<'CategoryCatalogued'>, uow: UnitOfWork) {
  await uow.update<CategoryDoc>('categories', d.tenant, String(d.categoryId), (doc) => ({
    ...(doc ?? categoryPlaceholder(d.categoryId)),
    Catalogued: true,
    ParentId: d.parentId,
    Names: d.names,
    SortOrder: d.sortOrder,
  }));
}

async function lotCatalogued(event: Of<'LotCatalogued'>, uow: UnitOfWork) {
  const d = event.data;
  const old = await uow.get<LotDoc>('lots', d.tenant, String(d.lotId));
  if (old && old._pos !== undefined && (old._pos as number) >= event.position) return;
  await countLot(event, old, uow);
  await uow.update<LotDoc>('lots', d.tenant, String(d.lotId), () => lotDocOf(event, old));
}

/**
 * Lot counts follow the lot, and the printed catalogue of its auction (and of one it left) changes with it: one
 * write per auction, since a document takes one write per event.
 */
async function countLot(event: Of<'LotCatalogued'>, old: LotDoc | null, uow: UnitOfWork) {
  const d = event.data;
  const auctionDeltas = new Map<number, number>([[d.auctionId, !old || old.AuctionId !== d.auctionId ? 1 : 0]]);
  if (old && old.AuctionId !== d.auctionId) auctionDeltas.set(old.AuctionId, -1);
  for (const [auctionId, delta] of auctionDeltas)
    await uow.update<AuctionDoc>('auctions', d.tenant, String(auctionId), (doc) => {
      const base = doc ?? auctionPlaceholder(auctionId);
      return {
        ...base,
        LotCount: Math.max(0, (base.LotCount as number) + delta),
        CatalogueVersion: event.position,
        LotsVersion: event.position,
      };
    });
  await addToCount(uow, 'categories', d.tenant, old?.CategoryId ?? null, old && old.CategoryId !== d.categoryId ? -1 : 0);
  await addToCount(uow, 'categories', d.tenant, d.categoryId, !old || old.CategoryId !== d.categoryId ? 1 : 0);
}

/** A lot's document from its catalogue record, keeping what bids and closing made of the one before. */
function lotDocOf(event: Of<'LotCatalogued'>, old: LotDoc | null): Omit<LotDoc, '_id'> {
  const d = event.data;
  const texts = toTexts(d.texts);
  return {
    Id: d.lotId,
    AuctionId: d.auctionId,
    LotNumber: d.lotNumber,
    CategoryId: d.categoryId,
    Texts: texts,
    SortTitle: Object.fromEntries(Object.entries(texts).map(([lang, t]) => [lang, foldText(t.Title)])),
    SearchText: Object.fromEntries(Object.entries(texts).map(([lang, t]) => [lang, foldText(`${t.Title}\n${t.Description}`)])),
    Attributes: d.attributes.map((a) => ({ Name: a.name, Labels: a.labels, Values: a.values })),
    Meta: Object.fromEntries(
      d.attributes.map((a) => [a.name.toLowerCase(), Object.fromEntries(Object.entries(a.values).map(([lang, v]) => [lang, foldText(v)]))]),
    ),
    Images: d.images,
    HotLot: d.hotLot,
    VatFree: d.vatFree,
    Currency: d.currency,
    StartingPrice: d.startingPrice,
    EstimateLow: d.estimateLow,
    EstimateHigh: d.estimateHigh,
    // A lot closed early keeps its closing time when the catalogue record comes again; one extended by bids
    // (soft close) keeps its later end time.
    EndTime:
      old?.Closed && old.EndTime < isoMs(d.endTime)
        ? old.EndTime
        : old?.Extended && old.EndTime > isoMs(d.endTime)
          ? old.EndTime
          : isoMs(d.endTime),
    Extended: old?.Extended ?? false,
    Closed: old?.Closed ?? false,
    CurrentBid: old?.CurrentBid ?? null,
    BidCount: old?.BidCount ?? 0,
    Reserve: d.reservePrice ?? null,
    CombiId: d.combiId,
    OwnerId: d.ownerId,
    VatScheme: d.vatScheme ?? (d.vatFree ? 'zero' : 'margin'),
    ...lotCosts(d),
    Version: event.position,
    Created: old?.Created ?? event.created,
  };
}

async function lotClosed(event: Of<'LotClosed'>, uow: UnitOfWork) {
  const d = event.data;
  await uow.update<LotDoc>('lots', d.tenant, String(d.lotId), (doc) => {
    if (!doc) return null;
    doc.Closed = true;
    if (doc.EndTime >= isoMs(d.closedAt)) doc.EndTime = isoMs(d.closedAt);
    return doc;
  });
  await lotsChanged(uow, d.tenant, d.lotId, event.position);
}

async function lotEndTimeExtended(event: Of<'LotEndTimeExtended'>, uow: UnitOfWork) {
  const d = event.data;
  await uow.update<LotDoc>('lots', d.tenant, String(d.lotId), (doc) => {
    if (!doc) return null;
    doc.EndTime = isoMs(d.endTime);
    doc.Extended = true;
    return doc;
  });
  await lotsChanged(uow, d.tenant, d.lotId, event.position);
}

async function tenantConfigured({ data: d }: Of<'TenantConfigured'>, uow: UnitOfWork) {
  await uow.update<BiddingSettingsDoc>(AUCTION_TYPES, d.tenant, BIDDING_SETTINGS_ID, () => ({
    Increments: d.increments ?? null,
    ExtensionWindowSeconds: d.extensionWindowSeconds ?? null,
  }));
}

async function bidPlaced(event: Of<'BidPlaced'>, uow: UnitOfWork) {
  const d = event.data;
  await uow.update<LotDoc>('lots', d.tenant, String(d.lotId), (doc) => {
    if (!doc) return null;
    doc.CurrentBid = Math.max(doc.CurrentBid ?? 0, d.amount);
    doc.BidCount += 1;
    return doc;
  });
  await lotsChanged(uow, d.tenant, d.lotId, event.position);
}
