/**
 * Notifications in the reference front end (examples/bidder-web, PUSH.md "The reference front end") in headless
 * Chromium: the button comes after a watch (never at load), turning it on subscribes the browser with the service's
 * key and hands the subscription to the service, the service worker shows a push (delivered through the DevTools
 * protocol's `ServiceWorker.deliverPushMessage`) and a click on it takes the page to the lot, and turning off removes
 * the subscription. A headless browser has no push service to subscribe to, so the page's `pushManager` is a stand-in
 * that answers a subscription at the specs' own push service (test/support/push-service.ts); the rest is the browser's.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { call, demoMemberToken, freePort, ready, SERVICE_PASSWORD, startService, type ServiceProcess } from '../support/service-process.ts';
import { chromiumMissing, launchChromium } from '../support/chromium.ts';
import { startPushService, type SpecPushService } from '../support/push-service.ts';
import { until } from '../support/until.ts';

/** A lot of the demo's timed auction (open for days). */
const LOT = 2003;

/**
 * The page's pushManager without a push service: subscribe() answers the given subscription and keeps the key it was
 * asked with. A script's text (a function of this file would carry the spec runner's helpers with it).
 */
const standInPushManager = (subscription: { endpoint: string; keys: { p256dh: string; auth: string } }) => `
  (() => {
    const given = ${JSON.stringify(subscription)};
    let current = null;
    const made = () => ({
      endpoint: given.endpoint,
      expirationTime: null,
      toJSON: () => ({ endpoint: given.endpoint, expirationTime: null, keys: given.keys }),
      unsubscribe: async () => { current = null; window.unsubscribed = true; return true; },
    });
    PushManager.prototype.subscribe = async function (options) {
      const key = new Uint8Array(options.applicationServerKey);
      window.askedKey = btoa(String.fromCharCode(...key));
      current = made();
      return current;
    };
    PushManager.prototype.getSubscription = async () => current;
  })();
`;

