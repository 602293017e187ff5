/**
 * The notice of an invoice the back office issued, in English, Swedish and German: its number, total (VAT
 * included), due date and where its PDF is. Amounts and dates as people read them in the mail's language, the
 * day in the member's time zone.
 */
import { formatMoney } from '../../src/format.ts';
import { mailHtml, type MessageLanguage } from '../../src/text/mail.ts';
import type { InvoiceLine } from './events.ts';

export interface InvoiceNotice {
  language: MessageLanguage;
  houseName: string;
  firstName: string;
  number: number;
  currency: string;
  lines: InvoiceLine[];
  dueAt: string;
  /** The member's time zone (IANA; the profile's, else UTC): the day the invoice is due there. */
  timeZone: string;
  /** The invoice's PDF: an absolute URL under PUBLIC_URL, else its path in the API. */
  pdf: string;
}

interface Wording {
  hello: string;
  subject: (house: string, number: number) => string;
  issued: (house: string, number: number) => string;
  total: (total: string, vat: string) => string;
  due: (date: string) => string;
  pdf: string;
}

const wordings: Record<MessageLanguage, Wording> = {
  en: {
    hello: 'Hello',
    subject: (house, n) => `${house}: invoice ${n}`,
    issued: (house, n) => `${house} has issued invoice ${n} to you.`,
    total: (total, vat) => `Total: ${total} (VAT ${vat} included)`,
    due: (date) => `Due: ${date}`,
    pdf: 'The invoice as a PDF, in your account:',
  },
  sv: {
    hello: 'Hej',
    subject: (house, n) => `${house}: faktura ${n}`,
    issued: (house, n) => `${house} har ställt ut faktura ${n} till dig.`,
    total: (total, vat) => `Att betala: ${total} (varav moms ${vat})`,
    due: (date) => `Förfallodag: ${date}`,
    pdf: 'Fakturan som pdf, i ditt konto:',
  },
  de: {
    hello: 'Hallo',
    subject: (house, n) => `${house}: Rechnung ${n}`,
    issued: (house, n) => `${house} hat Ihnen die Rechnung ${n} ausgestellt.`,
    total: (total, vat) => `Gesamtbetrag: ${total} (inkl. ${vat} MwSt.)`,
    due: (date) => `Fällig am: ${date}`,
    pdf: 'Die Rechnung als PDF, in Ihrem Konto:',
  },
};

/** A day as people read it in a language (`22 November 2026`, `22 november 2026`, `22. November 2026`), in a time zone. */
const formatDay = (iso: string, language: string, timeZone: string) =>
  new Intl.DateTimeFormat(language, { dateStyle: 'long', timeZone }).format(new Date(iso));

export function invoiceNoticeMail(n: InvoiceNotice): { subject: string; body: string; html: string; language: MessageLanguage } {
  const w = wordings[n.language];
  const net = n.lines.reduce((sum, l) => sum + l.amount, 0);
  const vat = n.lines.reduce((sum, l) => sum + l.vatAmount, 0);
  const money = (minor: number) => formatMoney(minor, n.currency, n.language, 'always');
  const subject = w.subject(n.houseName, n.number);
  const body = [
    n.firstName.trim() ? `${w.hello} ${n.firstName.trim()},` : `${w.hello},`,
    w.issued(n.houseName, n.number),
    [w.total(money(net + vat), money(vat)), w.due(formatDay(n.dueAt, n.language, n.timeZone))].join('\n'),
    `${w.pdf}\n${n.pdf}`,
    n.houseName,
  ].join('\n\n');
  return { subject, body, html: mailHtml(body, n.language, subject), language: n.language };
}
