/**
 * PRODUCTION.md "Unsubscribing from notifications": every notification mail (a lot-end reminder, an "outbid" mail)
 * carries RFC 8058's one-click `List-Unsubscribe` and `List-Unsubscribe-Post`; a POST of
 * `List-Unsubscribe=One-Click` to the link, with no other credential, stops that kind of notification for that
 * member. Mails arrive at a real SMTP server; the link is POSTed as mailbox providers do.
 */
import { expect } from 'chai';
import { startTestServer, expectProblem, type TestServer } from '../support/server.ts';
import { startSmtpPeer, type ArrivedMail, type SmtpPeer } from '../support/mail-servers.ts';
import { importAnyRecord, importRecord, type IntakeRecord } from '../../app/features/intake.ts';
import { MailLinks } from '../../src/security/mail-links.ts';

const TIMED_AUCTION = 10;
const PUBLIC_URL = 'https://api.house.example';
const DAY = 86_400_000;

/** A header as the mail carries it (unfolded): mailparser gathers `List-*` headers into one structure of its own. */
function rawHeader(mail: ArrivedMail, name: string): string | null {
  const head = mail.raw.split(/\r?\n\r?\n/)[0].replace(/\r?\n[ \t]+/g, ' ');
  const line = head.split(/\r?\n/).find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line === undefined ? null : line.slice(name.length + 1).trim();
}

/** The link of a mail's List-Unsubscribe (`<https://…>`) as a path and query of the service under test. */
function linkOf(mail: ArrivedMail): string {
  const header = rawHeader(mail, 'List-Unsubscribe');
  expect(header, `List-Unsubscribe of "${mail.subject}"`).to.match(
    /^<https:\/\/api\.house\.example\/v1\/notifications\/unsubscribe\?token=[\w.-]+>$/,
  );
  const url = new URL(header!.slice(1, -1));
  return url.pathname + url.search;
}

