import { MAX_FILE_NAME_LENGTH, type IdentityDocumentContentType } from './events.ts';

const EXTENSIONS: Record<IdentityDocumentContentType, string> = { 'application/pdf': 'pdf', 'image/jpeg': 'jpg', 'image/png': 'png' };

/** Cuts a text to at most `max` UTF-16 code units without splitting a character. */
function cut(text: string, max: number): string {
  let out = '';
  for (const char of text) {
    if (out.length + char.length > max) break;
    out += char;
  }
  return out;
}

/**
 * The name a member gave their file, made safe to list and to show: its last path segment only, NFC, without
 * control or invisible formatting characters (a right-to-left override could disguise `gpj.exe` as `exe.jpg`),
 * without characters file systems reject, single spaces, no leading dots, at most 200 characters (the extension
 * kept when cut). An empty result becomes `document.<ext>` of the detected type.
 */
export function sanitiseFileName(given: string, contentType: IdentityDocumentContentType): string {
  const last = given.split(/[\\/]/).pop() ?? '';
  const name = last
    .normalize('NFC')
    .replace(/[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Zl}\p{Zp}]/gu, '')
    .replace(/[<>:"|?*]/g, '_')
    .replace(/\s+/gu, ' ')
    .trim()
    .replace(/^[.\s]+/u, '')
    .trim();
  if (!name) return `document.${EXTENSIONS[contentType]}`;
  if (name.length <= MAX_FILE_NAME_LENGTH) return name;
  const dot = name.lastIndexOf('.');
  const extension = dot > 0 && name.length - dot <= 10 ? name.slice(dot) : '';
  return cut(name.slice(0, name.length - extension.length), MAX_FILE_NAME_LENGTH - extension.length).trimEnd() + extension;
}
