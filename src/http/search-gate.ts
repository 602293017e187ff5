/**
 * The search operations' way to the search index: a search answers 503 `search-unavailable` (with Retry-After)
 * while the index cannot be reached or its projection is further behind the log than /readyz's bound
 * (READY_MAX_LAG_SECONDS), instead of a 500, a long wait, or an answer from an index that lags. Everything else
 * the process serves goes on: /readyz answers 200 `degraded` with the same reason (ops-routes.ts, searchFault).
 */
import { isEngineUnreachable, SEARCH_BEHIND_DETAIL, SearchUnavailableError } from '../errors.ts';
import type { ProjectionStatus } from '../projector/status.ts';
import { SearchIndexUnavailableError, type SearchIndex, type SearchRequest, type SearchResult } from '../ports/search.ts';
import { searchFault } from './ops-routes.ts';

/** How long a reading of the search projections' status is used (every search would read it otherwise). */
const STATUS_MS = 1000;

export class SearchGate {
  private last: { at: number; fault: Promise<ReturnType<typeof searchFault>> } | null = null;

  constructor(
    private readonly index: Pick<SearchIndex, 'search'>,
    /** The status of the search projections (ProjectorRuntime.status('search')). */
    private readonly status: () => Promise<Record<string, ProjectionStatus>>,
    private readonly maxLagSeconds: number,
  ) {}

  /** Throws SearchUnavailableError while the index is away or behind (read at most once a second). */
  async check(): Promise<void> {
    const fault = await this.fault();
    if (fault) throw new SearchUnavailableError(fault === 'search-behind' ? SEARCH_BEHIND_DETAIL : undefined);
  }

  async search(collection: string, tenant: string, request: SearchRequest): Promise<SearchResult> {
    await this.check();
    try {
      return await this.index.search(collection, tenant, request);
    } catch (error) {
      // The engine away, or not yet holding what this process declared (a new field): 503, not 500.
      if (error instanceof SearchIndexUnavailableError || isEngineUnreachable(error)) throw new SearchUnavailableError();
      throw error;
    }
  }

  private fault(): Promise<ReturnType<typeof searchFault>> {
    const now = Date.now();
    if (!this.last || now - this.last.at > STATUS_MS) {
      const fault = this.status().then((status) => searchFault(status, this.maxLagSeconds));
      const last = { at: now, fault };
      this.last = last;
      // A status that could not be read is read again by the next search.
      fault.catch(() => {
        if (this.last === last) this.last = null;
      });
    }
    return this.last.fault;
  }
}
