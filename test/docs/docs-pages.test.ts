/**
 * The reference pages (/docs, /docs/backoffice) are where a caller types an Api-Key, a token or a back-office key:
 * they are served with the headers of /demo/ (a Content-Security-Policy without 'unsafe-inline', never framed,
 * nosniff, no referrer), and Swagger UI keeps what is typed in the page's memory, never in localStorage. In headless
 * Chromium (skipped, saying so, where it is not installed) the page works under that policy and keeps nothing.
 */
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { startTestServer, type TestServer } from '../support/server.ts';
import { chromiumMissing, launchChromium } from '../support/chromium.ts';

describe('the reference pages /docs and /docs/backoffice', function () {
  this.timeout(120_000);
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ seed: false });
  });
  after(async () => server?.close());

  for (const page of ['/docs', '/docs/backoffice']) {
    it(`${page}: has the headers of /demo/ and does not persist authorizations`, async () => {
      const answer = await server.request('GET', page, { apiKey: null });
      expect(answer.status).to.equal(200);
      const csp = answer.headers.get('content-security-policy') ?? '';
      expect(csp).to.contain("frame-ancestors 'none'").and.contain("default-src 'none'").and.contain("base-uri 'none'");
      expect(csp).to.match(/script-src 'self' 'sha256-[A-Za-z0-9+/]+=*'/);
      expect(csp).to.match(/connect-src 'self';/);
      expect(csp).to.not.contain('unsafe-inline').and.not.contain('unsafe-eval').and.not.contain('*');
      expect(answer.headers.get('x-content-type-options')).to.equal('nosniff');
      expect(answer.headers.get('referrer-policy')).to.equal('no-referrer');
      expect(answer.headers.get('x-frame-options')).to.equal('DENY');
      expect(answer.text).to.contain('persistAuthorization: false').and.not.contain('persistAuthorization: true');
      // A conditional request keeps them.
      const again = await server.rawGet(page, { apiKey: null, headers: { 'If-None-Match': answer.headers.get('etag')! } });
      expect(again.status).to.equal(304);
      expect(again.headers['content-security-policy']).to.equal(csp);
    });
  }

  it("serves Swagger UI's assets with nosniff", async () => {
    const asset = await server.rawGet('/docs/assets/swagger-ui-bundle.js', { apiKey: null });
    expect(asset.status).to.equal(200);
    expect(asset.headers['x-content-type-options']).to.equal('nosniff');
  });

  describe('in Chromium', () => {
    const missing = chromiumMissing();
    let browser: Browser;
    before(async function () {
      if (missing) {
        console.log(`      skipped: ${missing}`);
        this.skip();
      }
      browser = await launchChromium();
    });
    after(async () => browser?.close());

    it('renders /docs under its policy, and an Api-Key authorized there is gone from the browser after a reload', async () => {
      const context = await browser.newContext();
      const page = await context.newPage();
      const problems: string[] = [];
      // The browser's own ask for /favicon.ico is answered 404: not the page's.
      page.on('console', (message) => {
        if (message.type() === 'error' && !message.location().url.endsWith('/favicon.ico')) problems.push(message.text());
      });
      page.on('response', (response) => {
        if (response.status() >= 400 && !response.url().endsWith('/favicon.ico')) problems.push(`${response.status()} ${response.url()}`);
      });
      page.on('pageerror', (error) => problems.push(error.message));
      await page.goto(`${server.base}/docs`);
      await page.waitForSelector('.opblock', { timeout: 60_000 });
      await page.click('button.authorize');
      const apiKey = 'typed-into-the-docs-page-0123456789';
      await page.fill('.auth-container input[type=text], .auth-container input:not([type])', apiKey);
      await page.click('.auth-container button.authorize');
      await page.click('button.btn-done');
      const kept = async () =>
        page.evaluate(() => JSON.stringify({ local: { ...localStorage }, session: { ...sessionStorage }, cookie: document.cookie }));
      expect(await kept()).to.not.contain(apiKey);
      await page.reload();
      await page.waitForSelector('.opblock', { timeout: 60_000 });
      expect(await kept()).to.not.contain(apiKey);
      expect(await page.locator('button.authorize.locked').count(), 'authorized after a reload').to.equal(0);
      expect(problems, problems.join('\n')).to.deep.equal([]);
      await context.close();
    });
  });
});
