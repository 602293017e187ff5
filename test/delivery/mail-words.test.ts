/**
 * What mails say, in the member's language: a reminder sent late says the time really left (not the lead time
 * asked for), an amount is written as the language writes money (`137,00 €`), a key's expiry as a date and time
 * of that language in the member's time zone, which it names.
 */
import { expect } from 'chai';
import path from 'node:path';
import { importRecord } from '../../app/features/intake.ts';
import { readOutbox, type OutboxFile } from '../../src/adapters/embedded/file-outbox.ts';
import { reminderMessage } from '../../commands/notifications/message.ts';
import { confirmationMail, passwordResetMail, type AccountMail } from '../../commands/members/mails.ts';
import { OUTBID_MAIL } from '../../commands/bidding/jobs.ts';
import { catalogueLots } from '../../projections/catalogue/index.ts';
import { formatMoney } from '../../src/format.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

const HOUR = 3600_000;
const ISO_TIME = /\d{4}-\d\d-\d\dT\d\d:\d\d/;

describe('Words of the mails (PRODUCTION.md "Deliveries an operator can trust")', function () {
  describe('a reminder', function () {
    const now = Date.parse('2026-11-17T18:00:00Z');
    const reminder = (language: string, left: number, minutesBefore: number) =>
      reminderMessage({
        channel: 'email',
        language,
        houseName: 'Demo Auctions',
        lotNumber: 7,
        title: 'Clock',
        endTime: now + left,
        minutesBefore,
        now,
      });

    it('sent at once for a lot that ends in about 120 hours says 120 hours, not the week asked for', function () {
      const en = reminder('en', 120 * HOUR - 90_000, 10_080);
      expect(en.subject).to.equal('Lot 7 ends in 120 hours: Clock');
      expect(en.body).to.include('You asked to be reminded 168 hours before the end.');
      expect(reminder('sv', 120 * HOUR, 10_080).subject).to.equal('Föremål 7 avslutas om 120 timmar: Clock');
      expect(reminder('de', 120 * HOUR, 10_080).subject).to.equal('Los 7 endet in 120 Stunden: Clock');
    });

    it('says minutes under two hours, "is ending" at the end, and the lead time when it is on time', function () {
      expect(reminder('en', 95 * 60_000, 10_080).subject).to.equal('Lot 7 ends in 95 minutes: Clock');
      expect(reminder('en', 20_000, 30).subject).to.equal('Lot 7 is ending: Clock');
      expect(reminder('en', 30 * 60_000 - 2_000, 30).subject, 'a queue a moment late').to.equal('Lot 7 ends in 30 minutes: Clock');
      expect(reminder('en', 2 * HOUR + 5_000, 120).subject, 'a clock a moment early').to.equal('Lot 7 ends in 2 hours: Clock');
    });
  });

  describe("a key's expiry", function () {
    const mail = (language: AccountMail['language'], timeZone: string): AccountMail => ({
      language,
      houseName: 'Demo Auctions',
      firstName: 'Greta',
      email: 'greta@example.com',
      key: 'k'.repeat(32),
      expiresAt: '2026-11-22T18:00:00.000Z',
      timeZone,
    });

    it("is a date and time of the member's language in the member's time zone, which it names", function () {
      expect(confirmationMail(mail('sv', 'Europe/Stockholm')).body).to.include('till 22 nov. 2026 19:00 Europe/Stockholm.');
      expect(passwordResetMail(mail('de', 'Europe/Berlin')).body).to.include('bis 22.11.2026, 19:00 Europe/Berlin;');
      const english = confirmationMail(mail('en', 'UTC')).body;
      expect(english).to.match(/until Nov 22, 2026, 6:00\sPM UTC\./);
      for (const text of [english, confirmationMail(mail('sv', 'UTC')).html]) expect(text).to.not.match(ISO_TIME);
    });
  });

  describe('sent by the service', function () {
    this.timeout(120_000);
    let server: TestServer;
    let token: string;
    const outbox = () => readOutbox(path.join(server.dataDir, 'outbox'));
    const settle = async () => {
      await server.runtime.services.projector.catchUp();
      await server.runtime.services.jobs.whenIdle(20_000);
    };
    const mailTo = async (match: (m: OutboxFile) => boolean) => {
      await settle();
      const found = (await outbox()).filter(match);
      expect(found, 'one mail').to.have.length(1);
      return found[0];
    };

    before(async function () {
      server = await startTestServer();
      token = await server.memberToken('demo');
      // The demo member reads Swedish, in Stockholm's time.
      const profile = await server.request('PUT', '/v1/me', { token, body: { Language: 'sv', Timezone: 'Europe/Stockholm' } });
      expect(profile.status, profile.text).to.equal(200);
      await settle();
    });
    after(async function () {
      await server?.close();
    });

    it('writes the current bid of an outbid mail as Swedish writes euros, with the cents', async function () {
      const db = server.runtime.services.documents.forTenant('demo');
      const lot = (await catalogueLots(db).find({ Closed: false })).find(
        (l) => (l.CurrentBid ?? 0) > 0 && Date.parse(l.EndTime) > Date.now() + HOUR && l.Texts.sv && l.Currency === 'EUR',
      );
      expect(lot, 'an open demo lot with a bid').to.not.equal(undefined);
      await server.runtime.services.jobs.add(
        OUTBID_MAIL,
        { tenant: 'demo', lotId: lot!.Id, memberId: 1 },
        { jobId: `outbid-words-${lot!.Id}` },
      );
      const mail = await mailTo((m) => m.Subject?.includes('överbjuden') === true);
      const amount = formatMoney(lot!.CurrentBid!, 'EUR', 'sv', 'always');
      expect(amount).to.match(/,\d\d\s€$/);
      expect(mail.Body).to.include(`Aktuellt bud: ${amount}.`).and.not.include('EUR');
    });

    it("writes a reset key's expiry in Swedish, in Stockholm's time, naming the zone", async function () {
      const asked = await server.request('POST', '/v1/password-resets', {
        token: await server.anonymousToken('demo'),
        body: { Email: server.credentials.memberEmail },
      });
      expect(asked.status, asked.text).to.equal(200);
      const mail = await mailTo((m) => m.Subject?.includes('återställ ditt lösenord') === true);
      expect(mail.Body)
        .to.match(/till \d{1,2} [a-zé]+\.? \d{4} \d\d:\d\d Europe\/Stockholm;/)
        .and.not.match(ISO_TIME);
    });

    it('sends a reminder asked a week ahead for a lot that ends in 120 hours at once, saying 120 hours', async function () {
      await importRecord(server.runtime.services.log, {
        kind: 'lot',
        tenant: 'demo',
        lotId: 5900,
        auctionId: 1,
        lotNumber: 900,
        categoryId: null,
        texts: { en: { title: 'Clock', description: '' }, sv: { title: 'Klocka', description: '' } },
        attributes: [],
        images: [],
        hotLot: false,
        vatFree: false,
        currency: 'EUR',
        startingPrice: 1000,
        estimateLow: null,
        estimateHigh: null,
        endTime: new Date(Date.now() + 120 * HOUR).toISOString(),
        combiId: null,
        ownerId: null,
      });
      await settle();
      const subscribed = await server.request('POST', '/v1/me/notifications', {
        token,
        body: { GeneralId: 5900, SendTime: 10_080, Type: 1 },
      });
      expect(subscribed.status, subscribed.text).to.equal(200);
      const mail = await mailTo((m) => m.Id === `notification-${subscribed.body.Id}`);
      expect(mail.Subject).to.equal('Föremål 900 avslutas om 120 timmar: Klocka');
      expect(mail.Body).to.include('Du bad om en påminnelse 168 timmar före slutet.');
    });
  });
});
