// The event types of a Server-Sent Events answer (OutputSpec.streamEvents) as components: one schema per event
// type (`id`, `event`, `data`) and their union, discriminated by `event`, which the 200's `text/event-stream`
// names as its items (`x-item-schema`, OpenAPI 3.2's `itemSchema`): a client generator types each event's data.
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { Operation } from '../operation.ts';
import { z } from '../schemas.ts';
import { ref } from './components.ts';

const pascal = (text: string) => text.replace(/(^|[^A-Za-z0-9])([a-z])/g, (_, __, c: string) => c.toUpperCase());

/** The components' base name: the operation id without its verb (`streamAuction`: `AuctionStream`). */
export function streamName(op: Operation): string {
  return `${pascal(op.route.operationId.replace(/^(stream|get|open)(?=[A-Z])/, ''))}Stream`;
}

/** Registers the stream's event components; the reference to their union, or null when it declares none. */
export function registerStreamEvents(registry: OpenAPIRegistry, op: Operation): { $ref: string } | null {
  const events = op.output.streamEvents;
  if (!events || Object.keys(events).length === 0) return null;
  const base = streamName(op);
  const options = Object.entries(events).map(([event, data]) =>
    registry.register(
      `${base}${pascal(event)}Event`,
      z
        .object({
          id: z.string().max(100).openapi({ description: 'The `id:` line: an opaque position, sent back as `Last-Event-ID` to resume.' }),
          event: z.literal(event).openapi({ description: 'The `event:` line.' }),
          data,
        })
        .openapi({
          description: `The \`${event}\` event of ${op.route.method.toUpperCase()} ${op.route.path}; \`data\` is its \`data:\` line (JSON).`,
        }),
    ),
  );
  registry.register(
    `${base}Event`,
    z.discriminatedUnion('event', options as never).openapi({
      description: `An event of ${op.route.method.toUpperCase()} ${op.route.path}: its \`event:\` line names its type and the shape of its \`data:\`.`,
    }),
  );
  return ref('schemas', `${base}Event`);
}
