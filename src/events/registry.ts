import type { NewEvent, RecordedEvent } from '../ports/event-log.ts';
import { eventCatalog, type AppEvent } from './catalog.ts';
import { toNewEvent, type EventDefinition } from './define.ts';

const byType = new Map<string, EventDefinition>(eventCatalog.map((d) => [d.type, d as unknown as EventDefinition]));

export function definitionOf(type: string): EventDefinition {
  const definition = byType.get(type);
  if (!definition) throw new Error(`unknown event type ${type}`);
  return definition;
}

/** Validates a decided event against its schema and wraps it for appending. */
export function toNew(event: AppEvent, correlationId?: string): NewEvent {
  return toNewEvent(definitionOf(event.type), event.data as never, correlationId);
}

/**
 * A recorded event as the application sees it. Events are validated when appended, so reading trusts
 * them; an older schema version would be upcast here (every type is at version 1 so far).
 */
export function asAppEvent(event: RecordedEvent): AppEvent & RecordedEvent {
  return event as unknown as AppEvent & RecordedEvent;
}
