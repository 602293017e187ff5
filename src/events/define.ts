import { z } from 'zod';
import type { NewEvent, RecordedEvent } from '../ports/event-log.ts';

/**
 * An event type of the public contract: a past-tense PascalCase name, a schema version and a zod schema
 * of its data. Every event's data carries its `tenant`. docs/events.md is generated from these.
 */
export interface EventDefinition<Type extends string = string, Data extends z.ZodObject = z.ZodObject> {
  type: Type;
  version: number;
  schema: Data;
  /** Which feature appends it, and what it means (for docs/events.md). */
  description: string;
  stream: string;
  /**
   * Its private fields (password hashes, hashes and ids of one-time keys and codes, stored-file keys of identity
   * documents, client addresses): never given outside the service (the back office's feed leaves them out);
   * docs/events.md marks them.
   */
  private?: readonly string[];
  /** An operator's record (Api-Keys, back-office keys, tenants' settings, applications): in no tenant's feed. */
  operator?: boolean;
}

export function defineEvent<Type extends string, Data extends z.ZodObject>(
  definition: EventDefinition<Type, Data> & { private?: readonly (keyof Data['shape'] & string)[] },
): EventDefinition<Type, Data> {
  if (!/^[A-Z][A-Za-z]+$/.test(definition.type)) throw new Error(`event type must be PascalCase: ${definition.type}`);
  for (const field of definition.private ?? [])
    if (!(field in definition.schema.shape)) throw new Error(`${definition.type}: private field ${field} is not in its schema`);
  return definition;
}

/** An event's data as it may leave the service: without its definition's private fields. */
export function publicData(definition: Pick<EventDefinition, 'private'>, data: Record<string, unknown>): Record<string, unknown> {
  if (!definition.private?.length) return data;
  const copy = { ...data };
  for (const field of definition.private) delete copy[field];
  return copy;
}

/** The plain shape of an event of a definition, as deciders and projections see it. */
export type EventOf<D> = D extends EventDefinition<infer T, infer S> ? { type: T; data: z.infer<S> } : never;

/** Any event as the core sees it: a type name and its data. */
export interface AnyEvent {
  type: string;
  data: unknown;
}

/** A recorded event whose type and data are known. */
export type Recorded<E extends AnyEvent> = E & Omit<RecordedEvent, 'type' | 'data'>;

/**
 * The events of one feature, declared once: the union type `E` of its events, their type names, and the two
 * crossings of the log's boundary. There is no global union: a decider, a projection or a reactor names the
 * sets it writes or reads, so returning or reading another feature's event is a type error.
 */
export interface EventSet<E extends AnyEvent> {
  /** The definitions, in the order the feature lists them (docs/events.md keeps it). */
  readonly definitions: readonly EventDefinition[];
  readonly types: readonly E['type'][];
  /** Validates a decided event against its schema and wraps it for appending; throws for a type not in the set. */
  readonly toNew: (event: E, correlationId?: string) => NewEvent;
  /**
   * A recorded event as its feature sees it. Events are validated when appended, so reading trusts their data;
   * an older schema version would be upcast here (every type is at version 1 so far), and a newer one than this
   * code knows, or a type not in the set, throws rather than being misread.
   */
  readonly read: (recorded: RecordedEvent) => Recorded<E>;
}

/** The event union of an event set: `EventsOf<typeof watchlistEvents>`. */
export type EventsOf<S> = S extends EventSet<infer E> ? E : never;

/** Declares a feature's events: `export const watchlistEvents = defineEvents([LotWatched, ...])`. */
export function defineEvents<const D extends readonly EventDefinition[]>(definitions: D): EventSet<EventOf<D[number]>> {
  type E = EventOf<D[number]>;
  const byType = new Map<string, EventDefinition>();
  for (const definition of definitions) {
    if (byType.has(definition.type)) throw new Error(`event type ${definition.type} is declared twice`);
    byType.set(definition.type, definition);
  }
  const definitionOf = (type: string) => {
    const definition = byType.get(type);
    if (!definition) throw new Error(`${type} is not one of the events ${[...byType.keys()].join(', ')}`);
    return definition;
  };
  return {
    definitions,
    types: definitions.map((d) => d.type) as E['type'][],
    toNew: (event, correlationId) => toNewEvent(definitionOf(event.type), event.data as never, correlationId),
    read: (recorded) => {
      const definition = definitionOf(recorded.type);
      if (recorded.version !== definition.version)
        throw new Error(
          `${recorded.type} version ${recorded.version} at position ${recorded.position} has no upcast to version ${definition.version}`,
        );
      return recorded as unknown as Recorded<E>;
    },
  };
}

export const tenantId = z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'a tenant id is lower-case letters, digits and dashes');
export const int32 = z.number().int().min(-2147483648).max(2147483647);
export const positiveId = z.number().int().min(1).max(2147483647);
export const isoDateTime = z.iso.datetime({ offset: false });
export const languageCode = z.string().regex(/^[a-z]{2}(-[A-Z]{2})?$/);
export const money = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

/** Validates data against its definition and wraps it for appending. */
export function toNewEvent<D extends EventDefinition>(definition: D, data: z.input<D['schema']>, correlationId?: string): NewEvent {
  const parsed = definition.schema.parse(data) as Record<string, unknown> & { tenant: string };
  return {
    type: definition.type,
    version: definition.version,
    data: parsed,
    metadata: { tenant: parsed.tenant, ...(correlationId ? { correlationId } : {}) },
  };
}
