/** How the port's job ids are stored as BullMQ job ids, and read back. */

/**
 * BullMQ refuses custom ids that parse as integers and ids with ':' (its own repeat-job ids use it).
 * '%' and ':' are escaped; an id that would still read as an integer gets a '%N' mark, which no escaped
 * id can begin with. Ids without '%', ':' or digits-only are stored as they are.
 */
export function encodeJobId(id: string): string {
  const escaped = escapeColons(id);
  return `${parseInt(escaped, 10)}` === escaped ? `%N${escaped}` : escaped;
}

/** The port's id of a stored id (encodeJobId undone). */
export function decodeJobId(stored: string): string {
  const unmarked = stored.startsWith('%N') ? stored.slice(2) : stored;
  return unmarked.replace(/%(25|3A)/g, (_, code: string) => (code === '25' ? '%' : ':'));
}

/** Escapes '%' and ':' (also in queue names, which BullMQ joins with ':' into keys). */
export function escapeColons(value: string): string {
  return value.replace(/%/g, '%25').replace(/:/g, '%3A');
}
