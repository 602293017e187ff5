import { expect } from 'chai';
import { expectProblem, startTestServer, type TestServer } from '../support/server.ts';
import { categoryTree } from '../../app/seed/vocabulary.ts';

/**
 * Operations 14 (GET /v1/categories) and 15 (GET /v1/categories/{id}).
 * Demo tree: 1 Furniture (2 Chairs, 3 Tables, 4 Storage), 5 Art (6 Paintings, 7 Sculpture, 14 Photography),
 * 8..13 top-level. Photography (14) has no lots; every demo lot has a category.
 */

interface Node {
  Id: number;
  ParentId: number | null;
  Name: string;
  SortOrder: number;
  LotCount: number;
  Children: Node[];
}

const flatten = (nodes: Node[]): Node[] => nodes.flatMap((n) => [n, ...flatten(n.Children)]);

function expectNode(node: any, parentId: number | null) {
  expect(node).to.include.all.keys('Id', 'ParentId', 'Name', 'SortOrder', 'LotCount', 'Children');
  expect(Number.isInteger(node.Id)).to.equal(true);
  expect(node.ParentId).to.equal(parentId);
  expect(node.Name).to.be.a('string').and.not.equal('');
  expect(Number.isInteger(node.LotCount) && node.LotCount >= 0).to.equal(true);
  expect(node.Children).to.be.an('array');
  for (const child of node.Children) expectNode(child, node.Id);
}

