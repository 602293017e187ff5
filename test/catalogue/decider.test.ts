import { auctionDecider, lotDecider, type LotData } from '../../commands/catalogue/decide.ts';
import { accessRecordDecider, type TenantData } from '../../commands/access/decide.ts';
import { memberDecider } from '../../commands/members/decide.ts';
import { ConflictError, NotFoundError } from '../../src/errors.ts';
import { spec } from '../support/decider.ts';

const at = '2026-11-22T10:00:00.000Z';
const lot: LotData = {
  tenant: 'demo',
  lotId: 7,
  auctionId: 1,
  lotNumber: 7,
  categoryId: 2,
  texts: { en: { title: 'Oak chair', description: 'A chair.' } },
  attributes: [{ name: 'Material', labels: { en: 'Material' }, values: { en: 'oak' } }],
  images: [],
  hotLot: false,
  vatFree: false,
  currency: 'EUR',
  startingPrice: 1000,
  estimateLow: 2000,
  estimateHigh: 3000,
  endTime: at,
  combiId: null,
  ownerId: null,
};

describe('catalogue intake deciders', () => {
  it('catalogues a new lot', () => {
    spec(lotDecider)
      .given([])
      .when({ type: 'CatalogueLot', data: lot })
      .then([{ type: 'LotCatalogued', data: lot }]);
  });

  it('appends nothing when the same lot record comes again (an import is idempotent)', () => {
    spec(lotDecider)
      .given([{ type: 'LotCatalogued', data: lot }])
      .when({ type: 'CatalogueLot', data: { ...lot } })
      .thenNothingHappened();
  });

  it('appends the whole record again when a lot changed', () => {
    const changed = { ...lot, startingPrice: 1500 };
    spec(lotDecider)
      .given([{ type: 'LotCatalogued', data: lot }])
      .when({ type: 'CatalogueLot', data: changed })
      .then([{ type: 'LotCatalogued', data: changed }]);
  });

  it('places a bid once per bid id, and never on an unknown lot nor on a lot of a timed auction', () => {
    const bid = { tenant: 'demo', lotId: 7, bidId: 'b1', amount: 1200, bidType: 'online' as const, placedAt: at };
    const external = { ...bid, auctionBidding: 'external' as const };
    spec(lotDecider)
      .given([{ type: 'LotCatalogued', data: lot }])
      .when({ type: 'PlaceBid', ...external })
      .then([{ type: 'BidPlaced', data: bid }]);
    spec(lotDecider)
      .given([
        { type: 'LotCatalogued', data: lot },
        { type: 'BidPlaced', data: bid },
      ])
      .when({ type: 'PlaceBid', ...external })
      .thenNothingHappened();
    spec(lotDecider)
      .given([])
      .when({ type: 'PlaceBid', ...bid, auctionBidding: null })
      .thenThrows(NotFoundError);
    // A timed auction's bids are decided by the service (commands/bidding): intake's would bypass its rules.
    spec(lotDecider)
      .given([{ type: 'LotCatalogued', data: lot }])
      .when({ type: 'PlaceBid', ...bid, auctionBidding: 'timed' })
      .thenThrows(ConflictError);
  });

  it('closes a lot once', () => {
    const close = { tenant: 'demo', lotId: 7, closedAt: at };
    spec(lotDecider)
      .given([{ type: 'LotCatalogued', data: lot }])
      .when({ type: 'CloseLot', ...close })
      .then([{ type: 'LotClosed', data: close }]);
    spec(lotDecider)
      .given([
        { type: 'LotCatalogued', data: lot },
        { type: 'LotClosed', data: close },
      ])
      .when({ type: 'CloseLot', ...close })
      .thenNothingHappened();
  });

  it('changes live status only when it differs, and clears the current lot when the sale stops', () => {
    const auction = {
      tenant: 'demo',
      auctionId: 2,
      auctionType: 2,
      texts: { en: { title: 'Live', description: '' } },
      startTime: at,
      endTime: at,
      currency: 'EUR',
      requiresTermsAcceptance: true,
    };
    const live = { type: 'ChangeLiveStatus' as const, tenant: 'demo', auctionId: 2, isLive: true, currentLotId: 12, at };
    spec(auctionDecider)
      .given([{ type: 'AuctionCatalogued', data: auction }])
      .when(live)
      .then([{ type: 'LiveStatusChanged', data: { tenant: 'demo', auctionId: 2, isLive: true, currentLotId: 12, at, startsAt: null } }]);
    spec(auctionDecider)
      .given([
        { type: 'AuctionCatalogued', data: auction },
        { type: 'LiveStatusChanged', data: { tenant: 'demo', auctionId: 2, isLive: true, currentLotId: 12, at } },
      ])
      .when({ ...live, isLive: false, currentLotId: 12 })
      .then([{ type: 'LiveStatusChanged', data: { tenant: 'demo', auctionId: 2, isLive: false, currentLotId: null, at, startsAt: null } }]);
    spec(auctionDecider).given([]).when(live).thenThrows(NotFoundError);
  });

  it('keeps the scheduled start of a live sale until a record names another one', () => {
    const auction = {
      tenant: 'demo',
      auctionId: 2,
      auctionType: 2,
      texts: { en: { title: 'Live', description: '' } },
      startTime: at,
      endTime: at,
      currency: 'EUR',
      requiresTermsAcceptance: true,
    };
    const startsAt = '2026-11-23T18:00:00.000Z';
    const scheduled = { tenant: 'demo', auctionId: 2, isLive: false, currentLotId: null, at, startsAt };
    spec(auctionDecider)
      .given([{ type: 'AuctionCatalogued', data: auction }])
      .when({ type: 'ChangeLiveStatus', ...scheduled })
      .then([{ type: 'LiveStatusChanged', data: scheduled }]);
    spec(auctionDecider)
      .given([
        { type: 'AuctionCatalogued', data: auction },
        { type: 'LiveStatusChanged', data: scheduled },
      ])
      .when({ type: 'ChangeLiveStatus', tenant: 'demo', auctionId: 2, isLive: true, currentLotId: 5, at })
      .then([{ type: 'LiveStatusChanged', data: { tenant: 'demo', auctionId: 2, isLive: true, currentLotId: 5, at, startsAt } }]);
    spec(auctionDecider)
      .given([
        { type: 'AuctionCatalogued', data: auction },
        { type: 'LiveStatusChanged', data: scheduled },
      ])
      .when({ type: 'ChangeLiveStatus', ...scheduled, at: '2026-11-22T11:00:00.000Z' })
      .thenNothingHappened();
  });

  it('configures a tenant once per change', () => {
    const tenant: TenantData = {
      tenant: 'demo',
      name: 'Demo',
      languages: ['en'],
      defaultLanguage: 'en',
      currency: 'EUR',
      pageSize: 20,
      publicAccess: true,
      contactEmail: 'a@b.se',
    };
    const decider = accessRecordDecider<TenantData>('TenantConfigured');
    spec(decider)
      .given([])
      .when(tenant)
      .then([{ type: 'TenantConfigured', data: tenant }]);
    spec(decider)
      .given([{ type: 'TenantConfigured', data: tenant }])
      .when(tenant)
      .thenNothingHappened();
  });
});

