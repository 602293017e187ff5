// The shape of what differs between the bidder API's document and the back office's (prose.ts gives both), so
// that one generator (document.ts) makes the two.
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { Operation } from '../operation.ts';

/** What differs between the two documents; everything else is the one generator's (buildDocument). */
export interface DocumentKind {
  info: { title: string; version: string; description: string };
  /** The security schemes its operations' credentials name (SECURITY); an operation naming another is refused. */
  securitySchemes: Readonly<Record<string, object>>;
  /** Descriptions of error statuses where this interface words them otherwise than STATUS_TEXT. */
  statusText?: Partial<Record<number, string>>;
  /** What the document says beyond its operations (the back office's webhooks), once they are registered. */
  extend?: (registry: OpenAPIRegistry, operations: readonly Operation[]) => void;
}