describe('One-click unsubscribe from notification mails (RFC 8058, PRODUCTION.md)', function () {
  this.timeout(180_000); // the service starts in its before hook (a minute on a loaded machine)
  let smtp: SmtpPeer;
  let server: TestServer;
  const tokens = new Map<number, string>();
  const emails = new Map<number, string>();
  let lots = 8100;
  let bidLots: Array<{ Id: number; MinimumNextBid: number }> = [];

  const settle = async () => {
    await server.runtime.services.projector.catchUp();
    await server.runtime.services.jobs.whenIdle(20_000);
  };
  /** A POST to a link as a mailbox provider sends it: no Api-Key, no token, the RFC's one field. */
  const unsubscribe = (
    link: string,
    body: string | Buffer | null = 'List-Unsubscribe=One-Click',
    contentType = 'application/x-www-form-urlencoded',
  ) =>
    server.request('POST', link, { apiKey: null, ...(body === null ? {} : { rawBody: body, headers: { 'Content-Type': contentType } }) });
  const mailsTo = (memberId: number) => smtp.mails.filter((m) => m.to === emails.get(memberId));
  const eventsOf = async (type: string) => (await server.events()).filter((e) => e.type === type);
  async function importLot(endTime: number) {
    const lotId = ++lots;
    const record: IntakeRecord = {
      kind: 'lot',
      tenant: 'demo',
      lotId,
      auctionId: 1,
      lotNumber: lotId - 8000,
      categoryId: null,
      texts: { en: { title: `Clock ${lotId}`, description: 'A test lot.' } },
      attributes: [],
      images: [],
      hotLot: false,
      vatFree: false,
      currency: 'EUR',
      startingPrice: 1000,
      estimateLow: null,
      estimateHigh: null,
      endTime: new Date(endTime).toISOString(),
      combiId: null,
      ownerId: null,
    };
    await importRecord(server.runtime.services.log, record);
    await server.runtime.services.projector.catchUp();
    return { lotId, record };
  }
  const remind = async (memberId: number, lotId: number, sendTime: number) => {
    const answer = await server.request('POST', '/v1/me/notifications', {
      token: tokens.get(memberId),
      body: { GeneralId: lotId, SendTime: sendTime, Type: 1 },
    });
    expect(answer.status, answer.text).to.equal(200);
    return answer.body.Id as string;
  };
  /** A bid on a lot of the timed auction: its minimum next bid times `times`. */
  const bid = async (memberId: number, lot: { Id: number; MinimumNextBid: number }, times: number) => {
    const body = { LotId: lot.Id, MaxAmount: lot.MinimumNextBid * times };
    const answer = await server.request('POST', '/v1/me/bids', { token: tokens.get(memberId), body });
    expect(answer.status, answer.text).to.equal(200);
  };

  before(async function () {
    smtp = await startSmtpPeer();
    server = await startTestServer({
      env: { SMTP_URL: smtp.url, MAIL_FROM: 'Bidder Service <noreply@service.example.test>', DELIVERY_FIRST_RETRY_MS: '200', PUBLIC_URL },
    });
    for (const memberId of [301, 302, 303]) {
      emails.set(memberId, `unsubscriber-${memberId}@example.com`);
      await importAnyRecord(server.runtime.services.log, {
        kind: 'member',
        tenant: 'demo',
        memberId,
        email: emails.get(memberId),
        password: 'a long enough password 123',
        firstName: 'Ulla',
        lastName: String(memberId),
        language: 'en',
        signedUpAt: new Date().toISOString(),
        confirmed: true,
        roles: ['bidder'],
      });
    }
    await server.runtime.services.projector.catchUp();
    for (const memberId of [301, 302, 303]) {
      tokens.set(memberId, server.issueMemberToken('demo', memberId));
      const registered = await server.request('POST', `/v1/me/registrations/${TIMED_AUCTION}`, { token: tokens.get(memberId) });
      expect(registered.status, registered.text).to.equal(200);
    }
    const page = await server.request('GET', `/v1/lots?AuctionId=${TIMED_AUCTION}&pageSize=10`, { token: await server.anonymousToken() });
    bidLots = page.body.Items as Array<{ Id: number; MinimumNextBid: number }>;
    await settle();
  });
  after(async function () {
    await server?.close();
    await smtp?.close();
  });

  it('puts List-Unsubscribe (an https URL) and List-Unsubscribe-Post on reminder and outbid mails, and neither on account mails', async function () {
    const { lotId } = await importLot(Date.now() + 3600_000);
    await remind(301, lotId, 120); // due at once: the lot ends within the two hours asked for
    await bid(302, bidLots[0], 1);
    await bid(301, bidLots[0], 3); // 302 loses the lead
    expect(
      (await server.request('POST', '/v1/password-resets', { token: await server.anonymousToken(), body: { Email: emails.get(303) } }))
        .status,
    ).to.equal(200);
    await settle();
    const reminder = mailsTo(301).find((m) => m.subject.includes(`Clock ${lotId}`))!;
    const outbid = mailsTo(302).find((m) => m.subject.includes('outbid'))!;
    const reset = mailsTo(303).find((m) => m.subject.includes('reset'))!;
    for (const mail of [reminder, outbid]) {
      linkOf(mail);
      expect(rawHeader(mail, 'List-Unsubscribe-Post'), mail.subject).to.equal('List-Unsubscribe=One-Click');
    }
    expect(linkOf(reminder)).to.not.equal(linkOf(outbid));
    expect(rawHeader(reset, 'List-Unsubscribe')).to.equal(null);
    expect(rawHeader(reset, 'List-Unsubscribe-Post')).to.equal(null);
  });

  it("a POST of the reminder link removes the member's pending reminders by e-mail, once; a reminder asked for later is sent", async function () {
    const link = linkOf(mailsTo(301).find((m) => rawHeader(m, 'List-Unsubscribe') && !m.subject.includes('outbid'))!);
    const later = await importLot(Date.now() + 2 * 3600_000);
    const pending = await remind(301, later.lotId, 60); // due in an hour
    const before = (await eventsOf('NotificationMailsStopped')).length;

    const answer = await unsubscribe(link);
    expect(answer.status, answer.text).to.equal(200);
    expect(answer.body).to.deep.equal({ Kind: 'reminder', AuctionId: null });
    const stopped = (await eventsOf('NotificationMailsStopped')).slice(before);
    expect(stopped.map((e) => e.data)).to.deep.equal([
      { tenant: 'demo', memberId: 301, kind: 'reminder', auctionId: null, linkId: stopped[0]?.data.linkId, at: stopped[0]?.data.at },
    ]);
    expect((await eventsOf('NotificationUnsubscribed')).map((e) => e.data.subscriptionId)).to.include(pending);

    // The lot's end moves closer: the removed reminder would be due now, and is not sent.
    await importRecord(server.runtime.services.log, { ...later.record, endTime: new Date(Date.now() + 1800_000).toISOString() });
    await settle();
    expect(mailsTo(301).filter((m) => m.subject.includes(`Clock ${later.lotId}`))).to.deep.equal([]);
    // The same link again: 404, nothing appended.
    await expectProblem(await unsubscribe(link), 404, 'unsubscribe-link-used');
    expect(await eventsOf('NotificationMailsStopped')).to.have.length(before + 1);
    // A reminder the member asks for afterwards is a new wish: it is sent.
    await remind(301, later.lotId, 60);
    await settle();
    expect(mailsTo(301).filter((m) => m.subject.includes(`Clock ${later.lotId}`))).to.have.length(1);
  });

  it('a POST of the outbid link (multipart/form-data) stops the outbid mails of that auction for that member only', async function () {
    const link = linkOf(mailsTo(302).find((m) => m.subject.includes('outbid'))!);
    const boundary = '----one-click-7MA4YWxkTrZu0gW';
    const body = `--${boundary}\r\nContent-Disposition: form-data; name="List-Unsubscribe"\r\n\r\nOne-Click\r\n--${boundary}--\r\n`;
    const answer = await unsubscribe(link, body, `multipart/form-data; boundary=${boundary}`);
    expect(answer.status, answer.text).to.equal(200);
    expect(answer.body).to.deep.equal({ Kind: 'outbid', AuctionId: TIMED_AUCTION });

    const before = { 302: mailsTo(302).length, 301: mailsTo(301).length };
    await bid(302, bidLots[1], 1);
    await bid(301, bidLots[1], 3); // 302 loses the lead: no mail
    await bid(303, bidLots[2], 1);
    await bid(302, bidLots[2], 3); // 303 loses the lead: a mail to 303
    await bid(301, bidLots[3], 1);
    await bid(302, bidLots[3], 3); // 301 loses the lead: 301 stopped reminders, not outbid mails
    await settle();
    expect(mailsTo(302).slice(before[302])).to.deep.equal([]);
    expect(
      mailsTo(301)
        .slice(before[301])
        .map((m) => m.subject),
    ).to.deep.equal(['Demo Auctions: You have been outbid']);
    expect(mailsTo(303).filter((m) => m.subject.includes('outbid'))).to.have.length(1);
  });

  it('a GET of the link (a mail scanner following it) changes nothing: 405, and the link still works', async function () {
    const { lotId } = await importLot(Date.now() + 3600_000);
    await remind(303, lotId, 120);
    await settle();
    const link = linkOf(mailsTo(303).find((m) => m.subject.includes(`Clock ${lotId}`))!);
    const before = (await eventsOf('NotificationMailsStopped')).length;
    const scanned = await server.request('GET', link, { apiKey: null });
    await expectProblem(scanned, 405, 'method-not-allowed');
    expect(scanned.headers.get('allow')).to.equal('POST');
    expect(await eventsOf('NotificationMailsStopped')).to.have.length(before);
    expect((await unsubscribe(link)).status).to.equal(200);
  });

  it("refuses a link of another house, a changed, foreign, expired or missing token with 400, and names the house's own member only", async function () {
    const links = server.runtime.services.links;
    const before = (await server.events()).length;
    const { token } = links.unsubscribe({ tenant: 'demo', memberId: 301, kind: 'outbid', scope: TIMED_AUCTION }, Date.now());
    const [payload, mac] = token.split('.');
    const fields = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as unknown[];
    const forged = (change: (f: unknown[]) => void) => {
      const copy = [...fields];
      change(copy);
      return `${Buffer.from(JSON.stringify(copy)).toString('base64url')}.${mac}`;
    };
    const path = (t: string) => `/v1/notifications/unsubscribe?token=${t}`;
    // The house's id changed (another house's member of the same id), or the member's: the signature fails.
    await expectProblem(await unsubscribe(path(forged((f) => (f[1] = 'demo2')))), 400, 'unsubscribe-link-invalid');
    await expectProblem(await unsubscribe(path(forged((f) => (f[2] = 302)))), 400, 'unsubscribe-link-invalid');
    // Signed with another secret (another deployment), cut short, or none at all.
    const foreign = new MailLinks(Buffer.alloc(32, 7), PUBLIC_URL).unsubscribe(
      { tenant: 'demo', memberId: 301, kind: 'reminder', scope: null },
      Date.now(),
    );
    await expectProblem(await unsubscribe(path(foreign.token)), 400, 'unsubscribe-link-invalid');
    await expectProblem(await unsubscribe(path(token.slice(0, -3))), 400, 'unsubscribe-link-invalid');
    await expectProblem(await unsubscribe('/v1/notifications/unsubscribe'), 400, 'unsubscribe-link-invalid');
    const old = links.unsubscribe({ tenant: 'demo', memberId: 301, kind: 'reminder', scope: null }, Date.now() - 91 * DAY);
    await expectProblem(await unsubscribe(path(old.token)), 400, 'unsubscribe-link-expired');
    expect((await server.events()).length, 'nothing appended').to.equal(before);

    // A link of demo2's member 1 stops demo2's member 1, never demo's member of the same id.
    const theirs = links.unsubscribe({ tenant: 'demo2', memberId: 1, kind: 'reminder', scope: null }, Date.now());
    expect((await unsubscribe(path(theirs.token))).status).to.equal(200);
    const [stopped] = (await server.events()).slice(before).filter((e) => e.type === 'NotificationMailsStopped');
    expect(stopped).to.deep.include({ streamId: 'notifications-demo2-1' });
    expect(stopped.data).to.include({ tenant: 'demo2', memberId: 1 });
  });

  it('takes only the one field RFC 8058 names, as a form: another value 400, JSON 415, no body 400', async function () {
    const { url } = server.runtime.services.links.unsubscribe(
      { tenant: 'demo', memberId: 303, kind: 'outbid', scope: TIMED_AUCTION },
      Date.now(),
    );
    const link = url.slice(PUBLIC_URL.length);
    const before = (await server.events()).length;
    await expectProblem(await unsubscribe(link, 'List-Unsubscribe=Yes'), 400, 'validation-failed');
    await expectProblem(
      await unsubscribe(link, JSON.stringify({ 'List-Unsubscribe': 'One-Click' }), 'application/json'),
      415,
      'unsupported-media-type',
    );
    await expectProblem(await unsubscribe(link, null), 400, 'validation-failed');
    await expectProblem(await unsubscribe(link, 'List-Unsubscribe=One-Click&List-Unsubscribe=One-Click'), 400, 'validation-failed');
    expect((await server.events()).length).to.equal(before);
    expect((await unsubscribe(link)).status).to.equal(200);
  });
});
