/**
 * What every mail and SMS the service writes shares: the languages its texts are written in, the choice of one
 * for a recipient, and a mail's HTML part made from its text.
 */

/** The languages of the service's own mail and SMS texts (the demo dictionary's); others get English. */
export const MESSAGE_LANGUAGES = ['en', 'sv', 'de'] as const;
export type MessageLanguage = (typeof MESSAGE_LANGUAGES)[number];

const isMessageLanguage = (language: string | null | undefined): language is MessageLanguage =>
  (MESSAGE_LANGUAGES as readonly string[]).includes(language ?? '');

/**
 * The language of a message: the recipient's (chosen at sign-up or in the profile), else the house's first
 * (its default), each only where the service has texts in it; else English.
 */
export function messageLanguage(
  recipient: string | null | undefined,
  house: { DefaultLanguage?: string; Languages?: string[] } | null,
): MessageLanguage {
  return [recipient, house?.DefaultLanguage, house?.Languages?.[0]].find(isMessageLanguage) ?? 'en';
}

const escape = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** A mail's HTML part: its text's paragraphs (split at blank lines) as paragraphs, its lines kept, everything escaped. */
export function mailHtml(text: string, language: string, title: string): string {
  const paragraphs = text
    .split(/\n{2,}/)
    .map((p) => `<p>${escape(p).replace(/\n/g, '<br>\n')}</p>`)
    .join('\n');
  return `<!doctype html>\n<html lang="${escape(language)}">\n<head><meta charset="utf-8"><title>${escape(title)}</title></head>\n<body>\n${paragraphs}\n</body>\n</html>\n`;
}
