import fs from 'node:fs';
import { expect } from 'chai';
import { currentRouteMap } from '../../app/route-map/index.ts';

describe('the route map (docs/routes.md)', function () {
  // It type-checks the project to follow each handler's names: tens of seconds on a busy machine.
  this.timeout(180_000);
  let map: string;
  before(() => {
    map = currentRouteMap();
  });
  const row = (route: string) => map.split('\n').find((line) => line.startsWith(`| \`${route}\` |`)) ?? '';

  it('is current: docs/routes.md is what the sources say (run `npm run docs:routes` after a change)', () => {
    expect(fs.readFileSync(new URL('../../docs/routes.md', import.meta.url), 'utf8')).to.equal(map);
  });

  it('follows a command from its route to its decider, its events, their handlers and its look-ups', () => {
    const watch = row('PUT /v1/me/watchlist/{lotId}').split(' | ');
    expect(watch[1]).to.equal('`watchLot` commands/watchlist/operations.ts');
    expect(watch[2]).to.equal('`watchlistDecider` → LotWatched, WatchTypeChanged');
    expect(watch[3]).to.equal('watchlist (P), push-jobs (R)');
    expect(watch[4]).to.contain('lots (catalogue');
    const bid = row('POST /v1/me/bids').split(' | ');
    expect(bid[2]).to.match(/^`biddingDecider` → .*MaxBidPlaced/);
    expect(bid[3]).to.contain('bidding (P)').and.contain('bids (P)').and.contain('lot-search (S)');
    expect(bid[4]).to.contain('registrations (registrations)');
  });

  it('names the read models a query reads, and no decider for it', () => {
    const myBids = row('GET /v1/me/bids').split(' | ');
    expect(myBids[1]).to.equal('`listMyBids` queries/bidding/operations.ts');
    expect(myBids[2]).to.equal('—');
    expect(myBids[4]).to.contain('member_bids (bidding)');
  });

  it('has one row per operation of the service', async () => {
    const { service } = await import('../../app/features/index.ts');
    const rows = map.split('\n').filter((line) => /^\| `[A-Z]+ \//.test(line));
    expect(rows).to.have.length(service.operations.length);
  });
});
