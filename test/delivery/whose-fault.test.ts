/**
 * Whose fault a failed delivery is (PRODUCTION.md "Deliveries an operator can trust"), decided from nodemailer's
 * errors and Twilio's answers as they come: the set-up's (the channel, or one sender, is down and its messages wait),
 * one recipient's (that message ends), or nobody's yet (tried again). Replies are masked; a channel that is down
 * holds its messages between probes, with doubling waits.
 */
import { expect } from 'chai';
import { classifySmtp } from '../../src/adapters/delivery/smtp.ts';
import { classifyTwilio } from '../../src/adapters/delivery/twilio.ts';
import { maskPersonalData } from '../../src/adapters/delivery/mask.ts';
import { ChannelStates, MAX_DOWN_WAIT_MS } from '../../src/adapters/delivery/channel-states.ts';
import { DeliveryError } from '../../src/adapters/delivery/transport.ts';

/** An error as nodemailer's SMTP connection makes one (`_formatError`). */
const smtpError = (code: string, response: string | null, command: string) =>
  Object.assign(new Error(response ? `failed: ${response}` : 'failed'), {
    code,
    command,
    ...(response ? { response, responseCode: Number(response.slice(0, 3)) } : {}),
  });

describe('Whose fault a failed delivery is', function () {
  describe('SMTP', function () {
    const cases: Array<[string, ReturnType<typeof smtpError>, string, string | null]> = [
      ['535 to AUTH', smtpError('EAUTH', '535 5.7.8 Error: authentication failed', 'AUTH PLAIN'), 'setup', null],
      ['530 to MAIL FROM (no login)', smtpError('EENVELOPE', '530 5.7.0 Authentication required', 'MAIL FROM'), 'setup', null],
      ['534 to AUTH', smtpError('EAUTH', '534 5.7.9 Application-specific password required', 'AUTH LOGIN'), 'setup', null],
      [
        '554 to MAIL FROM',
        smtpError('EENVELOPE', '554 5.7.1 <noreply@house.example>: Sender address rejected', 'MAIL FROM'),
        'setup',
        'sender',
      ],
      ['553 to MAIL FROM', smtpError('EENVELOPE', '553 5.7.1 Sender not owned by user', 'MAIL FROM'), 'setup', 'sender'],
      ['550 to MAIL FROM', smtpError('EENVELOPE', '550 5.7.1 Not allowed', 'MAIL FROM'), 'setup', 'sender'],
      [
        '553 naming the sender, at RCPT TO',
        smtpError('EENVELOPE', '553 5.7.1 <a@b.example>: Sender address rejected: not owned by user x', 'RCPT TO'),
        'setup',
        'sender',
      ],
      [
        '554 relay access denied, at RCPT TO',
        smtpError('EENVELOPE', '554 5.7.1 <bidder@example.org>: Relay access denied', 'RCPT TO'),
        'setup',
        null,
      ],
      [
        'a refused connection',
        Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:2525'), { code: 'ESOCKET', command: 'CONN' }),
        'setup',
        null,
      ],
      ['a time-out', Object.assign(new Error('Connection timeout'), { code: 'ETIMEDOUT', command: 'CONN' }), 'setup', null],
      [
        'an unverified certificate',
        Object.assign(new Error('self-signed certificate'), { code: 'ESOCKET', command: 'CONN' }),
        'setup',
        null,
      ],
      ['STARTTLS refused', Object.assign(new Error('Error initiating TLS'), { code: 'ETLS', command: 'STARTTLS' }), 'setup', null],
      [
        '550 to RCPT TO',
        smtpError('EENVELOPE', '550 5.1.1 <bidder@example.org>: Recipient address rejected: User unknown', 'RCPT TO'),
        'recipient',
        null,
      ],
      ['551 to RCPT TO', smtpError('EENVELOPE', '551 5.1.6 User has moved', 'RCPT TO'), 'recipient', null],
      ['553 to RCPT TO', smtpError('EENVELOPE', '553 5.1.3 Bad recipient address syntax', 'RCPT TO'), 'recipient', null],
      ['552 to DATA', smtpError('EMESSAGE', '552 5.2.2 Mailbox full', 'DATA'), 'recipient', null],
      ['451 to RCPT TO', smtpError('EENVELOPE', '451 4.3.0 Try again later', 'RCPT TO'), 'temporary', null],
      ['421 at the greeting', smtpError('ECONNECTION', '421 4.3.2 Service not available', 'CONN'), 'temporary', null],
      ['454 to AUTH', smtpError('EAUTH', '454 4.7.0 Temporary authentication failure', 'AUTH PLAIN'), 'temporary', null],
    ];
    for (const [what, error, kind, scope] of cases)
      it(`${what}: ${kind}${scope ? ' (that sender only)' : ''}`, function () {
        const failure = classifySmtp(error, 'noreply@house.example');
        expect(failure.kind).to.equal(kind);
        expect(failure.sender).to.equal(scope === 'sender' ? 'noreply@house.example' : null);
        if (kind === 'recipient') expect(failure.reason).to.equal('recipient-refused');
      });

    it('masks the addresses in the reply it keeps and the message the queue logs', function () {
      const failure = classifySmtp(smtpError('EENVELOPE', '554 5.7.1 <bidder@example.org>: Relay access denied', 'RCPT TO'));
      expect(failure.reply).to.equal('554 5.7.1 <b…@example.org>: Relay access denied');
      expect(failure.message).to.equal('SMTP relay refused: 554 5.7.1 <b…@example.org>: Relay access denied');
    });
  });

  describe('Twilio', function () {
    const cases: Array<[number, number | null, string, string | null]> = [
      [401, 20003, 'setup', null],
      [403, 20403, 'setup', null],
      [404, 20404, 'setup', null],
      [400, 21606, 'setup', null],
      [400, 21211, 'recipient', 'invalid-number'],
      [400, 21614, 'recipient', 'invalid-number'],
      [400, 21610, 'recipient', 'recipient-refused'],
      [400, 21617, 'recipient', 'recipient-refused'],
      [429, 20429, 'temporary', null],
      [500, null, 'temporary', null],
      [503, null, 'temporary', null],
    ];
    for (const [status, code, kind, reason] of cases)
      it(`${status}${code ? ` with code ${code}` : ''}: ${kind}${reason ? ` (${reason})` : ''}`, function () {
        const failure = classifyTwilio(status, { code: code ?? undefined, message: 'x' });
        expect(failure.kind).to.equal(kind);
        expect(failure.reason).to.equal(reason);
      });

    it('masks the number in the reply', function () {
      const failure = classifyTwilio(400, { code: 21211, message: "The 'To' number +46701234533 is not a valid phone number." });
      expect(failure.reply).to.equal("400 code 21211 The 'To' number +46…33 is not a valid phone number.");
    });
  });

  describe('masking', function () {
    it('masks addresses and numbers, and leaves codes, ids and network addresses alone', function () {
      expect(maskPersonalData('550 5.1.1 <a.b+c@mail.example.co.uk>... User unknown')).to.equal(
        '550 5.1.1 <a…@mail.example.co.uk>... User unknown',
      );
      expect(maskPersonalData('+46 70-123 45 33, 0046701234533')).to.equal('+46…33, 00…33');
      for (const text of [
        '250 2.0.0 Ok: queued as 4F2A1B',
        'ECONNREFUSED 127.0.0.1:2525',
        '201 SM00000000000000000000000000000001',
        'code 21211',
      ])
        expect(maskPersonalData(text)).to.equal(text);
    });
  });

  describe('a channel that is down', function () {
    const lines: string[] = [];
    const logger = {
      info: (_: object, msg: string) => lines.push(`info ${msg}`),
      error: (_: object, msg: string) => lines.push(`error ${msg}`),
    };
    const refused = () => new DeliveryError('setup', { about: 'SMTP authentication refused', reply: '535 5.7.8 failed' });

    it('holds its messages between probes whose waits double up to the cap, says so once, and lets them go when a probe gets through', function () {
      lines.length = 0;
      let now = 1_000_000;
      const states = new ChannelStates(['mail', 'sms'], 1000, logger, () => now);
      expect(states.hold('mail', null)).to.equal(null);
      expect(states.failed('mail', refused())).to.equal(1000);
      expect(states.hold('mail', null)).to.equal(1000);
      expect(states.hold('sms', null), 'the other channel').to.equal(null);
      now += 1000;
      expect(states.hold('mail', null), 'the probe').to.equal(null);
      expect(states.hold('mail', null), 'while the probe runs').to.equal(1000);
      expect(states.failed('mail', refused())).to.equal(2000);
      let wait = 2000;
      for (let i = 0; i < 12; i++) {
        now += wait;
        expect(states.hold('mail', null)).to.equal(null);
        wait = states.failed('mail', refused());
      }
      expect(wait).to.equal(MAX_DOWN_WAIT_MS);
      expect(states.status().mail).to.deep.include({ state: 'down', about: 'SMTP authentication refused' });
      expect(lines).to.deep.equal([
        'error mail channel down: SMTP authentication refused; its messages are kept and tried again until it is fixed',
      ]);
      states.up('mail', null);
      expect(states.hold('mail', null)).to.equal(null);
      expect(states.status()).to.deep.equal({ mail: { state: 'up' }, sms: { state: 'up' } });
      expect(lines[1]).to.equal('info mail channel up again: its held messages go out');
    });

    it('holds only the messages of a sender the server refuses', function () {
      const states = new ChannelStates(['mail'], 1000, logger, () => 0);
      const failure = refused();
      failure.sender = 'Auktion@Demo.example.com';
      states.failed('mail', failure);
      expect(states.hold('mail', 'auktion@demo.example.com')).to.equal(1000);
      expect(states.hold('mail', 'noreply@service.example')).to.equal(null);
      expect(states.status().mail).to.deep.equal({ state: 'up', sendersDown: 1 });
    });
  });
});
