import { expect } from 'chai';
import { startTestServer, type TestServer } from '../support/server.ts';
import { importRecord } from '../../app/features/intake.ts';
import { foldText } from '../../src/text/fold.ts';

/**
 * One rule folds text for matching everywhere (src/text/fold.ts): the lot index, the catalogue's stored
 * sort titles and attribute values, and the filters that compare with them. So `SearchTerms` on
 * GET /v1/lots, `q` on GET /v1/lots/search and `MetaDataProperties` agree on which spellings are one word.
 */

describe('foldText', () => {
  it('lower-cases', () => {
    expect(foldText('OAK Chair')).to.equal('oak chair');
  });

  it('drops accents: é, ö, å, ñ, ç, ü', () => {
    expect(foldText('Café Ölstuga Åland Señor Garçon Düsseldorf')).to.equal('cafe olstuga aland senor garcon dusseldorf');
  });

  it('drops accents of upper-case letters too, and of letters written as a letter plus a combining mark', () => {
    expect(foldText('ÉCOLE')).to.equal('ecole');
    expect(foldText('Cafe\u0301')).to.equal('cafe');
  });

  it('spells out the letters that are not an accented base letter: ß, æ, œ, ø, ł, đ, ð, þ, ı', () => {
    expect(foldText('Größe')).to.equal('grosse');
    expect(foldText('GRÖSSE')).to.equal('grosse');
    expect(foldText('Ærø')).to.equal('aero');
    expect(foldText('Œuvre')).to.equal('oeuvre');
    expect(foldText('Łódź')).to.equal('lodz');
    expect(foldText('Đakovo Ðorð Þingvellir Kırşehir')).to.equal('dakovo dord thingvellir kirsehir');
  });

  it('leaves ASCII text as it is, but lower-cased, and keeps digits, spaces and punctuation', () => {
    expect(foldText('Lot 42: Tea-caddy, c. 1790!')).to.equal('lot 42: tea-caddy, c. 1790!');
    expect(foldText('')).to.equal('');
  });

  it('keeps letters of scripts without accents to drop', () => {
    expect(foldText('Москва')).to.equal('москва');
    expect(foldText('東京')).to.equal('東京');
  });

  it('is idempotent: folding folded text changes nothing', () => {
    for (const text of ['Größe', 'Ærø', 'Café', 'Łódź', 'plain']) {
      expect(foldText(foldText(text))).to.equal(foldText(text));
    }
  });
});

describe('Text folding over HTTP: SearchTerms, q and MetaDataProperties agree', () => {
  let server: TestServer;
  let token: string;
  const get = (path: string) => server.request('GET', path, { token });
  /** Our two lots: the same words, with their accents (9101) and in plain ASCII (9102). */
  const OURS = [9101, 9102];

  before(async () => {
    server = await startTestServer();
    token = await server.anonymousToken('demo');
    const endTime = new Date(server.seededAt.getTime() + 10 * 86400_000).toISOString();
    const lot = (lotId: number, lotNumber: number, title: string, maker: string) => ({
      kind: 'lot' as const,
      tenant: 'demo',
      lotId,
      auctionId: 1,
      lotNumber,
      categoryId: 4,
      texts: Object.fromEntries(['en', 'sv', 'de'].map((l) => [l, { title, description: 'Print on paper.' }])),
      attributes: [
        {
          name: 'Maker',
          labels: { en: 'Maker', sv: 'Tillverkare', de: 'Hersteller' },
          values: { en: maker, sv: maker, de: maker },
        },
      ],
      images: [],
      hotLot: false,
      vatFree: false,
      currency: 'EUR',
      startingPrice: 1000,
      estimateLow: 2000,
      estimateHigh: 4000,
      endTime,
      combiId: null,
      ownerId: null,
    });
    await importRecord(server.runtime.services.log, lot(9101, 951, 'Größe Café Ærø Łódź', 'Ærø Größe'));
    await importRecord(server.runtime.services.log, lot(9102, 952, 'Grosse Cafe Aero Lodz', 'aero grosse'));
    await server.runtime.services.projector.catchUp();
  });
  after(async () => server?.close());

  const ours = (items: Array<{ Id: number }>) =>
    items
      .map((l) => l.Id)
      .filter((id) => OURS.includes(id))
      .sort();

  const SPELLINGS = ['grosse', 'GROSSE', 'Größe', 'große', 'cafe', 'CAFÉ', 'Café', 'aero', 'AERO', 'Ærø', 'lodz', 'Łódź'];
  for (const q of SPELLINGS) {
    it(`"${q}" finds both spellings with SearchTerms on /v1/lots and with q on /v1/lots/search`, async () => {
      const word = encodeURIComponent(q);
      const listed = await get(`/v1/lots?SearchTerms=${word}&AuctionId=1&pageSize=100`);
      expect(listed.status, listed.text).to.equal(200);
      const searched = await get(`/v1/lots/search?q=${word}&AuctionId=1&pageSize=100`);
      expect(searched.status, searched.text).to.equal(200);
      expect(ours(listed.body.Items), 'SearchTerms').to.deep.equal(OURS);
      expect(ours(searched.body.Items), 'q').to.deep.equal(OURS);
    });
  }

  it('two words of different spellings find both lots on both operations', async () => {
    const words = encodeURIComponent('grosse Ærø');
    const listed = await get(`/v1/lots?SearchTerms=${words}&AuctionId=1&pageSize=100`);
    const searched = await get(`/v1/lots/search?q=${words}&AuctionId=1&pageSize=100`);
    expect(ours(listed.body.Items)).to.deep.equal(OURS);
    expect(ours(searched.body.Items)).to.deep.equal(OURS);
  });

  it('MetaDataProperties folds the same way: "AERO GROSSE" matches both "Ærø Größe" and "aero grosse"', async () => {
    for (const value of ['AERO GROSSE', 'Ærø Größe', 'aero große']) {
      const r = await get(`/v1/lots?MetaDataProperties[Maker]=${encodeURIComponent(value)}&AuctionId=1&pageSize=100`);
      expect(r.status, r.text).to.equal(200);
      expect(ours(r.body.Items), value).to.deep.equal(OURS);
    }
  });
});
