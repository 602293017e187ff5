/**
 * Read-model port, shaped after MongoDB collections: documents with a string `_id`, filters written as a
 * subset of MongoDB's query language, sorts as [field, 1 | -1] pairs, declared indexes.
 *
 * Tenancy is enforced here, not in queries: every call is made through a TenantScope, whose adapter adds
 * the tenant to every read and write. A query cannot name another tenant's document.
 */

export type Scalar = string | number | boolean | null;

export type FieldCondition =
  | Scalar
  | {
      $eq?: Scalar;
      $ne?: Scalar;
      $gt?: string | number;
      $gte?: string | number;
      $lt?: string | number;
      $lte?: string | number;
      $in?: Scalar[];
      /** Field exists and is not null (true) or is absent/null (false). */
      $exists?: boolean;
      /**
       * The string field contains this text, exactly as given (MongoDB: an escaped `$regex`; SQLite: `instr`).
       * For a case- and accent-insensitive match, store the field folded and fold the text with src/text/fold.ts.
       */
      $contains?: string;
    };

export type Filter = {
  $and?: Filter[];
  $or?: Filter[];
} & { [field: string]: FieldCondition | Filter[] | undefined };

export type SortSpec = Array<[field: string, direction: 1 | -1]>;

export interface FindOptions {
  sort?: SortSpec;
  skip?: number;
  limit?: number;
}

export interface IndexSpec {
  /** Fields in index order, dotted paths. The adapter prefixes every index with the tenant. */
  fields: string[];
  unique?: boolean;
}

export interface CollectionSpec {
  name: string;
  indexes?: IndexSpec[];
  /**
   * Fields of its documents that hold what events mark private (a reserve, a password hash, a bidder's maximum):
   * exports leave them out unless asked for private data (docs/analysts.md), as the feed leaves out the events' own.
   */
  private?: readonly string[];
  /** Its documents are named by private values (key hashes, a bidder and a lot): exported with private data only. */
  privateIds?: boolean;
}

export interface Doc {
  _id: string;
  [field: string]: unknown;
}

export interface Collection<T extends Doc = Doc> {
  findOne(filter: Filter): Promise<T | null>;
  findById(id: string): Promise<T | null>;
  find(filter: Filter, options?: FindOptions): Promise<T[]>;
  countDocuments(filter: Filter): Promise<number>;
  /** Distinct values of a field with their counts (MongoDB: $group with $sum). */
  countBy(filter: Filter, field: string): Promise<Array<{ value: Scalar; count: number }>>;
}

export interface TenantScope {
  readonly tenant: string;
  collection<T extends Doc = Doc>(name: string): Collection<T>;
}

/** One write of a projection's batch. */
export type WriteOp =
  { op: 'put'; collection: string; tenant: string; doc: Doc } | { op: 'delete'; collection: string; tenant: string; id: string };

/**
 * An event a projection set aside (src/projector/parking.ts): one its tries could not apply, or a later event of
 * that one's stream, held behind it. Kept with the projection's checkpoint, under the same name; its id is the
 * projection's name and its position.
 */
export interface ParkedEvent {
  position: number;
  type: string;
  streamId: string;
  /** The tenant of the event (its metadata's). */
  tenant: string;
  /**
   * `parked`: its tries failed; `held`: a later event of a stream with a parked one, not applied either;
   * `skipped`: an operator dropped it (never applied; a replay leaves it out too).
   */
  state: 'parked' | 'held' | 'skipped';
  /** The error message of its last try (held: which parked event it waits behind). */
  error: string;
  /** How many tries failed. */
  attempts: number;
  /** When it was first and last set aside (RFC 3339). */
  firstAt: string;
  lastAt: string;
}

/** How many events one projection (its checkpoint's name) has set aside, by state. */
export interface ParkedCount {
  projection: string;
  parked: number;
  held: number;
  skipped: number;
}

/**
 * The writing side, used only by the projector runtime. A projection's writes and its checkpoint land in
 * one transaction (MongoDB: a session transaction, or bulkWrite guarded by per-document positions).
 */
