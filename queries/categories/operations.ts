// The category tree and one category (`GET /v1/categories`, `GET /v1/categories/{id}`), read from the read models;
// declared once (defineOperation) for routing, validation, caching and the OpenAPI document.
import type { TenantScope } from '../../src/ports/read-models.ts';
import { defineOperation } from '../../src/http/operation.ts';
import { boolText, idText, z } from '../../src/http/schemas.ts';
import { NotFoundError } from '../../src/errors.ts';
import { pick } from '../../src/http/language.ts';
import { catalogueCategories } from '../../projections/catalogue/index.ts';

interface CategoryNode {
  Id: number;
  ParentId: number | null;
  Name: string;
  SortOrder: number;
  LotCount: number;
  Children: CategoryNode[];
}

export const categoryNode = z
  .object({
    Id: z.number().int().min(1).max(2147483647),
    ParentId: z.number().int().min(1).max(2147483647).nullable().openapi({ description: 'The parent category; null for a top-level one.' }),
    Name: z.string().max(200).openapi({ description: 'In the negotiated language (`Content-Language`).' }),
    SortOrder: z
      .number()
      .int()
      .min(-Number.MAX_SAFE_INTEGER)
      .max(Number.MAX_SAFE_INTEGER)
      .openapi({ description: "The auction house's order of siblings (then by name)." }),
    LotCount: z
      .number()
      .int()
      .min(0)
      .max(2147483647)
      .openapi({ description: 'Lots (open or closed) in this category and its descendants.' }),
    get Children() {
      return z.array(categoryNode).max(2147483647);
    },
  })
  .openapi('Category');

/**
 * The tenant's tree in one language, with lot counts summed up the tree. `directCounts` replaces each
 * category's own lot count (the lots of one auction, say); by default it is every lot of the tenant.
 */
export async function categoryTree(db: TenantScope, language: string, fallback: string, directCounts?: Map<number, number>) {
  const docs = await catalogueCategories(db).find({ Catalogued: true });
  const nodes = new Map<number, CategoryNode>(
    docs.map((d) => [
      d.Id,
      {
        Id: d.Id,
        ParentId: d.ParentId,
        Name: pick(d.Names, language, fallback) ?? '',
        SortOrder: d.SortOrder,
        LotCount: directCounts ? (directCounts.get(d.Id) ?? 0) : d.LotCount,
        Children: [],
      },
    ]),
  );
  const roots: CategoryNode[] = [];
  for (const node of nodes.values()) {
    const parent = node.ParentId !== null ? nodes.get(node.ParentId) : undefined;
    if (parent && parent !== node) parent.Children.push(node);
    else roots.push(node);
  }
  const order = (list: CategoryNode[]) => list.sort((a, b) => a.SortOrder - b.SortOrder || a.Name.localeCompare(b.Name) || a.Id - b.Id);
  const seen = new Set<number>();
  const total = (node: CategoryNode): number => {
    if (seen.has(node.Id)) return 0;
    seen.add(node.Id);
    order(node.Children);
    node.LotCount += node.Children.reduce((sum, child) => sum + total(child), 0);
    return node.LotCount;
  };
  order(roots).forEach(total);
  return { roots, nodes };
}

/**
 * The category and every category below it: a lot filter "in category X" means X or any descendant, so a
 * listing matches the category's LotCount. An unknown id is just itself (and matches nothing).
 */
export async function categoryAndDescendants(db: TenantScope, id: number): Promise<number[]> {
  const { nodes } = await categoryTree(db, '', '');
  const found = new Set([id]);
  const queue = [nodes.get(id)];
  for (let node = queue.pop(); node; node = queue.pop())
    for (const child of node.Children)
      if (!found.has(child.Id)) {
        found.add(child.Id);
        queue.push(child);
      }
  return [...found];
}

export function prune(list: CategoryNode[]): CategoryNode[] {
  return list.filter((n) => n.LotCount > 0).map((n) => ({ ...n, Children: prune(n.Children) }));
}

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