describe('member intake decider', () => {
  const signUp = {
    tenant: 'demo',
    memberId: 3,
    uid: '0b7c7f52-4d5e-4a43-9f2c-3e9a5b1c2d3e',
    email: 'x@example.com',
    passwordHash: 'scrypt$1$1$1$a$b',
    firstName: 'X',
    lastName: 'Y',
    language: 'en',
    phone: '',
    signedUpAt: at,
  };

  it('signs up, confirms and grants roles to a new member', () => {
    spec(memberDecider)
      .given([])
      .when({ type: 'ImportMember', signUp, confirmed: true, roles: ['bidder'], at })
      .then([
        { type: 'MemberSignedUp', data: signUp },
        { type: 'MemberEmailConfirmed', data: { tenant: 'demo', memberId: 3, at } },
        { type: 'MemberRoleGranted', data: { tenant: 'demo', memberId: 3, role: 'bidder', at } },
      ]);
  });

  it('appends nothing for a member imported again, and never revives a removed one', () => {
    const history = [
      { type: 'MemberSignedUp' as const, data: signUp },
      { type: 'MemberEmailConfirmed' as const, data: { tenant: 'demo', memberId: 3, at } },
      { type: 'MemberRoleGranted' as const, data: { tenant: 'demo', memberId: 3, role: 'bidder' as const, at } },
    ];
    spec(memberDecider)
      .given(history)
      .when({ type: 'ImportMember', signUp, confirmed: true, roles: ['bidder'], at })
      .thenNothingHappened();
    spec(memberDecider)
      .given([...history, { type: 'MemberRemoved', data: { tenant: 'demo', memberId: 3, at } }])
      .when({ type: 'ImportMember', signUp, confirmed: true, roles: ['bidder', 'consigner'], at })
      .thenNothingHappened();
  });
});