export interface WriteTarget {
  get(collection: string, tenant: string, id: string): Promise<Doc | null>;
  /**
   * Applies ops and moves the projection's checkpoint from `expected` to `position`, in one transaction.
   * The checkpoint is written with optimistic concurrency: when it is no longer `expected` (another
   * processor, or a rebuild's swap, moved it), nothing is written and CheckpointConflictError is thrown.
   * `parked`: events set aside in this batch, stored (replaced by position) in the same transaction.
   */
  commit(
    ops: WriteOp[],
    checkpoint: { projection: string; expected: number; position: number; parked?: readonly ParkedEvent[] },
  ): Promise<void>;
}

export class CheckpointConflictError extends Error {
  constructor(
    readonly projection: string,
    readonly expected: number,
    readonly actual: number,
  ) {
    super(`Checkpoint of ${projection} is ${actual}, expected ${expected}`);
    this.name = 'CheckpointConflictError';
  }
}

/**
 * A rebuild's commit failed after writing part of its documents to the rebuilt copies (an engine that writes a
 * rebuild's copies outside a transaction: MongoDB). The copies no longer match their checkpoint: the rebuild must
 * start again (never a poison event to set aside). `cause` is the failure.
 */
export class IncompleteCopyError extends Error {
  constructor(
    readonly projection: string,
    options: { cause: unknown },
  ) {
    super(`The rebuild of ${projection} failed part way through a write and must be started again`, options);
    this.name = 'IncompleteCopyError';
  }
}

export interface RebuildTarget extends WriteTarget {
  /**
   * Swaps the rebuilt copies in atomically with the checkpoint, and drops the old ones; answers true. When
   * the live checkpoint is ahead of the rebuilt one (a running projector moved on meanwhile), nothing is
   * swapped and it answers false: the caller catches up and calls again. Processes that read the old copies
   * switch to the new ones by themselves.
   */
  finish(): Promise<boolean>;
  abort(): Promise<void>;
}

export interface DocumentStore {
  /** Declares a collection and its indexes (idempotent). */
  ensureCollection(spec: CollectionSpec): Promise<void>;
  /** The collection as last declared (ensureCollection), or null when it never was: the tools read what it declares. */
  collectionSpec(name: string): Promise<CollectionSpec | null>;
  forTenant(tenant: string): TenantScope;
  getCheckpoint(projection: string): Promise<number>;
  /** Several stored checkpoints in one read (0 for one never stored), in the order asked. */
  getCheckpoints?(projections: readonly string[]): Promise<number[]>;
  /**
   * A number that moves whenever another connection (another process) has committed to the store since it was
   * last read, read without I/O (SQLite's `data_version`): a stored checkpoint cannot have moved while it stands
   * still. Absent where the engine has no such thing (a checkpoint is then read to know).
   */
  changeMark?(): number;
  /** The events set aside under a checkpoint's name (a projection's, or its rebuild's), in log order. */
  parkedEvents(projection: string): Promise<ParkedEvent[]>;
  /** How many events each checkpoint's name has set aside (names with none are left out). */
  parkedCounts(): Promise<ParkedCount[]>;
  /**
   * Stores parked events outside a batch (a search projection's, whose checkpoint lives in its index; an operator's
   * skip): each replaces the one at its position, keeping when it was first set aside.
   */
  park(projection: string, events: readonly ParkedEvent[]): Promise<void>;
  /** Forgets the parked events of a checkpoint's name at these positions. */
  unpark(projection: string, positions: readonly number[]): Promise<void>;
  /** Writes go to the live collections. */
  live(): WriteTarget;
  /**
   * Rebuild into fresh, empty copies of the collections (an alias swap, as with Typesense aliases);
   * reads keep using the live copies until finish() swaps them in. The protocol: src/read-models/rebuild.ts.
   */
  startRebuild(projection: string, collections: string[]): Promise<RebuildTarget>;
  close(): Promise<void>;
}
