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
}

export function defineEvent<Type extends string, Data extends z.ZodObject>(
  definition: EventDefinition<Type, Data>,
): EventDefinition<Type, Data> {
  if (!/^[A-Z][A-Za-z]+$/.test(definition.type)) throw new Error(`event type must be PascalCase: ${definition.type}`);
  return definition;
}

/** The plain shape of an event of a definition, as deciders and projections see it. */
export type EventOf<D> = D extends EventDefinition<infer T, infer S> ? { type: T; data: z.infer<S> } : never;

/** A recorded event whose type and data are known. */
export type Recorded<E extends { type: string; data: unknown }> = E & Omit<RecordedEvent, 'type' | 'data'>;

export const tenantId = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'a tenant id is lower-case letters, digits and dashes');
export const int32 = z.number().int().min(-2147483648).max(2147483647);
export const positiveId = z.number().int().min(1).max(2147483647);
export const isoDateTime = z.iso.datetime({ offset: false });
export const languageCode = z.string().regex(/^[a-z]{2}(-[A-Z]{2})?$/);
export const money = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

/** Validates data against its definition and wraps it for appending. */
export function toNewEvent<D extends EventDefinition>(
  definition: D,
  data: z.input<D['schema']>,
  correlationId?: string,
): NewEvent {
  const parsed = definition.schema.parse(data) as Record<string, unknown> & { tenant: string };
  return {
    type: definition.type,
    version: definition.version,
    data: parsed,
    metadata: { tenant: parsed.tenant, ...(correlationId ? { correlationId } : {}) },
  };
}
