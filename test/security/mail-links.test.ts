// The links mails carry (src/security/mail-links.ts): under PUBLIC_URL or as paths, and one-click unsubscribe
// links whose signed token names house, member, kind and scope, expires, and survives no change.
import { expect } from 'chai';
import { MailLinks, UNSUBSCRIBE_LINK_DAYS } from '../../src/security/mail-links.ts';

const DAY = 86_400_000;
const NOW = Date.parse('2026-11-22T10:00:00.000Z');
const secret = Buffer.alloc(32, 1);
const scope = { tenant: 'demo', memberId: 7, kind: 'outbid', scope: 10 };

describe('mail links', () => {
  it('puts paths under PUBLIC_URL, or leaves them paths', () => {
    expect(new MailLinks(secret, 'https://api.house.example').url('/v1/me/invoices/2/pdf')).to.equal(
      'https://api.house.example/v1/me/invoices/2/pdf',
    );
    expect(new MailLinks(secret, null).url('/v1/me/invoices/2/pdf')).to.equal('/v1/me/invoices/2/pdf');
  });

  it('makes each unsubscribe link unique, its token read back as its claims until it expires', () => {
    const links = new MailLinks(secret, 'https://api.house.example');
    const a = links.unsubscribe(scope, NOW);
    const b = links.unsubscribe(scope, NOW);
    expect(a.url).to.equal(`https://api.house.example/v1/notifications/unsubscribe?token=${a.token}`);
    expect(a.token).to.match(/^[\w-]+\.[\w-]{43}$/);
    expect(a.token).to.not.equal(b.token);
    const check = links.verify(a.token, NOW + DAY);
    expect(check.ok && check.claims).to.deep.include({
      ...scope,
      issuedAt: NOW / 1000,
      expiresAt: NOW / 1000 + UNSUBSCRIBE_LINK_DAYS * 86_400,
    });
    expect(links.verify(a.token, NOW + UNSUBSCRIBE_LINK_DAYS * DAY - 1000).ok).to.equal(true);
    expect(links.verify(a.token, NOW + UNSUBSCRIBE_LINK_DAYS * DAY)).to.deep.equal({ ok: false, reason: 'expired' });
  });

  it('refuses a token changed anywhere, signed with another secret, or not a token at all', () => {
    const links = new MailLinks(secret, null);
    const { token } = links.unsubscribe(scope, NOW);
    const [body, mac] = token.split('.');
    const flip = (text: string, at: number) => text.slice(0, at) + (text[at] === 'A' ? 'B' : 'A') + text.slice(at + 1);
    for (const bad of [flip(body, 5), `${body}.${flip(mac, 3)}`, `${body}.${mac}.x`, body, '', 'a.b', `${body}.${mac}`.repeat(10)])
      expect(links.verify(bad, NOW), bad.slice(0, 40)).to.deep.equal({ ok: false, reason: 'invalid' });
    expect(new MailLinks(Buffer.alloc(32, 2), null).verify(token, NOW)).to.deep.equal({ ok: false, reason: 'invalid' });
  });

  it('makes links only for a house, a member id, a kind and an id or null', () => {
    const links = new MailLinks(secret, null);
    for (const wrong of [{ tenant: 'Demo House' }, { memberId: 0 }, { kind: 'Outbid!' }, { scope: 1.5 }])
      expect(() => links.unsubscribe({ ...scope, ...wrong }, NOW)).to.throw(TypeError);
    expect(() => new MailLinks(Buffer.alloc(16), null)).to.throw(/32 bytes/);
  });
});
