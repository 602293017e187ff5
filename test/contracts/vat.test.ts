/**
 * The VatChecker contract against the embedded jsvat adapter and the VIES adapter (talking to a fake VIES on
 * 127.0.0.1), and what only the VIES adapter promises: the request it sends, and that every failure to get an
 * answer (timeouts, outages, errors) throws VatCheckUnavailableError instead of deciding anything.
 */
import { expect } from 'chai';
import type http from 'node:http';
import { JsvatChecker } from '../../src/adapters/embedded/jsvat-checker.ts';
import { createVatChecker, ViesChecker } from '../../src/adapters/vies/vies-checker.ts';
import { VatCheckUnavailableError } from '../../src/ports/vat.ts';
import { startFakeVies, vatCheckerContract, VALID } from './vat.contract.ts';

const json = (res: http.ServerResponse, status: number, body: unknown) =>
  res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));

describe('VAT checkers', () => {
  let vies: Awaited<ReturnType<typeof startFakeVies>>;
  before(async () => {
    vies = await startFakeVies();
  });
  after(async () => vies?.close());

  vatCheckerContract('embedded (jsvat: format and checksum)', async () => ({ checker: new JsvatChecker(), source: 'format' }));
  vatCheckerContract('VIES (a fake VIES on 127.0.0.1)', async () => ({
    checker: new ViesChecker({ url: vies.url, timeoutMs: 2000 }),
    source: 'vies',
  }));

  describe('the VIES adapter', () => {
    const checker = () => new ViesChecker({ url: vies.url, timeoutMs: 500 });
    afterEach(() => vies.behave(null));

    const rejects = async (promise: Promise<unknown>, message?: RegExp) => {
      let error: unknown = null;
      try {
        await promise;
      } catch (e) {
        error = e;
      }
      expect(error, 'the check should have failed').to.be.instanceOf(VatCheckUnavailableError);
      if (message) expect((error as Error).message).to.match(message);
    };

    it('asks VIES with a JSON POST of the country prefix and the number without it (Greece as EL)', async () => {
      vies.requests.length = 0;
      await checker().check('de 136.695.976');
      await checker().check('GR094259216');
      expect(vies.requests).to.deep.equal([
        { method: 'POST', path: '/check-vat-number', contentType: 'application/json', body: { countryCode: 'DE', vatNumber: '136695976' } },
        { method: 'POST', path: '/check-vat-number', contentType: 'application/json', body: { countryCode: 'EL', vatNumber: '094259216' } },
      ]);
    });

    it("takes VIES's word over the checksum: a number VIES does not know is not valid, one it knows is", async () => {
      vies.behave((r, res) => json(res, 200, { countryCode: r.countryCode, vatNumber: r.vatNumber, valid: false }));
      expect(await checker().check(VALID.DE)).to.deep.equal({ vatNumber: VALID.DE, valid: false, country: 'DE', source: 'vies' });
      vies.behave((r, res) => json(res, 200, { countryCode: r.countryCode, vatNumber: r.vatNumber, valid: true }));
      expect(await checker().check('DE136695977')).to.deep.equal({ vatNumber: 'DE136695977', valid: true, country: 'DE', source: 'vies' });
    });

    it("answers VIES's INVALID_INPUT as not valid", async () => {
      vies.behave((_r, res) => json(res, 400, { actionSucceed: false, errorWrappers: [{ error: 'INVALID_INPUT', message: 'bad' }] }));
      expect(await checker().check(VALID.NL)).to.include({ valid: false, country: 'NL', source: 'vies' });
      vies.behave((_r, res) => json(res, 200, { valid: false, userError: 'INVALID_INPUT' }));
      expect(await checker().check(VALID.NL)).to.include({ valid: false });
    });

    it("fails (nothing decided) when a member state's service or VIES is unavailable or busy", async () => {
      for (const error of ['MS_UNAVAILABLE', 'SERVICE_UNAVAILABLE', 'TIMEOUT', 'MS_MAX_CONCURRENT_REQ', 'GLOBAL_MAX_CONCURRENT_REQ']) {
        vies.behave((_r, res) => json(res, 200, { actionSucceed: false, errorWrappers: [{ error, message: 'try later' }] }));
        await rejects(checker().check(VALID.DE), new RegExp(error));
        vies.behave((_r, res) => json(res, 500, { actionSucceed: false, errorWrappers: [{ error }] }));
        await rejects(checker().check(VALID.DE), new RegExp(error));
        vies.behave((_r, res) => json(res, 200, { valid: false, userError: error }));
        await rejects(checker().check(VALID.DE), new RegExp(error));
      }
    });

    it('fails on an error status, a body that is not JSON, or JSON without an answer', async () => {
      vies.behave((_r, res) => res.writeHead(503, { 'Content-Type': 'text/html' }).end('<html>Service Unavailable</html>'));
      await rejects(checker().check(VALID.DE), /503/);
      vies.behave((_r, res) => json(res, 502, { message: 'bad gateway' }));
      await rejects(checker().check(VALID.DE), /502/);
      vies.behave((_r, res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"valid": tru'));
      await rejects(checker().check(VALID.DE));
      vies.behave((_r, res) => json(res, 200, { countryCode: 'DE' }));
      await rejects(checker().check(VALID.DE), /without saying/);
      vies.behave((_r, res) => json(res, 200, ['valid']));
      await rejects(checker().check(VALID.DE));
    });

    it('fails within its timeout when VIES does not answer, or answers too slowly', async () => {
      vies.behave(() => undefined);
      let started = Date.now();
      await rejects(checker().check(VALID.DE), /within 500 ms/);
      expect(Date.now() - started).to.be.within(400, 2000);

      // Headers at once, the body never finished: the timeout covers the body too.
      vies.behave((_r, res) => {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.write('{"valid":');
      });
      started = Date.now();
      await rejects(checker().check(VALID.DE));
      expect(Date.now() - started).to.be.within(400, 2000);
    });

    it('fails when VIES cannot be reached', async () => {
      const closed = await startFakeVies();
      const url = closed.url;
      await closed.close();
      await rejects(new ViesChecker({ url, timeoutMs: 1000 }).check(VALID.DE), /could not be reached/);
    });

    it('does not call VIES for a number of a country outside VIES, nor for one no member state could have', async () => {
      vies.requests.length = 0;
      expect(await checker().check('CHE123456788')).to.include({ valid: true, country: 'CH', source: 'format' });
      expect(await checker().check('HELLO')).to.include({ valid: false });
      expect(await checker().check('DE!')).to.include({ valid: false });
      expect(await checker().check('DE12345678901234567')).to.include({ valid: false, country: 'DE', source: 'vies' });
      expect(vies.requests).to.deep.equal([]);
    });

    it('is the checker only when VIES_URL is configured', () => {
      expect(createVatChecker({ viesUrl: null })).to.be.instanceOf(JsvatChecker);
      expect(createVatChecker({ viesUrl: vies.url, viesTimeoutMs: 5000 })).to.be.instanceOf(ViesChecker);
      expect(() => new ViesChecker({ url: 'ftp://example.com' })).to.throw(/http/);
    });
  });
});
