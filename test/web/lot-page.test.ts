/**
 * The reference bidder front end's lot, auction and home views in headless Chromium, on a phone (390×844) and a
 * desktop (1280×900): no dead end (an auction bid elsewhere, terms to accept, an unknown lot, the list's words), the
 * leader's own maximum, the confirmation of every bid, and what a lot page shows (gallery with zoom, details,
 * documents, increments, "no reserve", history, live indicator, countdowns on the service's clock, titles). Every
 * new state is checked with axe-core. The house's images come from https://images.example.com
 * (DEMO_WEB_IMAGE_ORIGINS), answered by the browser's request routing with drawn pictures.
 * BIDDER_WEB_SCREENSHOTS=<folder> also writes the screenshots of docs/screenshots/ there.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { freePort, ready, SERVICE_PASSWORD, startService, type ServiceProcess } from '../support/service-process.ts';
import { chromiumMissing, launchChromium } from '../support/chromium.ts';

const IMAGES = 'https://images.example.com';
const BACK_OFFICE_KEY = 'bo-lot-page-spec-0123456789abcdefghijklmnop';
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };
/** Lots of the demo's timed auction (10): 2002 has no reserve, 2003 has one; 2007 and 2008 are this spec's to bid on. */
const NO_RESERVE = 2002;
const WITH_RESERVE = 2003;
const BID_ON = 2007;
/** A lot of the live auction (2): bids taken by the house elsewhere, terms required. */
const EXTERNAL = 401;
/** A lot of the demo's first auction with a condition report. */
const WITH_REPORT = 1;
const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** A drawn picture for each image address (an SVG, so the zoom has detail to show). */
const picture = (name: string) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="1600" height="1200" viewBox="0 0 1600 1200">` +
  `<rect width="1600" height="1200" fill="#d9c7a3"/><ellipse cx="800" cy="640" rx="420" ry="360" fill="#8a6a3c"/>` +
  `<ellipse cx="800" cy="600" rx="300" ry="250" fill="#b89b64"/><text x="60" y="120" font-size="72" font-family="sans-serif">${name}</text></svg>`;

describe('the front end’s lot, auction and home views in Chromium', function () {
  this.timeout(90_000);
  const missing = chromiumMissing();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lot-page-'));
  const shots = process.env.BIDDER_WEB_SCREENSHOTS;
  let service: ServiceProcess;
  let browser: Browser;
  let pageUrl: string;
  const consoleErrors: string[] = [];

  before(async function () {
    if (missing) {
      console.log(`      skipped: ${missing}`);
      this.skip();
    }
    const port = await freePort();
    service = startService({
      port,
      dataDir,
      env: { DEMO_WEB_API_URL: `http://127.0.0.1:${port}`, DEMO_WEB_IMAGE_ORIGINS: IMAGES, DEMO_BACKOFFICE_KEY: BACK_OFFICE_KEY },
    });
    await ready(service, 45_000, '/openapi.json');
    pageUrl = `http://localhost:${port}/demo/`;
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    if (service) {
      service.child.kill('SIGTERM');
      await service.exited;
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  /** A browser context of a size, its images answered, its console watched (a 404 of an unknown lot aside). */
  async function open(viewport: typeof PHONE, locale = 'en-GB'): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ viewport, locale, deviceScaleFactor: 1, acceptDownloads: true });
    await context.route(`${IMAGES}/**`, (route) =>
      route.fulfill({ contentType: 'image/svg+xml', body: picture(new URL(route.request().url()).pathname.split('/').pop()!) }),
    );
    const page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error' && !/status of 404/.test(message.text())) consoleErrors.push(message.text());
    });
    page.on('pageerror', (error) => consoleErrors.push(`uncaught: ${error.message}`));
    return { context, page };
  }

  /** axe-core's violations on the page as it is now (rule id and the first element of each). */
  async function violations(page: Page): Promise<string[]> {
    // Evaluated through the DevTools protocol, which the page's CSP does not govern.
    await page.evaluate(axeSource);
    const found = await page.evaluate(async () => {
      const axe = (
        window as unknown as {
          axe: { run(): Promise<{ passes: unknown[]; violations: Array<{ id: string; nodes: Array<{ target: string[] }> }> }> };
        }
      ).axe;
      const result = await axe.run();
      return { passes: result.passes.length, violations: result.violations.map((v) => `${v.id}: ${v.nodes[0]?.target.join(' ')}`) };
    });
    expect(found.passes, 'rules axe-core checked and passed').to.be.above(10);
    return found.violations;
  }

  async function signIn(page: Page, next: string, email = 'bidder@example.com', password = SERVICE_PASSWORD) {
    await page.goto(`${pageUrl}#/sign-in?next=${encodeURIComponent(next)}`);
    await page.getByLabel(/e-?post|email/i).fill(email);
    await page.locator('#password').fill(password);
    await page.locator('#password').press('Enter');
    await page.waitForFunction((hash) => location.hash === hash && document.getElementById('bidding')?.childElementCount, next);
  }

  const shot = async (page: Page, name: string, fullPage = true) => {
    if (shots) await page.screenshot({ path: path.join(shots, `${name}.png`), fullPage });
  };

  describe('no dead end', () => {
    it('shows no bid form on a lot whose bids the house takes elsewhere, and lets the member accept the terms and register (desktop)', async () => {
      const { page, context } = await open(DESKTOP);
      const posts: string[] = [];
      page.on('request', (r) => {
        if (r.method() === 'POST') posts.push(new URL(r.url()).pathname);
      });
      await signIn(page, `#/lots/${EXTERNAL}`);
      expect(await page.locator('#bid-form').count()).to.equal(0);
      expect(await page.locator('.suggestions button').count()).to.equal(0);
      expect(await page.locator('#bids-elsewhere').textContent()).to.equal(
        'Bids for this auction are not placed on this site: the house takes them in its own sale.',
      );
      expect(await page.locator('main').textContent()).not.to.contain('not open for bidding yet');
      // The terms: to read among the documents, a box to tick, then accept and register.
      expect(await page.locator('#documents button', { hasText: 'Terms of sale' }).count()).to.equal(1);
      expect(await violations(page)).to.deep.equal([]);
      await page.locator('#accept-and-register').click();
      expect(await page.locator('#terms-error').textContent()).to.equal('Tick the box to accept the terms.');
      expect(await page.evaluate(() => document.activeElement?.id)).to.equal('accept-terms');
      await page.getByLabel('I accept the terms and conditions').check();
      await page.locator('#accept-and-register').click();
      await page.locator('#registered').waitFor({ timeout: 5000 });
      expect(await page.locator('#registered').textContent()).to.equal('You are registered for this auction.');
      expect(posts.filter((p) => !p.endsWith('/stream-tickets')).slice(-2)).to.deep.equal([
        '/v1/auctions/2/terms-acceptance',
        '/v1/me/registrations/2',
      ]);
      expect(await violations(page)).to.deep.equal([]);
      await context.close();
    });

    it('says so in Swedish and German too (phone)', async () => {
      const said = {
        'sv-SE': [
          'Bud på den här auktionen läggs inte på den här webbplatsen: auktionshuset tar emot dem i sin egen auktion.',
          'Sidan finns inte',
        ],
        'de-DE': [
          'Gebote für diese Auktion werden nicht auf dieser Seite abgegeben: das Auktionshaus nimmt sie in seiner eigenen Versteigerung an.',
          'Seite nicht gefunden',
        ],
      };
      for (const [locale, [elsewhere, notFound]] of Object.entries(said)) {
        const { page, context } = await open(PHONE, locale);
        await page.goto(`${pageUrl}#/lots/${EXTERNAL}`);
        await page.locator('#bids-elsewhere').waitFor({ timeout: 5000 });
        expect(await page.locator('#bids-elsewhere').textContent()).to.equal(elsewhere);
        expect(await page.locator('#bid-form, .suggestions').count()).to.equal(0);
        await page.goto(`${pageUrl}#/lots/999999`);
        await page.locator('#not-found').waitFor({ timeout: 5000 });
        expect(await page.locator('h1').textContent()).to.equal(notFound);
        await context.close();
      }
    });

    it('says once that an unknown lot or address does not exist, with the way back (phone)', async () => {
      const { page, context } = await open(PHONE);
      for (const hash of ['#/lots/999999', '#/nowhere']) {
        await page.goto(`${pageUrl}${hash}`);
        await page.locator('#not-found').waitFor({ timeout: 5000 });
        expect(await page.locator('h1').allTextContents()).to.deep.equal(['Page not found']);
        expect(await page.locator('main').textContent()).not.to.contain('Something went wrong');
        expect(await page.title()).to.equal('Page not found – Demo Auctions');
        expect(await page.getByRole('link', { name: 'Auctions', exact: true }).count()).to.equal(1);
      }
      expect(await violations(page)).to.deep.equal([]);
      await context.close();
    });

    it('lists the starting price where no bid exists, orders by closing soon, and marks a lot that closes (phone)', async () => {
      // A lot of the timed auction that closes a few seconds from now, through the house's intake.
      const endTime = new Date(Date.now() + 8000).toISOString();
      const texts = { title: 'Brass lantern, closing now', description: 'A lantern.' };
      const intake = await fetch(`${service.base}/backoffice/v1/intake`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${BACK_OFFICE_KEY}`, 'Content-Type': 'application/x-ndjson' },
        body: JSON.stringify({
          kind: 'lot',
          tenant: 'demo',
          lotId: 9001,
          auctionId: 10,
          lotNumber: 61,
          categoryId: null,
          texts: { en: texts, sv: texts, de: texts },
          attributes: [],
          images: [],
          hotLot: false,
          vatFree: false,
          currency: 'EUR',
          startingPrice: 1000,
          estimateLow: 2000,
          estimateHigh: 4000,
          endTime,
          combiId: null,
          ownerId: null,
        }),
      });
      expect((await intake.json()).Appended).to.equal(1);
      const { page, context } = await open(PHONE);
      await page.goto(`${pageUrl}#/auctions/10`);
      await page.locator('#lots li').first().waitFor({ timeout: 5000 });
      expect(await page.title()).to.equal('Timed Online Sale – Demo Auctions');
      expect(await page.locator('#closes').textContent()).to.match(/^Lots close from .+ to .+$/);
      await page.getByLabel('Sort by').selectOption('closing');
      await page.waitForFunction(() => document.querySelector('#lots li')?.getAttribute('data-lot') === '9001', null, { timeout: 5000 });
      const row = page.locator('#lots li[data-lot="9001"]');
      expect(await row.locator('.price').textContent()).to.equal('Starting price: €10.00');
      expect(await row.locator('.left').getAttribute('data-state')).to.equal('soon');
      expect(await row.locator('.badge').textContent()).to.equal('No reserve');
      expect(await page.locator('#live-status').getAttribute('data-state')).to.equal('live');
      expect(await violations(page)).to.deep.equal([]);
      await shot(page, 'lot-list-phone');
      // Its end comes: the stream's `closed` marks it, unsold.
      await page.locator('#lots li[data-lot="9001"][data-state="closed"]').waitFor({ timeout: 20_000 });
      await page.waitForFunction(() => document.querySelector('#lots li[data-lot="9001"] .price')?.textContent === 'Unsold', null, {
        timeout: 20_000,
      });
      expect(await row.locator('.left').textContent()).to.equal('Closed');
      expect(await violations(page)).to.deep.equal([]);
      await context.close();
    });

    it('gives each auction on the landing page the range its lots close in (desktop)', async () => {
      const { page, context } = await open(DESKTOP);
      await page.goto(pageUrl);
      const timed = page.locator('.cards li[data-auction="10"] .closes');
      await timed.waitFor({ timeout: 5000 });
      expect(await timed.textContent()).to.match(/^Lots close from .+ to .+ · \d+ lots$/);
      expect(await page.title()).to.equal('Auctions – Demo Auctions');
      expect(await violations(page)).to.deep.equal([]);
      await context.close();
    });
  });

  describe("the leader's own maximum, and a confirmation before every bid", () => {
    for (const [size, viewport, lotId] of [
      ['phone', PHONE, BID_ON],
      ['desktop', DESKTOP, BID_ON + 1],
    ] as const)
      it(`shows the leader their maximum, suggests only raises the service takes, and confirms each (${size})`, async () => {
        const { page, context } = await open(viewport);
        await signIn(page, `#/lots/${lotId}`);
        if (await page.locator('#register').isVisible()) await page.locator('#register').click();
        await page.locator('#bid-form').waitFor({ timeout: 5000 });
        // Every bid the page sends, as it sends it; and the answer to the next one.
        const isBid = (r: { url(): string; method(): string }) => r.url().endsWith('/v1/me/bids') && r.method() === 'POST';
        const bids: Array<{ body: string }> = [];
        page.on('request', (r) => {
          if (isBid(r)) bids.push({ body: r.postData() ?? '' });
        });
        const answered = () => page.waitForResponse((r) => isBid(r.request())).then((r) => r.status());
        // A suggested bid (two increments above the minimum) fills the amount; nothing is placed before "confirm".
        await page.locator('.suggestions button').nth(2).click();
        await page.locator('#bid-form button[type=submit]').click();
        await page.locator('#bid-confirmation:not([hidden])').waitFor({ timeout: 5000 });
        expect(bids).to.deep.equal([]);
        expect(await page.locator('#bid-confirm-text').textContent()).to.match(
          /^Your maximum bid: €[\d,.]+\. If you win at it, you pay €[\d,.]+ in all\.$/,
        );
        expect(await violations(page)).to.deep.equal([]);
        const placed = answered();
        await page.locator('#bid-confirm').click();
        expect(await placed).to.equal(200);
        await page.locator('#my-status[data-state="leading"]').waitFor({ timeout: 5000 });
        const first = JSON.parse(bids[0].body).MaxAmount as number;
        // Their maximum is shown; the suggestions start one increment above it, and the button raises it.
        await page.locator('#my-max:not([hidden])').waitFor({ timeout: 5000 });
        expect(await page.locator('#my-max').getAttribute('data-amount')).to.equal(String(first));
        expect(await page.locator('#my-max').textContent()).to.match(/^Your maximum: €/);
        const suggested = await page.locator('.suggestions button').allTextContents();
        const amounts = suggested.map((text) => Math.round(Number(text.replace(/[^\d.]/g, '')) * 100));
        expect(amounts[0]).to.be.above(first);
        expect(await page.locator('#bid-form button[type=submit]').textContent()).to.equal('Raise my maximum');
        expect(await page.locator('#bid-hint').textContent()).to.match(/^Your maximum is €[\d,.]+; a new one must be at least €[\d,.]+\.$/);
        // Its own maximum again: refused on the page, nothing sent.
        await page.locator('#bid-amount').fill(String(first / 100));
        await page.locator('#bid-form button[type=submit]').click();
        expect(await page.locator('#bid-error').textContent()).to.equal(
          'You are the highest bidder: a new maximum bid must be higher than your current one.',
        );
        expect(bids.length).to.equal(1);
        // The first suggestion raises it, after the confirmation step.
        await page.locator('.suggestions button').first().click();
        await page.locator('#bid-form button[type=submit]').click();
        const raised = answered();
        await page.locator('#bid-confirm').click();
        expect(await raised).to.equal(200);
        await page.waitForFunction((amount) => document.getElementById('my-max')?.dataset.amount === String(amount), amounts[0], {
          timeout: 5000,
        });
        expect(bids.length).to.equal(2);
        expect(JSON.parse(bids[1].body).MaxAmount).to.equal(amounts[0]);
        // The history names bidders by their pseudonym on the lot; the leader's (the newest bid's) is theirs: "you".
        await page.waitForFunction(() => document.querySelectorAll('#history li.you').length > 0, null, { timeout: 5000 });
        expect(await page.locator('#history li .who').allTextContents()).to.deep.equal(
          await page.locator('#history li').evaluateAll((items) => items.map(() => 'You')),
        );
        expect(await violations(page)).to.deep.equal([]);
        if (size === 'phone') await shot(page, 'lot-page-phone');
        await context.close();
      });
  });

  describe('what a lot page shows', () => {
    it('shows the gallery with zoom, details, documents, the increment table, the reserve and a live indicator (desktop)', async () => {
      const { page, context } = await open(DESKTOP);
      await page.goto(`${pageUrl}#/lots/${NO_RESERVE}`);
      await page.locator('#gallery-image').waitFor({ timeout: 5000 });
      expect(await page.title()).to.match(/^Lot number 2: .+ – Demo Auctions$/);
      // The images load from the house's image origin (the CSP allows it).
      await page.waitForFunction(() => (document.getElementById('gallery-image') as HTMLImageElement).naturalWidth > 0, null, {
        timeout: 5000,
      });
      expect(await page.locator('#gallery-image').getAttribute('src')).to.equal(`${IMAGES}/demo/lots/${NO_RESERVE}-1.jpg`);
      await page.locator('.thumb').nth(1).click();
      expect(await page.locator('#gallery-image').getAttribute('src')).to.equal(`${IMAGES}/demo/lots/${NO_RESERVE}-2.jpg`);
      expect(await page.locator('.thumb').nth(1).getAttribute('aria-pressed')).to.equal('true');
      // Zoom: the image enlarged in a dialog, the arrow keys to the other image, Escape closes it.
      await page.locator('#gallery-open').click();
      await page.locator('#zoom[open]').waitFor({ timeout: 5000 });
      const sizes = await page.evaluate(() => ({
        zoomed: (document.getElementById('zoom-image') as HTMLImageElement).width,
        frame: document.querySelector<HTMLElement>('.zoom-frame')!.clientWidth,
      }));
      expect(sizes.zoomed).to.be.above(sizes.frame);
      expect(await page.locator('#zoom-caption').textContent()).to.match(/^Image 2 of 2: /);
      await shot(page, 'lot-zoom-desktop', false);
      expect(await violations(page)).to.deep.equal([]);
      await page.keyboard.press('ArrowRight');
      expect(await page.locator('#zoom-caption').textContent()).to.match(/^Image 1 of 2: /);
      await page.keyboard.press('Escape');
      await page.locator('#zoom:not([open])').waitFor({ state: 'attached', timeout: 5000 });
      // Details, documents, the increment table, "no reserve", and the live indicator.
      expect(await page.locator('#attributes dt').allTextContents()).to.deep.equal(['Material', 'Period', 'Condition']);
      expect(await page.locator('#reserve').textContent()).to.equal('No reserve');
      await page.locator('#increments summary').click();
      expect(await page.locator('#increments tbody tr').count()).to.equal(6);
      expect(await page.locator('#increments tbody tr').first().textContent()).to.equal('€0.00€1.00');
      expect(await page.locator('#live-status').getAttribute('data-state')).to.equal('live');
      const download = page.waitForEvent('download');
      await page.locator('#document-factsheet').click();
      expect((await download).suggestedFilename()).to.equal('factsheet-2.pdf');
      expect(await violations(page)).to.deep.equal([]);
      await shot(page, 'lot-page-desktop');
      // Offline: the indicator says so, and says "live" again once the network is back.
      await context.setOffline(true);
      await page.locator('#live-status[data-state="offline"]').waitFor({ timeout: 5000 });
      expect(await page.locator('#live-status').textContent()).to.equal('Offline: bids are not updated. Reconnecting…');
      expect(await violations(page)).to.deep.equal([]);
      await context.setOffline(false);
      await page.locator('#live-status[data-state="live"]').waitFor({ timeout: 20_000 });
      // A lot with a reserve says whether it is met; a lot with a condition report offers it.
      await page.goto(`${pageUrl}#/lots/${WITH_RESERVE}`);
      await page.waitForFunction(() => document.getElementById('reserve')?.textContent === 'Reserve not met', null, { timeout: 5000 });
      await page.goto(`${pageUrl}#/lots/${WITH_REPORT}`);
      await page.locator('#document-condition-report').waitFor({ timeout: 5000 });
      expect(await page.locator('#document-condition-report').textContent()).to.equal('Condition report');
      await context.close();
    });

    it("counts down on the service's clock, whatever time the device keeps (phone, an hour slow)", async () => {
      const { page, context } = await open(PHONE);
      await page.clock.install({ time: Date.now() - 3_600_000 });
      await page.goto(`${pageUrl}#/lots/${NO_RESERVE}`);
      await page.locator('#time-left').waitFor({ timeout: 5000 });
      // A tick after the first answers were read.
      await page.waitForFunction(() => /\d d \d\d:\d\d:\d\d$/.test(document.getElementById('time-left')?.textContent ?? ''), null, {
        timeout: 5000,
      });
      const shownAt = Date.now();
      const [text, endTime] = await Promise.all([
        page.locator('#time-left').textContent(),
        page.locator('#end-time').getAttribute('datetime'),
      ]);
      const [, d, hh, mm, ss] = /(\d+) d (\d\d):(\d\d):(\d\d)$/.exec(text!)!.map(Number);
      const shown = ((d * 24 + hh) * 60 + mm) * 60 + ss;
      const actual = (Date.parse(endTime!) - shownAt) / 1000;
      expect(Math.abs(shown - actual), `shown ${shown} s, left ${actual} s`).to.be.below(5);
      await context.close();
    });

    it('logged no console error beyond the unknown lot’s 404', () => {
      expect(consoleErrors).to.deep.equal([]);
    });
  });
});
