/**
 * Contract of the VatChecker port (src/ports/vat.ts), run against every adapter: the embedded format and
 * checksum check (jsvat) and the EU's VIES service (against a fake VIES in tests; no internet here).
 *
 * The numbers below are real, published VAT numbers of large companies (valid by format, checksum and in
 * VIES) and numbers with a wrong check digit.
 */
import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkVAT, countries } from 'jsvat';
import type { VatChecker } from '../../src/ports/vat.ts';

export const VALID = {
  DE: 'DE136695976',
  NL: 'NL004495445B01',
  SE: 'SE556188840401',
  AT: 'ATU13585627',
  GR: 'EL094259216',
} as const;
/** A Dutch number with a wrong check digit. */
export const INVALID_NL = 'NL123456789B01';
/** A German number with a wrong check digit. */
export const INVALID_DE = 'DE136695977';

const EU = new Set([
  'AT',
  'BE',
  'BG',
  'CY',
  'CZ',
  'DE',
  'DK',
  'EE',
  'ES',
  'FI',
  'FR',
  'GR',
  'HR',
  'HU',
  'IE',
  'IT',
  'LT',
  'LU',
  'LV',
  'MT',
  'NL',
  'PL',
  'PT',
  'RO',
  'SE',
  'SI',
  'SK',
]);

export interface VatFixture {
  checker: VatChecker;
  /** What the adapter names as the source of its answers for EU numbers. */
  source: 'format' | 'vies';
}

export function vatCheckerContract(name: string, make: () => Promise<VatFixture>): void {
  describe(`VatChecker contract: ${name}`, function () {
    let fixture: VatFixture;
    before(async () => {
      fixture = await make();
    });

    it('answers a valid number of each EU country as valid, with its ISO country and the number as checked', async () => {
      for (const [country, number] of Object.entries(VALID)) {
        const result = await fixture.checker.check(number);
        expect(result, number).to.deep.equal({ vatNumber: number, valid: true, country, source: fixture.source });
      }
    });

    it('reads a number typed with spaces, dots, dashes and lower-case letters as the number itself', async () => {
      const result = await fixture.checker.check(' de 136.695-976 ');
      expect(result).to.deep.equal({ vatNumber: 'DE136695976', valid: true, country: 'DE', source: fixture.source });
      expect(await fixture.checker.check('nl 0044.95445.b01')).to.include({ vatNumber: 'NL004495445B01', valid: true, country: 'NL' });
    });

    it('answers a Greek number by its VAT prefix EL or its ISO code GR as Greece (GR)', async () => {
      expect(await fixture.checker.check('EL094259216')).to.include({ valid: true, country: 'GR' });
      expect(await fixture.checker.check('GR094259216')).to.include({ valid: true, country: 'GR' });
    });

    it('answers a number with a wrong check digit as not valid', async () => {
      for (const number of [INVALID_NL, INVALID_DE]) {
        const result = await fixture.checker.check(number);
        expect(result.valid, number).to.equal(false);
        expect(result.vatNumber).to.equal(number);
        expect(result.country === null || result.country === number.slice(0, 2), `${number}: ${result.country}`).to.equal(true);
      }
    });

    it('answers text that is no VAT number at all as not valid, without failing', async () => {
      for (const number of ['HELLO', 'DE', 'XX123456789', '12345678', 'NL!']) {
        const result = await fixture.checker.check(number);
        expect(result.valid, number).to.equal(false);
      }
    });

    it('never answers a number of a country outside the EU with an EU country', async () => {
      for (const number of ['CHE123456788', 'NO974760673MVA', 'GB980780684', 'EU372000041']) {
        const result = await fixture.checker.check(number);
        expect(result.country === null || !EU.has(result.country), `${number}: ${result.country}`).to.equal(true);
      }
    });

    it('gives the same answer when asked twice at once', async () => {
      const [a, b] = await Promise.all([fixture.checker.check(VALID.SE), fixture.checker.check(VALID.SE)]);
      expect(a).to.deep.equal(b);
    });
  });
}

type Behaviour = (request: { countryCode: string; vatNumber: string }, res: http.ServerResponse) => void;

/**
 * A fake VIES: POST /check-vat-number with `{countryCode, vatNumber}`. It knows exactly the numbers that pass
 * format and checksum (so the contract's expectations hold), and answers as VIES does: 200 with `valid`.
 * `behave` replaces the answer (outages, errors, delays).
 */
export async function startFakeVies() {
  const requests: Array<{ method: string; path: string; contentType: string; body: unknown }> = [];
  let behave: Behaviour | null = null;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: { countryCode: string; vatNumber: string };
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        res
          .writeHead(400, { 'Content-Type': 'application/json' })
          .end(JSON.stringify({ actionSucceed: false, errorWrappers: [{ error: 'INVALID_INPUT' }] }));
        return;
      }
      requests.push({ method: req.method!, path: req.url!, contentType: String(req.headers['content-type']), body });
      if (req.method !== 'POST' || req.url !== '/check-vat-number') {
        res.writeHead(404).end();
        return;
      }
      if (behave) {
        behave(body, res);
        return;
      }
      const valid = checkVAT(`${body.countryCode}${body.vatNumber}`, countries).isValid;
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(
        JSON.stringify({
          countryCode: body.countryCode,
          vatNumber: body.vatNumber,
          requestDate: new Date().toISOString(),
          valid,
          requestIdentifier: '',
          name: valid ? 'SOME COMPANY' : '---',
          address: valid ? 'SOME STREET 1' : '---',
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/check-vat-number`;
  return {
    url,
    requests,
    /** Replaces the answers (null: answer as VIES normally does). */
    behave(b: Behaviour | null) {
      behave = b;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