describe('GET /v1/categories and GET /v1/categories/{id}', () => {
  let server: TestServer;
  let token: string;
  const get = (path: string, headers: Record<string, string> = {}) => server.request('GET', path, { token, headers });

  before(async () => {
    server = await startTestServer();
    token = await server.anonymousToken('demo');
  });
  after(async () => server?.close());

  describe('the tree', () => {
    it('answers the root categories with their children nested, each child naming its parent', async () => {
      const r = await get('/v1/categories');
      expect(r.status).to.equal(200);
      expect(r.body).to.be.an('array');
      for (const root of r.body) expectNode(root, null);
      const furniture = r.body.find((n: Node) => n.Id === 1);
      expect(furniture.Name).to.equal('Furniture');
      expect(furniture.Children.map((c: Node) => c.Id)).to.deep.equal([2, 3, 4]);
    });

    it('orders siblings by SortOrder', async () => {
      const r = await get('/v1/categories?showAll=true');
      const check = (nodes: Node[]) => {
        for (let i = 1; i < nodes.length; i++) expect(nodes[i - 1].SortOrder <= nodes[i].SortOrder).to.equal(true);
        nodes.forEach((n) => check(n.Children));
      };
      check(r.body);
    });

    it('leaves out categories without lots by default', async () => {
      const r = await get('/v1/categories');
      const all = flatten(r.body);
      expect(all.map((n) => n.Id)).to.not.include(14);
      for (const n of all) expect(n.LotCount, `category ${n.Id}`).to.be.greaterThan(0);
      expect(all.map((n) => n.Id).sort((a, b) => a - b)).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
    });

    it('showAll=true includes the categories without lots', async () => {
      const r = await get('/v1/categories?showAll=true');
      expect(r.status).to.equal(200);
      const all = flatten(r.body);
      expect(all.map((n) => n.Id).sort((a, b) => a - b)).to.deep.equal(categoryTree.map((c) => c.id).sort((a, b) => a - b));
      const photography = all.find((n) => n.Id === 14)!;
      expect(photography).to.include({ ParentId: 5, LotCount: 0, Name: 'Photography' });
      expect(r.body.find((n: Node) => n.Id === 5).Children.map((c: Node) => c.Id)).to.include(14);
    });

    it('showAll=false is the same as leaving it out', async () => {
      const a = await get('/v1/categories');
      const b = await get('/v1/categories?showAll=false');
      expect(b.body).to.deep.equal(a.body);
    });

    it('showAll that is not a boolean is a 400 naming it', async () => {
      const problem = expectProblem(await get('/v1/categories?showAll=yes'), 400);
      expect(problem.errors.map((e: any) => e.field)).to.include('query.showAll');
    });

    it('a parent counts its own lots and those of its descendants', async () => {
      const r = await get('/v1/categories?showAll=true');
      for (const n of flatten(r.body)) {
        const childSum = n.Children.reduce((sum, c) => sum + c.LotCount, 0);
        expect(n.LotCount, `category ${n.Id}`).to.be.at.least(childSum);
      }
      const furniture = r.body.find((n: Node) => n.Id === 1);
      expect(furniture.LotCount).to.equal(furniture.Children.reduce((s: number, c: Node) => s + c.LotCount, 0));
    });

    it('the root counts add up to every lot of the tenant, open or closed', async () => {
      const r = await get('/v1/categories');
      const lots = await get('/v1/lots?ShowClosedLots=true&pageSize=1');
      expect(r.body.reduce((s: number, n: Node) => s + n.LotCount, 0)).to.equal(lots.body.TotalCount);
      expect(lots.body.TotalCount).to.equal(1280);
    });

    it('each count equals the lots listed for that category (open or closed, sub-categories included)', async () => {
      const r = await get('/v1/categories?showAll=true');
      for (const n of flatten(r.body)) {
        const lots = await get(`/v1/lots?CategoryId=${n.Id}&ShowClosedLots=true&pageSize=1`);
        expect(lots.status).to.equal(200);
        expect(lots.body.TotalCount, `category ${n.Id} (${n.Name})`).to.equal(n.LotCount);
      }
    });

    it('names come in the negotiated language: Accept-Language, region fallback and lang', async () => {
      const sv = await get('/v1/categories', { 'Accept-Language': 'sv-SE' });
      expect(sv.headers.get('content-language')).to.equal('sv');
      expect(sv.body.find((n: Node) => n.Id === 1).Name).to.equal('Möbler');
      expect(sv.body.find((n: Node) => n.Id === 1).Children[0].Name).to.equal('Stolar');
      const de = await get('/v1/categories?lang=de', { 'Accept-Language': 'sv' });
      expect(de.headers.get('content-language')).to.equal('de');
      expect(de.body.find((n: Node) => n.Id === 1).Name).to.equal('Möbel');
      const fallback = await get('/v1/categories', { 'Accept-Language': 'fr' });
      expect(fallback.headers.get('content-language')).to.equal('en');
      expect(fallback.body.find((n: Node) => n.Id === 1).Name).to.equal('Furniture');
    });

    it('the tree is the same in every language except for the names', async () => {
      const strip = (nodes: Node[]): unknown => nodes.map((n) => ({ ...n, Name: undefined, Children: strip(n.Children) }));
      const en = await get('/v1/categories?showAll=true&lang=en');
      const sv = await get('/v1/categories?showAll=true&lang=sv');
      expect(strip(sv.body)).to.deep.equal(strip(en.body));
    });
  });

  describe('one category', () => {
    it('answers the category with its sub-categories, as in the tree', async () => {
      const tree = await get('/v1/categories?showAll=true');
      const r = await get('/v1/categories/5');
      expect(r.status).to.equal(200);
      expectNode(r.body, null);
      expect(r.body).to.deep.equal(tree.body.find((n: Node) => n.Id === 5));
      expect(r.body.Name).to.equal('Art');
      expect(r.body.Children.map((c: Node) => c.Id)).to.deep.equal([6, 7, 14]);
    });

    it('answers a leaf category with its ParentId and count', async () => {
      const r = await get('/v1/categories/2');
      expect(r.status).to.equal(200);
      expect(r.body).to.include({ Id: 2, ParentId: 1, Name: 'Chairs' });
      expect(r.body.Children).to.deep.equal([]);
      expect(r.body.LotCount).to.be.greaterThan(0);
    });

    it('answers a category without lots (it exists), with LotCount 0', async () => {
      const r = await get('/v1/categories/14');
      expect(r.status).to.equal(200);
      expect(r.body).to.include({ Id: 14, LotCount: 0 });
    });

    it('answers in the negotiated language', async () => {
      const r = await get('/v1/categories/2', { 'Accept-Language': 'de;q=1, sv;q=0.5' });
      expect(r.headers.get('content-language')).to.equal('de');
      expect(r.body.Name).to.equal('Stühle');
    });

    it('an unknown id is a 404 problem', async () => {
      for (const id of [15, 99, 2147483647]) expectProblem(await get(`/v1/categories/${id}`), 404);
    });

    it('an id that is not an int32 is a 400 naming the id, never a 500', async () => {
      for (const id of ['abc', '0', '-3', '2.5', '2147483648', '99999999999']) {
        const problem = expectProblem(await get(`/v1/categories/${id}`), 400);
        expect(problem.errors.map((e: any) => e.field)).to.include('path.id');
      }
    });

    it('needs a token of the tenant', async () => {
      expectProblem(await server.request('GET', '/v1/categories'), 401);
      expectProblem(await server.request('GET', '/v1/categories/1'), 401);
    });
  });
});
