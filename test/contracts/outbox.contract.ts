/**
 * Contract of the Outbox port (src/ports/outbox.ts), run against every adapter: the embedded file outbox
 * and, later, SMTP / an SMS gateway.
 *
 * makeOutbox() returns an outbox and, when the adapter can tell, delivered(): the messages it has
 * actually delivered so far (for SMTP: read back from a test mailbox such as MailHog). Without
 * delivered() the suite checks only what send() returns. Message ids are unique per test run.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { OutgoingMessage, Outbox } from '../../src/ports/outbox.ts';

export interface DeliveredMessage {
  id: string;
  channel: 'mail' | 'sms';
  to: string;
  subject?: string | null;
  body: string;
}

export interface OutboxFixture {
  outbox: Outbox;
  delivered?: () => Promise<DeliveredMessage[]>;
}

export function outboxContract(name: string, makeOutbox: () => Promise<OutboxFixture>): void {
  describe(`Outbox contract: ${name}`, function () {
    let fixture: OutboxFixture;
    let run: string;

    const message = (label: string, extra: Partial<OutgoingMessage> = {}): OutgoingMessage => ({
      id: `${run}-${label}`,
      channel: 'mail',
      tenant: 'tenant-a',
      to: 'bidder@example.test',
      subject: 'Your bid',
      body: `Hello ${label}`,
      ...extra,
    });

    const deliveredWithId = async (id: string) => (fixture.delivered ? (await fixture.delivered()).filter((m) => m.id === id) : undefined);

    beforeEach(async function () {
      run = randomUUID();
      fixture = await makeOutbox();
    });

    it('delivers a sent mail', async function () {
      const mail = message('mail', { replyTo: 'auction@example.test' });
      expect(await fixture.outbox.send(mail)).to.deep.equal({ delivered: true });
      const delivered = await deliveredWithId(mail.id);
      if (delivered) {
        expect(delivered).to.have.length(1);
        expect(delivered[0]).to.deep.include({ channel: 'mail', to: mail.to, subject: mail.subject, body: mail.body });
      }
    });

    it('delivers a sent sms, which has no subject', async function () {
      const sms = message('sms', { channel: 'sms', to: '+32470000000', subject: undefined, body: 'Outbid on lot 12' });
      expect(await fixture.outbox.send(sms)).to.deep.equal({ delivered: true });
      const delivered = await deliveredWithId(sms.id);
      if (delivered) {
        expect(delivered).to.have.length(1);
        expect(delivered[0]).to.deep.include({ channel: 'sms', to: sms.to, body: sms.body });
      }
    });

    it('delivers a message sent twice with the same id once', async function () {
      const mail = message('twice');
      expect(await fixture.outbox.send(mail)).to.deep.equal({ delivered: true });
      expect(await fixture.outbox.send({ ...mail, body: 'a second body' })).to.deep.equal({ delivered: false });
      const delivered = await deliveredWithId(mail.id);
      if (delivered) {
        expect(delivered).to.have.length(1);
        expect(delivered[0].body).to.equal(mail.body);
      }
    });

    it('delivers once when the same id is sent twice at the same time', async function () {
      const mail = message('race');
      const results = await Promise.all([fixture.outbox.send(mail), fixture.outbox.send(mail)]);
      expect(results.filter((r) => r.delivered)).to.have.length(1);
      const delivered = await deliveredWithId(mail.id);
      if (delivered) expect(delivered).to.have.length(1);
    });

    it('delivers messages with different ids separately', async function () {
      const a = message('a');
      const b = message('b', { to: 'other@example.test' });
      expect((await fixture.outbox.send(a)).delivered).to.equal(true);
      expect((await fixture.outbox.send(b)).delivered).to.equal(true);
      if (fixture.delivered) {
        const ids = (await fixture.delivered()).map((m) => m.id);
        expect(ids).to.include.members([a.id, b.id]);
      }
    });
  });
}
