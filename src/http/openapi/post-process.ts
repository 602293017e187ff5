// What is done to a generated document before it is served: components nothing refers to left out, and
// integer formats set from the bounds.
import { INT32_MAX, INT32_MIN } from '../schemas.ts';

/**
 * Leaves out the components nothing in the document refers to (the shared headers of files and languages, which
 * the back office's answers do not carry), following references from the paths and webhooks.
 */
export function dropUnusedComponents(document: { paths?: unknown; webhooks?: unknown; components?: unknown }): void {
  const components = document.components as Record<string, Record<string, unknown>> | undefined;
  if (!components) return;
  const used = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && !used.has(value)) {
        used.add(value);
        const [, group, name] = /^#\/components\/([^/]+)\/(.+)$/.exec(value) ?? [];
        if (group) visit(components[group]?.[name]);
      } else visit(value);
    }
  };
  visit(document.paths);
  visit(document.webhooks);
  for (const [group, entries] of Object.entries(components)) {
    // Security schemes are named by the operations' security requirements, not by $ref.
    if (group === 'securitySchemes') continue;
    for (const name of Object.keys(entries)) if (!used.has(`#/components/${group}/${name}`)) delete entries[name];
    if (Object.keys(entries).length === 0) delete components[group];
  }
}

/**
 * Every bounded integer gets the format its bounds imply (`int32` within the int32 range, else `int64`), so the
 * zod schemas state each bound once. An integer without both bounds keeps no format (and the lint says so).
 */
export function integerFormats(node: unknown): void {
  if (Array.isArray(node)) {
    node.forEach(integerFormats);
    return;
  }
  if (!node || typeof node !== 'object') return;
  const schema = node as Record<string, unknown>;
  const integer = schema.type === 'integer' || (Array.isArray(schema.type) && schema.type.includes('integer'));
  if (integer && schema.format === undefined && typeof schema.minimum === 'number' && typeof schema.maximum === 'number')
    schema.format = schema.minimum >= INT32_MIN && schema.maximum <= INT32_MAX ? 'int32' : 'int64';
  Object.values(schema).forEach(integerFormats);
}
