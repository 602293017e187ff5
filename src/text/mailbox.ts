/** A sender as `Name <address>` or a bare address: parsed for MAIL_FROM and a house's intake `mailFrom`. */
export interface Mailbox {
  name: string | null;
  address: string;
}

const ADDRESS = /^[^\s@<>"(),;:\\[\]]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+$/;
const NAMED = /^\s*(?:"([^"\\\r\n]*)"|([^<>"\r\n]*?))\s*<([^<>\s]+)>\s*$/;

/** The mailbox, or null when the text is neither `Name <address>` nor an address (no line breaks, at most 320 characters). */
export function parseMailbox(text: string): Mailbox | null {
  if (typeof text !== 'string' || text.length > 320 || /[\r\n]/.test(text)) return null;
  const trimmed = text.trim();
  if (ADDRESS.test(trimmed)) return { name: null, address: trimmed };
  const named = NAMED.exec(trimmed);
  if (!named || !ADDRESS.test(named[3])) return null;
  const name = (named[1] ?? named[2] ?? '').trim();
  return { name: name === '' ? null : name, address: named[3] };
}
