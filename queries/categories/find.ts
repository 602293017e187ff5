// Look-ups of the category read model: the tree with its lot counts, and a category with the categories below it
// (what a lot filter by category matches). Used by the categories, auctions, lots, attributes and lot-search queries.
import type { TenantScope } from '../../src/ports/read-models.ts';
import { pick } from '../../src/http/language.ts';
import { catalogueCategories } from '../../projections/catalogue/index.ts';
import type { CategoryNode } from './dto.ts';

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
