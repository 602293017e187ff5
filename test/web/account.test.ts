/**
 * The account a bidder needs, in the reference front end (examples/bidder-web) in headless Chromium, on a phone
 * (390×844) and a desktop: signing up and confirming the address with the key of the mail (read from DATA_DIR/outbox/,
 * where the embedded default delivers mail), a password reset, the watchlist with a reminder, won lots, invoices and
 * their PDF, notifications; and the page's own words in Swedish and German (the account menu's label, "Loading…", the
 * start-up failure, the days of a countdown, the title). Every page state is checked with axe-core.
 * BIDDER_WEB_SCREENSHOTS=<folder> writes the screenshots of docs/screenshots/ (account-*.png) there.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { readOutbox } from '../../src/adapters/embedded/file-outbox.ts';
import { call, freePort, ready, SERVICE_PASSWORD, sleep, startService, type ServiceProcess } from '../support/service-process.ts';
import { chromiumMissing, launchChromium } from '../support/chromium.ts';

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };
const NEW_MEMBER = { email: 'new.bidder@example.com', password: 'a new bidder password', newPassword: 'another long password 2' };
/** A lot of the demo's timed auction, open for days. */
const LOT = 2002;
const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

describe('the account in the reference front end, in Chromium', function () {
  this.timeout(90_000);
  const missing = chromiumMissing();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-web-account-'));
  const shots = process.env.BIDDER_WEB_SCREENSHOTS;
  let service: ServiceProcess;
  let browser: Browser;
  let pageUrl: string;
  const consoleErrors: string[] = [];
  const contexts: BrowserContext[] = [];

  before(async function () {
    if (missing) {
      console.log(`      skipped: ${missing}`);
      this.skip();
    }
    const port = await freePort();
    service = startService({ port, dataDir });
    await ready(service, 45_000, '/openapi.json');
    pageUrl = `http://127.0.0.1:${port}/demo/`;
    browser = await launchChromium();
  });
  after(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    if (service) {
      service.child.kill('SIGTERM');
      await service.exited;
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  async function open(viewport: typeof PHONE, locale: string): Promise<Page> {
    const context = await browser.newContext({ viewport, locale, deviceScaleFactor: 1, acceptDownloads: true });
    contexts.push(context);
    const page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    page.on('pageerror', (error) => consoleErrors.push(`uncaught: ${error.message}`));
    return page;
  }

  /** axe-core finds nothing on the page as it is, then (with BIDDER_WEB_SCREENSHOTS) a screenshot of it. */
  async function check(page: Page, name: string) {
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
    expect(found.violations, `axe-core on ${name}`).to.deep.equal([]);
    expect(found.passes, 'rules axe-core checked and passed').to.be.above(10);
    if (shots) await page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true });
  }

  /** The key of the newest mail to an address whose subject matches (the key stands on a line of its own). */
  async function mailedKey(to: string, subject: RegExp): Promise<string> {
    for (let tries = 0; tries < 100; tries++) {
      const mails = (await readOutbox(path.join(dataDir, 'outbox')))
        .filter((m) => m.To === to && subject.test(m.Subject ?? ''))
        .sort((a, b) => a.CreatedAt.localeCompare(b.CreatedAt));
      const key = mails.length ? /^([A-Za-z0-9_-]{32})$/m.exec(mails.at(-1)!.Body)?.[1] : undefined;
      if (key) return key;
      await sleep(100);
    }
    throw new Error(`no mail to ${to} matching ${subject}`);
  }

  async function signIn(page: Page, email: string, password: string, next: string) {
    await page.goto(`${pageUrl}#/sign-in?next=${encodeURIComponent(next)}`);
    await page.locator('#email').fill(email);
    await page.locator('#password').fill(password);
    await page.locator('#password').press('Enter');
    await page.locator('#account-menu:not([hidden])').waitFor({ timeout: 10_000 });
  }

  it('signs a new bidder up on a phone (sv) and confirms the address with the key of the mail', async () => {
    const page = await open(PHONE, 'sv-SE');
    await page.goto(`${pageUrl}#/sign-in`);
    await page.locator('main').getByRole('link', { name: 'Skapa konto' }).click();
    await page.locator('#sign-up-form').waitFor();
    expect(await page.locator('h1').textContent()).to.equal('Skapa konto');
    await page.getByLabel('Förnamn').fill('Ny');
    await page.getByLabel('Efternamn').fill('Budgivare');
    await page.getByLabel('E-post', { exact: true }).fill(NEW_MEMBER.email);
    // A password the service refuses (under 10 characters): the input is marked and focused, the alert says the rules.
    await page.getByLabel('Lösenord', { exact: true }).fill('short');
    await page.locator('#sign-up-form button[type=submit]').click();
    await page.locator('#password[aria-invalid="true"]').waitFor({ timeout: 10_000 });
    expect(await page.locator('#sign-up-form-error').textContent()).to.equal('Minst 10 tecken, inte din e-postadress.');
    expect(await page.evaluate(() => document.activeElement?.id)).to.equal('password');
    expect(await page.locator('#password').getAttribute('aria-describedby')).to.equal('password-hint');
    await page.getByLabel('Lösenord', { exact: true }).fill(NEW_MEMBER.password);
    await check(page, 'account-sign-up-phone-sv');
    await page.locator('#sign-up-form button[type=submit]').click();

    // The confirmation view says where the key went; the key is the mail's, in the member's language.
    await page.locator('#sign-up-sent').waitFor({ timeout: 10_000 });
    expect(await page.locator('#sign-up-sent').textContent()).to.contain(NEW_MEMBER.email);
    expect(await page.locator('#email').inputValue()).to.equal(NEW_MEMBER.email);
    const key = await mailedKey(NEW_MEMBER.email, /bekräfta/);
    await page.getByLabel('Nyckel från mejlet').fill(key);
    await check(page, 'account-confirm-phone-sv');
    await page.locator('#confirm-form button[type=submit]').click();
    await page.locator('#confirmed').waitFor({ timeout: 10_000 });
    expect(await page.locator('#confirmed').textContent()).to.contain('Din adress är bekräftad.');

    // Confirmed, the new member signs in.
    await page.locator('#confirmed a').click();
    await page.locator('#password').fill(NEW_MEMBER.password);
    await page.getByLabel('E-post', { exact: true }).fill(NEW_MEMBER.email);
    await page.locator('#password').press('Enter');
    await page.locator('#account-menu:not([hidden])').waitFor({ timeout: 10_000 });
    expect(await page.locator('#who').textContent()).to.equal(`Inloggad som ${NEW_MEMBER.email}`);
  });

  it('resets a forgotten password on a desktop (de) with the key of the mail; the new password signs in', async () => {
    const page = await open(DESKTOP, 'de-DE');
    await page.goto(`${pageUrl}#/sign-in`);
    await page.locator('main').getByRole('link', { name: 'Passwort vergessen?' }).click();
    await page.locator('#reset-request-form').waitFor();
    await page.getByLabel('E-Mail', { exact: true }).fill(NEW_MEMBER.email);
    await page.locator('#reset-request-form button[type=submit]').click();
    await page.locator('#reset-sent-text').waitFor({ timeout: 10_000 });
    // The key's form opens and takes the focus.
    expect(await page.evaluate(() => document.activeElement?.id)).to.equal('reset-key');
    // The mail is in the member's language (Swedish, chosen at sign-up), whatever the page's.
    const key = await mailedKey(NEW_MEMBER.email, /återställ ditt lösenord/);
    await page.getByLabel('Schlüssel aus der E-Mail').fill(key);
    await page.getByLabel('Neues Passwort').fill(NEW_MEMBER.newPassword);
    await check(page, 'account-password-reset-desktop-de');
    await page.locator('#reset-confirm-form button[type=submit]').click();
    await page.locator('#reset-done').waitFor({ timeout: 10_000 });

    const anonymous = (await call(service.base, 'POST', '/v1/tokens/anonymous', null, { clientId: 'demo' })).body.Token;
    const old = await call(service.base, 'POST', '/v1/sessions', anonymous, { Email: NEW_MEMBER.email, Password: NEW_MEMBER.password });
    expect(old.status).to.equal(401);
    await signIn(page, NEW_MEMBER.email, NEW_MEMBER.newPassword, '#/');
  });

  for (const [viewport, locale, device] of [
    [DESKTOP, 'en-GB', 'desktop'],
    [PHONE, 'de-DE', 'phone'],
  ] as const) {
    it(`shows the demo member's watchlist with a reminder, won lots, invoices with their PDF and notifications (${device}, ${locale})`, async () => {
      const page = await open(viewport, locale);
      const lang = locale.slice(0, 2);
      await signIn(page, 'bidder@example.com', SERVICE_PASSWORD, '#/');
      const anonymous = (await call(service.base, 'POST', '/v1/tokens/anonymous', null, { clientId: 'demo' })).body.Token;
      const member = (
        await call(service.base, 'POST', '/v1/sessions', anonymous, { Email: 'bidder@example.com', Password: SERVICE_PASSWORD })
      ).body.Token;
      expect((await call(service.base, 'PUT', `/v1/me/watchlist/${LOT}`, member, { Type: 'watch' })).status).to.equal(200);

      // The account menu: a disclosure in the header, by keyboard.
      await page.locator('#account-summary').focus();
      await page.keyboard.press('Enter');
      await page.locator('#watchlist-link').waitFor({ state: 'visible' });
      await check(page, `account-menu-${device}-${lang}`);
      await page.locator('#watchlist-link').click();

      // The watchlist: the lot, a reminder by e-mail set and then taken back on the notifications page.
      await page.locator(`#watchlist li[data-lot="${LOT}"]`).waitFor({ timeout: 10_000 });
      const remind = page.locator(`#watchlist li[data-lot="${LOT}"] button[aria-pressed]`);
      const set = page.waitForResponse((r) => r.url().endsWith('/v1/me/notifications') && r.request().method() === 'POST');
      await remind.click();
      expect((await set).status()).to.equal(200);
      await page.locator(`#watchlist li[data-lot="${LOT}"] button[aria-pressed="true"]`).waitFor();
      await check(page, `account-watchlist-${device}-${lang}`);

      await page.goto(`${pageUrl}#/notifications`);
      await page.locator(`#reminders li[data-lot="${LOT}"]`).waitFor({ timeout: 10_000 });
      await check(page, `account-notifications-${device}-${lang}`);
      const removed = page.waitForResponse(
        (r) => /\/v1\/me\/notifications\/[0-9a-f-]+$/.test(r.url()) && r.request().method() === 'DELETE',
      );
      await page.locator(`#reminders li[data-lot="${LOT}"] button`).click();
      expect((await removed).status()).to.equal(200);
      await page.locator('#no-reminders:not([hidden])').waitFor();

      // Won lots: what GET /v1/me/bids?status=won answers.
      const won = (await call(service.base, 'GET', '/v1/me/bids?status=won&pageSize=100', member)).body;
      await page.goto(`${pageUrl}#/won`);
      await page
        .locator(won.Items.length ? '#won li' : 'main h1')
        .first()
        .waitFor({ timeout: 10_000 });
      expect(await page.locator('#won li').count()).to.equal(won.Items.length);
      await check(page, `account-won-${device}-${lang}`);

      // Invoices: the demo member's unpaid and paid ones, and one's PDF downloaded.
      await page.goto(`${pageUrl}#/invoices`);
      await page.locator('#invoices li').first().waitFor({ timeout: 10_000 });
      expect(
        await page.locator('#invoices li').evaluateAll((items) => items.map((li) => li.getAttribute('data-state')).sort()),
      ).to.deep.equal(['paid', 'unpaid']);
      await check(page, `account-invoices-${device}-${lang}`);
      const downloading = page.waitForEvent('download');
      await page.locator('#invoices li button').first().click();
      const download = await downloading;
      const bytes = fs.readFileSync((await download.path())!);
      expect(bytes.subarray(0, 5).toString()).to.equal('%PDF-');
      expect(download.suggestedFilename()).to.match(/^invoice-\d+\.pdf$/);
    });
  }

  it('speaks Swedish and German before and after the dictionary: "Loading…", the start-up failure, the menu, the title, days', async () => {
    // Loading, in the browser's language, while the house's token is held back.
    const page = await open(PHONE, 'de-DE');
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/v1/tokens/anonymous', async (route) => {
      await held;
      await route.continue();
    });
    await page.goto(`${pageUrl}#/lots/${LOT}`);
    await page.waitForFunction(() => document.querySelector('#main .loading')?.textContent === 'Wird geladen…', null, { timeout: 5000 });
    expect(await page.evaluate(() => document.documentElement.lang)).to.equal('de');
    release();
    await page.locator('h1').waitFor({ timeout: 10_000 });
    expect(await page.locator('#account-nav').getAttribute('aria-label')).to.equal('Konto');
    expect(await page.locator('#house').textContent()).to.equal('Demo-Auktionen');
    expect(await page.title()).to.match(/Demo-Auktionen$/);
    // The lot closes in days: its countdown says them as German does ("T."), never the English "d".
    await page.waitForFunction(() => /\d+ T\. \d\d:\d\d:\d\d/.test(document.querySelector('main')?.textContent ?? ''), null, {
      timeout: 5000,
    });
    expect(await page.locator('main').textContent()).to.not.match(/\d+ d \d\d:/);
    await check(page, 'account-lot-words-phone-de');

    // The start-up failure, in Swedish, when the service cannot be reached.
    const failing = await open(PHONE, 'sv-SE');
    await failing.route('**/v1/tokens/anonymous', (route) => route.abort());
    await failing.goto(pageUrl);
    await failing.locator('#main .error').waitFor({ timeout: 10_000 });
    expect(await failing.locator('#main .error').textContent()).to.equal('Sidan kunde inte starta. Ladda om den.');
    expect(await failing.locator('#account-nav').getAttribute('aria-label')).to.not.equal('Account');
    consoleErrors.splice(0, consoleErrors.length, ...consoleErrors.filter((e) => !/ERR_FAILED|net::/.test(e)));
  });

  it("logged no console error but Chromium's own line for the refused password", () => {
    expect(consoleErrors).to.deep.equal(['Failed to load resource: the server responded with a status of 400 (Bad Request)']);
  });
});
