// The category answer shapes: a node of the tree (its schema and type), and the tree cut to the categories
// that hold lots. Used by the categories and auctions queries.
import { z } from '../../src/http/schemas.ts';

export interface CategoryNode {
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

export function prune(list: CategoryNode[]): CategoryNode[] {
  return list.filter((n) => n.LotCount > 0).map((n) => ({ ...n, Children: prune(n.Children) }));
}
