/** The documents of the MongoDB read-model store's own collections: `_aliases` and `_checkpoints`. */
import type { CollectionSpec } from '../../ports/read-models.ts';

export interface AliasDoc {
  _id: string;
  physical: string;
  /** Last generation handed out, so concurrent rebuilds never share a physical collection. */
  allocated: number;
  spec: CollectionSpec;
  retired?: Array<{ physical: string; dropAfter: Date }>;
}

export interface CheckpointDoc {
  _id: string;
  position: number;
  updated: Date;
}
