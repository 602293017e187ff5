import type { Doc, TenantScope } from '../../src/ports/read-models.ts';
import { NotFoundError } from '../../src/errors.ts';
import type { VatScheme } from '../../commands/costs/events.ts';

/** Read-model documents of the catalogue (stored shape; the query side maps them to DTOs). */
export type Texts = Record<string, { Title: string; Description: string }>;

export interface AuctionDoc extends Doc {
  Id: number;
  /** False while only lots have referred to it (a placeholder keeping LotCount); hidden from queries. */
  Catalogued: boolean;
  AuctionType: number;
  Texts: Texts;
  StartTime: string;
  EndTime: string;
  Currency: string;
  RequiresTermsAcceptance: boolean;
  /** `manual`: the house approves registrations by hand (they stay pending); `automatic`: approved at once. */
  RegistrationApproval: 'automatic' | 'manual';
  IsLive: boolean;
  CurrentLotId: number | null;
  /** When the live sale is scheduled to start (LiveStatusChanged.startsAt), if the house said so. */
  LiveStartsAt: string | null;
  /** `timed`: this service takes the bids (API.md "Timed bidding"); `external`: they come through intake. */
  BiddingMode?: 'external' | 'timed';
  /** The house's premium schedule for its lots, and the codes of the house's channel fees that apply to it (absent: the house's). */
  PremiumSchedule?: string | null;
  ChannelFees?: Array<'live' | 'timed'> | null;
  LotCount: number;
  /**
   * Position of the last change to what the printed catalogue shows: the auction's record or one of its
   * lots' records. Generated catalogue files are kept per version.
   */
  CatalogueVersion: number;
  /** Position of the last change to any of its lots (records, bids, closes): the spreadsheet export's version. */
  LotsVersion: number;
  Created: string;
}

/** One document per tenant (`_id` = AUCTION_TYPES_ID): every auction's type, read in one lookup. */
export interface AuctionTypesDoc extends Doc {
  Types: Record<string, number>;
  /** The auctions in `timed` mode (the others are `external`). */
  Timed?: Record<string, true>;
}

/** The tenant's bidding settings (one document, `_id` = BIDDING_SETTINGS_ID, in AUCTION_TYPES): from its TenantConfigured. */
export interface BiddingSettingsDoc extends Doc {
  Increments: Array<{ from: number; increment: number }> | null;
  ExtensionWindowSeconds: number | null;
}
export const BIDDING_SETTINGS_ID = 'bidding-settings';
export const AUCTION_TYPES = 'auction_types';
export const AUCTION_TYPES_ID = 'all';

export interface CategoryDoc extends Doc {
  Id: number;
  Catalogued: boolean;
  ParentId: number | null;
  Names: Record<string, string>;
  SortOrder: number;
  LotCount: number;
}

export interface LotDoc extends Doc {
  Id: number;
  AuctionId: number;
  LotNumber: number;
  CategoryId: number | null;
  Texts: Texts;
  /** Lower-cased, accent-folded titles per language, for sorting by Title. */
  SortTitle: Record<string, string>;
  /** Title and description per language, folded (src/text/fold.ts): SearchTerms matches words in these. */
  SearchText: Record<string, string>;
  Attributes: Array<{ Name: string; Labels: Record<string, string>; Values: Record<string, string> }>;
  /** Attribute values by lower-cased name and language, lower-cased: MetaDataProperties filters on these. */
  Meta: Record<string, Record<string, string>>;
  Images: string[];
  HotLot: boolean;
  VatFree: boolean;
  Currency: string;
  StartingPrice: number;
  EstimateLow: number | null;
  EstimateHigh: number | null;
  /** RFC 3339 with milliseconds, so strings compare as times. A lot is closed once EndTime has passed. */
  EndTime: string;
  /** Bidding ended early (LotClosed); EndTime was moved to the closing time. */
  Closed: boolean;
  CurrentBid: number | null;
  BidCount: number;
  /** Its end time was moved by a bid (soft close): a catalogue record again does not move it back. */
  Extended?: boolean;
  /** The reserve price of a timed lot: read-side only, never answered (ReserveMet is). */
  Reserve?: number | null;
  CombiId: number | null;
  OwnerId: number | null;
  /** Its VAT scheme (COSTS.md; absent on documents projected before: `margin`, or `zero` when VatFree). */
  VatScheme?: VatScheme;
  /** What else its record says of its costs (read by the cost estimate only; absent: none of them). */
  Costs?: LotCostsDoc;
  /** Position of the lot's last catalogue record (LotCatalogued): generated lot documents are kept per version. */
  Version: number;
  Created: string;
}

/** A lot's cost fields as its record gives them (null: not given). */
export interface LotCostsDoc {
  Import: 'none' | 'temporary-admission' | null;
  ImportClass: 'art' | 'other' | null;
  ResaleRight: boolean | null;
  ShippingClass: string | null;
  PremiumSchedule: string | null;
}

/** The catalogue projection's name (its checkpoint is what a reactor reading these collections waits for). */
export const CATALOGUE_PROJECTION = 'catalogue';

/** The catalogue's collections, and the typed accessors queries use. */
export const AUCTIONS = 'auctions';
export const CATEGORIES = 'categories';
export const LOTS = 'lots';
export const catalogueAuctions = (db: TenantScope) => db.collection<AuctionDoc>(AUCTIONS);
export const catalogueCategories = (db: TenantScope) => db.collection<CategoryDoc>(CATEGORIES);
export const catalogueLots = (db: TenantScope) => db.collection<LotDoc>(LOTS);

/** The auction if it is catalogued in the caller's tenant; 404 otherwise (another tenant's id included). */
export async function findAuction(db: TenantScope, id: number) {
  const doc = await catalogueAuctions(db).findById(String(id));
  if (!doc || !doc.Catalogued) throw new NotFoundError(`Auction ${id} does not exist.`);
  return doc;
}

/** An auction's status at an instant: upcoming before StartTime, current until EndTime, closed after. */
export const AUCTION_STATUSES = ['upcoming', 'current', 'closed'] as const;
export function auctionStatus(doc: AuctionDoc, nowIso: string): (typeof AUCTION_STATUSES)[number] {
  if (doc.StartTime > nowIso) return 'upcoming';
  return doc.EndTime > nowIso ? 'current' : 'closed';
}

/**
 * Whether the lot is catalogued in the tenant: a count by id (SQLite reads the index, not the document; PostgreSQL
 * sends it with the other look-ups by id of the moment).
 */
export const lotExists = async (db: TenantScope, lotId: number) => (await catalogueLots(db).countDocuments({ _id: String(lotId) })) > 0;

export const isoMs = (time: string) => new Date(time).toISOString();

/** The ids of the tenant's auctions in `timed` mode (one lookup): the lots timed bidding closes at their end time. */
export async function timedAuctionIds(db: TenantScope): Promise<ReadonlySet<number>> {
  const doc = await db.collection<AuctionTypesDoc>(AUCTION_TYPES).findById(AUCTION_TYPES_ID);
  return new Set(Object.keys(doc?.Timed ?? {}).map(Number));
}

/** The tenant's increment table and extension window, as configured (null: the defaults). */
export const biddingSettings = (db: TenantScope) => db.collection<BiddingSettingsDoc>(AUCTION_TYPES).findById(BIDDING_SETTINGS_ID);
