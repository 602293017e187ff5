/**
 * The lot search index: one document per lot and language, with the lot id as its id. The embedded index
 * is configured to partition it by Language (LOT_SEARCH_PARTITION), so the same id is one document per
 * language there, and a search reads one language's partition. Closing a lot updates its EndTime in every
 * language: an update without the Language field reaches every partition that holds the id.
 */
export const LOT_SEARCH = 'lots';

/** The embedded index's `partitions` option for this collection (set by the composition root). */
export const LOT_SEARCH_PARTITION: Record<string, string> = { [LOT_SEARCH]: 'Language' };
