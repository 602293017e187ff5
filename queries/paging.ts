import type { TenantDoc } from '../projections/access/index.ts';

export interface Paging {
  page: number;
  pageSize: number;
  skip: number;
}

export function paging(query: { page?: number; pageSize?: number }, tenant: TenantDoc): Paging {
  const page = query.page ?? 1;
  const pageSize = query.pageSize ?? Math.min(tenant.PageSize, 100);
  return { page, pageSize, skip: (page - 1) * pageSize };
}

export function envelope<T>(items: T[], total: number, p: Paging) {
  return { Items: items, TotalCount: total, Page: p.page, PageSize: p.pageSize, TotalPages: Math.ceil(total / p.pageSize) };
}
