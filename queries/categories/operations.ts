// The category tree and one category (`GET /v1/categories`, `GET /v1/categories/{id}`), read from the read models;
// declared once (defineOperation) for routing, validation, caching and the OpenAPI document.
import { defineOperation } from '../../src/http/operation.ts';
import { boolText, idText, z } from '../../src/http/schemas.ts';
import { NotFoundError } from '../../src/errors.ts';
import { categoryNode, prune } from './dto.ts';
import { categoryTree } from './find.ts';

export const listCategories = defineOperation({
  route: { number: 14, operationId: 'listCategories', group: 'Categories', method: 'get', path: '/v1/categories', auth: 'anon' },
  docs: {
    summary: 'The category tree in the negotiated language',
    examples: {
      response: [
        {
          Id: 3,
          ParentId: null,
          Name: 'Furniture',
          SortOrder: 1,
          LotCount: 180,
          Children: [
            { Id: 12, ParentId: 3, Name: 'Chairs', SortOrder: 1, LotCount: 64, Children: [] },
            { Id: 13, ParentId: 3, Name: 'Tables', SortOrder: 2, LotCount: 41, Children: [] },
          ],
        },
        { Id: 4, ParentId: null, Name: 'Glass', SortOrder: 2, LotCount: 95, Children: [] },
      ],
    },
  },
  input: { query: z.object({ showAll: boolText('Include categories with no lots.').optional() }) },
  output: { response: z.array(categoryNode).max(2147483647).openapi('CategoryTree') },
  cache: { catalogue: true },
  async handler({ query }, ctx) {
    const { roots } = await categoryTree(ctx.db, ctx.language, ctx.tenant.DefaultLanguage);
    return query.showAll ? roots : prune(roots);
  },
});

export const getCategory = defineOperation({
  route: { number: 15, operationId: 'getCategory', group: 'Categories', method: 'get', path: '/v1/categories/{id}', auth: 'anon' },
  docs: {
    summary: 'One category, with its sub-categories',
    errors: [404],
    examples: {
      response: {
        Id: 3,
        ParentId: null,
        Name: 'Furniture',
        SortOrder: 1,
        LotCount: 120,
        Children: [{ Id: 12, ParentId: 3, Name: 'Chairs', SortOrder: 1, LotCount: 45, Children: [] }],
      },
    },
  },
  input: { params: z.object({ id: idText('The category id.') }) },
  output: { response: categoryNode },
  cache: { catalogue: true },
  async handler({ params }, ctx) {
    const { nodes } = await categoryTree(ctx.db, ctx.language, ctx.tenant.DefaultLanguage);
    const node = nodes.get(params.id);
    if (!node) throw new NotFoundError(`Category ${params.id} does not exist.`);
    return node;
  },
});

export const categoriesQueryOperations = [listCategories, getCategory];
