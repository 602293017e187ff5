// The operations whose handler runs in the lot index's thread: the lot search's (an anonymous catalogue read that
// reads only the read models, the index, `derived` and `changesAt` of its context: what the thread has).
import { lotSearchQueries } from '../../queries/lot-search/index.ts';
import type { Operation } from '../../src/http/operation.ts';

export const THREAD_OPERATIONS = (lotSearchQueries.operations ?? []) as readonly Operation[];