describe('notifications in the reference front end, in Chromium', function () {
  this.timeout(90_000);
  const missing = chromiumMissing();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-web-push-'));
  let service: ServiceProcess;
  let push: SpecPushService;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let pageUrl: string;
  const consoleErrors: string[] = [];

  before(async function () {
    if (missing) {
      console.log(`      skipped: ${missing}`);
      this.skip();
    }
    push = await startPushService();
    const port = await freePort();
    service = startService({
      port,
      dataDir,
      env: { DEMO_WEB_API_URL: `http://127.0.0.1:${port}`, PUSH_ENDPOINT_HOSTS: '127.0.0.1', PUSH_ALLOW_PRIVATE: 'true' },
    });
    await ready(service, 45_000, '/openapi.json');
    pageUrl = `http://localhost:${port}/demo/`;
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'en-GB' });
    await context.grantPermissions(['notifications'], { origin: new URL(pageUrl).origin });
    await context.addInitScript(standInPushManager(push.subscribe()));
    page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    page.on('pageerror', (error) => consoleErrors.push(`uncaught: ${error.message}`));
  });
  after(async () => {
    await browser?.close();
    if (service) {
      service.child.kill('SIGTERM');
      await service.exited;
    }
    await push?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('offers notifications after a watch, not at load, and turning them on gives the service the subscription made with its key', async () => {
    await page.goto(`${pageUrl}#/sign-in?next=${encodeURIComponent(`#/lots/${LOT}`)}`);
    await page.getByLabel(/email/i).fill('bidder@example.com');
    await page.locator('#password').fill(SERVICE_PASSWORD);
    await page.locator('#password').press('Enter');
    await page.locator('#watch').waitFor();
    expect(await page.locator('#push').isHidden(), 'no offer at load').to.equal(true);
    if ((await page.locator('#watch').getAttribute('aria-pressed')) === 'true') await page.locator('#watch').click();
    await page.locator('#watch[aria-pressed="false"]').waitFor();
    expect(await page.locator('#push').isHidden()).to.equal(true);
    await page.locator('#watch').click();
    await page.locator('#push-toggle[aria-pressed="false"]').waitFor({ state: 'visible' });
    expect(await page.locator('#push-toggle').textContent()).to.equal('Notify me on this device');

    await page.locator('#push-toggle').click();
    await page.locator('#push-toggle[aria-pressed="true"]').waitFor();
    const key = (
      await call(
        service.base,
        'GET',
        '/v1/push/key',
        (await call(service.base, 'POST', '/v1/tokens/anonymous', null, { clientId: 'demo' })).body.Token,
      )
    ).body.PublicKey;
    const asked = await page.evaluate(() => (window as unknown as { askedKey: string }).askedKey);
    expect(Buffer.from(asked, 'base64').toString('base64url')).to.equal(key);
    // The service has it under the demo member: the same subscription again answers the page's Id.
    const kept = JSON.parse((await page.evaluate(() => localStorage.getItem('bidder-web.push-subscription')))!) as {
      id: string;
      endpoint: string;
    };
    const token = await demoMemberToken(service.base);
    const subscription = await page.evaluate(() =>
      navigator.serviceWorker.ready.then(async (r) => (await r.pushManager.getSubscription())!.toJSON()),
    );
    const again = await call(service.base, 'PUT', '/v1/me/push-subscriptions', token, subscription);
    expect(again.status, again.text).to.equal(200);
    expect(again.body.Id).to.equal(kept.id);
  });

  it('shows a push as a notification (title, body, tag) in its service worker, and a click takes the page to the lot', async () => {
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
    const cdp = await context.newCDPSession(page);
    const registered = new Promise<string>((resolve) =>
      cdp.on(
        'ServiceWorker.workerRegistrationUpdated',
        ({ registrations }: { registrations: Array<{ registrationId: string; scopeURL: string }> }) => {
          const mine = registrations.find((r) => r.scopeURL === pageUrl);
          if (mine) resolve(mine.registrationId);
        },
      ),
    );
    await cdp.send('ServiceWorker.enable');
    const payload = {
      type: 'outbid',
      title: 'You have been outbid',
      body: 'Lot 3 (A lot): the current bid is €12.00. Raise your maximum to lead again.',
      lotId: LOT,
      auctionId: 10,
      url: `#/lots/${LOT}`,
      tag: `lot-${LOT}`,
      at: new Date().toISOString(),
    };
    await page.goto(`${pageUrl}#/`);
    const registrationId = await registered;
    // Polled from here: waitForFunction takes an async function's promise as its truthy answer at once.
    const notifications = () =>
      page.evaluate(async () => {
        const shown = await (await navigator.serviceWorker.ready).getNotifications();
        return shown.length > 0 && shown.map((n) => ({ title: n.title, body: n.body, tag: n.tag }));
      });
    // DevTools' delivery stands in for the push service's, which delivers again what was not acknowledged: once in a
    // full run the first delivery reached no worker, so it is sent again (the same tag: still one notification).
    let shown: Awaited<ReturnType<typeof notifications>> = false;
    for (let delivery = 1; !shown && delivery <= 3; delivery++) {
      await cdp.send('ServiceWorker.deliverPushMessage', {
        origin: new URL(pageUrl).origin,
        registrationId,
        data: JSON.stringify(payload),
      });
      shown = await until(notifications, 'the notification', 10_000).catch((error: Error) => {
        if (delivery === 3) throw error;
        return false as const;
      });
    }
    expect(shown).to.deep.equal([{ title: payload.title, body: payload.body, tag: payload.tag }]);

    // A click on it, as the browser dispatches it: the service worker takes the page to the lot.
    const [worker] = context.serviceWorkers();
    await worker.evaluate(async () => {
      const scope = globalThis as unknown as { registration: ServiceWorkerRegistration; dispatchEvent(e: Event): boolean };
      const [notification] = await scope.registration.getNotifications();
      const NotificationEventClass = (
        globalThis as unknown as { NotificationEvent: new (type: string, init: { notification: Notification }) => Event }
      ).NotificationEvent;
      try {
        scope.dispatchEvent(new NotificationEventClass('notificationclick', { notification }));
      } catch {
        // waitUntil refuses an event the browser did not make: the page is taken to the lot all the same.
      }
    });
    await page.waitForURL(`${pageUrl}#/lots/${LOT}`);
    await page.locator('h1', { hasText: 'Lot' }).waitFor();
  });

  it('shows the toggle pressed on a lot while notifications are on, and turning them off removes the subscription', async () => {
    await page.locator('#push-toggle[aria-pressed="true"]').waitFor({ state: 'visible' });
    const { id } = JSON.parse((await page.evaluate(() => localStorage.getItem('bidder-web.push-subscription')))!) as { id: string };
    await page.locator('#push-toggle').click();
    await page.locator('#push-toggle[aria-pressed="false"]').waitFor();
    expect(await page.evaluate(() => (window as unknown as { unsubscribed?: boolean }).unsubscribed)).to.equal(true);
    expect(await page.evaluate(() => localStorage.getItem('bidder-web.push-subscription'))).to.equal(null);
    const gone = await call(service.base, 'DELETE', `/v1/me/push-subscriptions/${id}`, await demoMemberToken(service.base));
    expect(gone.status, 'removed by the page already').to.equal(404);
    expect(consoleErrors).to.deep.equal([]);
  });
});
