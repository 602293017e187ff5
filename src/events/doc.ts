import { z } from 'zod';
import type { EventDefinition } from './define.ts';

/**
 * Renders docs/events.md from the event schemas (the public contract of the event log): every feature's
 * definitions, in the order the composition root lists them (app/features/events.ts).
 */
export function renderEventsDoc(eventCatalog: readonly EventDefinition[]): string {
  const lines = [
    '# Events',
    '',
    'The event log is a public contract: back-office systems subscribe to it and analysts replay it. This file is',
    'generated from the zod schemas in `commands/*/events.ts` by `npm run docs:events`; a test fails when it is stale.',
    '',
    'Every event has a PascalCase past-tense `type`, a schema `version`, `data` (below; always with its `tenant`),',
    'and `metadata` `{ tenant, correlationId? }`. Recorded events also carry `streamId`, `revision` (0-based, per',
    'stream), `position` (global, increasing) and `created` (RFC 3339, UTC). Money is in minor units. A change that',
    'is not backwards compatible gets a new version; readers upcast older versions (all types are at version 1).',
    '',
    'A field marked **private** (password hashes, hashes and ids of one-time keys and codes, stored-file keys of',
    "identity documents, client addresses) never leaves the service: the back office's event feed",
    "(`GET /backoffice/v1/events`) gives each event's data without them. An **operator** event (Api-Keys, back-office",
    "keys, tenants' settings, applications) is the operator's own record and is in no tenant's feed.",
    '',
    '| Type | Version | Stream | Meaning |',
    '|---|---|---|---|',
    ...eventCatalog.map((e) => `| [${e.type}](#${e.type.toLowerCase()}) | ${e.version} | \`${e.stream}\` | ${e.description} |`),
    '',
  ];
  for (const event of eventCatalog) {
    const schema = z.toJSONSchema(event.schema, { io: 'input', unrepresentable: 'any' }) as {
      properties: Record<string, Record<string, unknown>>;
      required?: string[];
    };
    lines.push(
      `## ${event.type}`,
      '',
      `Version ${event.version}. Stream \`${event.stream}\`. ${event.operator ? "**Operator** event: in no tenant's feed. " : ''}${event.description}`,
      '',
      '| Field | Type | Required | Private |',
      '|---|---|---|---|',
    );
    for (const [name, property] of Object.entries(schema.properties)) {
      const isPrivate = event.private?.includes(name) ? '**private**' : '';
      lines.push(`| \`${name}\` | ${describe(property)} | ${schema.required?.includes(name) ? 'yes' : 'no'} | ${isPrivate} |`);
    }
    lines.push('');
  }
  return lines.join('\n');
}

function describe(p: Record<string, unknown>): string {
  if (p.const !== undefined) return `\`${JSON.stringify(p.const)}\``;
  if (Array.isArray(p.enum)) return p.enum.map((v) => `\`${v}\``).join(' \\| ');
  if (Array.isArray(p.anyOf)) return (p.anyOf as Array<Record<string, unknown>>).map(describe).join(' or ');
  const type = p.type as string | undefined;
  if (type === 'array') return `array of ${describe((p.items as Record<string, unknown>) ?? {})}`;
  if (type === 'object') {
    if (p.additionalProperties && typeof p.additionalProperties === 'object')
      return `map of ${describe(p.additionalProperties as Record<string, unknown>)}`;
    const props = p.properties as Record<string, Record<string, unknown>> | undefined;
    return props
      ? `{ ${Object.entries(props)
          .map(([k, v]) => `${k}: ${describe(v)}`)
          .join(', ')} }`
      : 'object';
  }
  if (type === 'string' && p.format) return `string (${p.format})`;
  if (type === 'integer' || type === 'number') return 'integer';
  return type ?? 'any';
}
