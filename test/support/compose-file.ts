// A compose file read as docker compose reads it, for the specs that look at what each service runs.
import fs from 'node:fs';
import { parse as parseYaml } from 'yaml';

export interface ComposeService {
  image?: string;
  build?: string;
  entrypoint?: string[];
  command?: string[];
  environment?: Record<string, string>;
  healthcheck?: { test: string[]; timeout?: string };
  ports?: string[];
}

/** A compose file as docker compose reads it: anchors merged, `$$` (compose's escaped `$`) as the container sees it. */
export function composeServices(file: string): Record<string, ComposeService> {
  const unescape = (value: unknown): unknown =>
    typeof value === 'string'
      ? value.replace(/\$\$/g, '$')
      : Array.isArray(value)
        ? value.map(unescape)
        : value && typeof value === 'object'
          ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, unescape(v)]))
          : value;
  return (unescape(parseYaml(fs.readFileSync(file, 'utf8'), { merge: true })) as { services: Record<string, ComposeService> }).services;
}
