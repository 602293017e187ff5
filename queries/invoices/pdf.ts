import { pdfText, renderPdf, type Pdf } from '../../src/pdf.ts';
import { formatMoney } from '../../src/format.ts';
import type { InvoiceDoc } from '../../projections/invoices/index.ts';

/** The printed invoice's words in the languages houses publish in (English for any other). */
const LABELS = {
  en: {
    invoice: 'Invoice',
    number: 'Invoice number',
    issued: 'Issued',
    due: 'Due',
    status: 'Status',
    paid: 'Paid',
    unpaid: 'Unpaid',
    paidOn: 'Paid on',
    auction: 'Auction',
    billedTo: 'Billed to',
    member: 'Member no.',
    description: 'Description',
    amount: 'Amount',
    vatRate: 'VAT %',
    vat: 'VAT',
    subtotal: 'Subtotal',
    vatTotal: 'VAT',
    total: 'Total',
    shipping: 'Shipping',
    notChosen: 'Not chosen yet',
    pickup: 'Pickup at the auction house',
    post: 'Post',
    courier: 'Courier',
    reverseCharge: 'VAT reverse charged: no VAT is charged on this invoice.',
    marginScheme: 'VAT included under the margin scheme: the lines of lots sold under it show no VAT of their own.',
  },
  sv: {
    invoice: 'Faktura',
    number: 'Fakturanummer',
    issued: 'Fakturadatum',
    due: 'Förfallodatum',
    status: 'Status',
    paid: 'Betald',
    unpaid: 'Obetald',
    paidOn: 'Betald den',
    auction: 'Auktion',
    billedTo: 'Faktureras till',
    member: 'Medlemsnr',
    description: 'Beskrivning',
    amount: 'Belopp',
    vatRate: 'Moms %',
    vat: 'Moms',
    subtotal: 'Summa exkl. moms',
    vatTotal: 'Moms',
    total: 'Att betala',
    shipping: 'Leverans',
    notChosen: 'Inte vald ännu',
    pickup: 'Hämtas på auktionshuset',
    post: 'Post',
    courier: 'Bud',
    reverseCharge: 'Omvänd skattskyldighet: ingen moms debiteras på denna faktura.',
    marginScheme: 'Moms ingår enligt vinstmarginalbeskattning: rader för föremål som säljs enligt den visar ingen egen moms.',
  },
  de: {
    invoice: 'Rechnung',
    number: 'Rechnungsnummer',
    issued: 'Rechnungsdatum',
    due: 'Fällig am',
    status: 'Status',
    paid: 'Bezahlt',
    unpaid: 'Offen',
    paidOn: 'Bezahlt am',
    auction: 'Auktion',
    billedTo: 'Rechnungsempfänger',
    member: 'Mitgliedsnr.',
    description: 'Beschreibung',
    amount: 'Betrag',
    vatRate: 'USt. %',
    vat: 'USt.',
    subtotal: 'Zwischensumme',
    vatTotal: 'USt.',
    total: 'Gesamtbetrag',
    shipping: 'Versand',
    notChosen: 'Noch nicht gewählt',
    pickup: 'Abholung im Auktionshaus',
    post: 'Post',
    courier: 'Kurier',
    reverseCharge: 'Steuerschuldnerschaft des Leistungsempfängers: keine USt. berechnet.',
    marginScheme: 'USt. enthalten (Differenzbesteuerung): die Positionen der danach verkauften Lose weisen keine eigene USt. aus.',
  },
};

export type InvoiceLabels = (typeof LABELS)['en'];
export const invoiceLabels = (language: string): InvoiceLabels =>
  (LABELS as Record<string, InvoiceLabels>)[language.slice(0, 2)] ?? LABELS.en;

/** A date as people read it in a language, in UTC (`22 Nov 2026`). */
export const formatDate = (iso: string, language: string) =>
  new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date(iso));

const formatRate = (rate: number, language: string) => new Intl.NumberFormat(language, { maximumFractionDigits: 2 }).format(rate);

export interface InvoicePrint {
  invoice: InvoiceDoc;
  language: string;
  houseName: string;
  memberId: number;
  memberName: string;
  companyName: string | null;
  addressLines: string[];
  auctionTitle: string | null;
}

/** What the steps of the printed invoice share: the document, its labels, its money format and its text width. */
interface Page {
  doc: Pdf;
  p: InvoicePrint;
  l: InvoiceLabels;
  money: (amount: number) => string;
  left: number;
  width: number;
}

/** A `label: value` line, the label bold. */
const field = (doc: Pdf, label: string, value: string) =>
  doc
    .font('Helvetica-Bold')
    .fontSize(10)
    .text(pdfText(`${label}: `), { continued: true })
    .font('Helvetica')
    .text(pdfText(value));

/** The house, the invoice's title, its number, dates, status and auction. */
function printHeading({ doc, p, l }: Page, title: string) {
  const { invoice, language } = p;
  doc.font('Helvetica-Bold').fontSize(14).fillColor('#000000').text(pdfText(p.houseName)).moveDown(0.5);
  doc.font('Helvetica-Bold').fontSize(20).text(pdfText(title)).moveDown(0.5);
  field(doc, l.number, String(invoice.Number));
  field(doc, l.issued, formatDate(invoice.IssuedAt, language));
  field(doc, l.due, formatDate(invoice.DueAt, language));
  field(
    doc,
    l.status,
    invoice.Status === 'paid' && invoice.PaidAt ? `${l.paid} (${l.paidOn} ${formatDate(invoice.PaidAt, language)})` : l.unpaid,
  );
  if (invoice.AuctionId !== null)
    field(doc, l.auction, p.auctionTitle ? `${invoice.AuctionId}, ${p.auctionTitle}` : String(invoice.AuctionId));
  doc.moveDown();
}

/** The member the invoice is made out to. */
function printBilledTo({ doc, p, l }: Page) {
  doc.font('Helvetica-Bold').fontSize(11).text(pdfText(l.billedTo));
  doc.font('Helvetica').fontSize(10);
  for (const line of [p.memberName, p.companyName, ...p.addressLines]) if (line) doc.text(pdfText(line));
  doc.text(pdfText(`${l.member} ${p.memberId}`));
  doc.moveDown();
}

/** A row of the lines' table (description, amount, VAT rate, VAT), each cell in its column, the next row below the tallest. */
function printRow({ doc, left, width }: Page, cells: string[], bold = false) {
  const columns = [
    { width: width - 270, align: 'left' as const },
    { width: 100, align: 'right' as const },
    { width: 70, align: 'right' as const },
    { width: 100, align: 'right' as const },
  ];
  doc.font(bold ? 'Helvetica-Bold' : 'Helvetica').fontSize(10);
  const y = doc.y;
  let x = left;
  let height = 0;
  cells.forEach((cell, i) => {
    const text = pdfText(cell);
    const options = { width: columns[i].width, align: columns[i].align };
    height = Math.max(height, doc.heightOfString(text, options));
    doc.text(text, x, y, options);
    x += columns[i].width;
  });
  doc.x = left;
  doc.y = y + height + 4;
}

/** A rule across the table. */
function printRule({ doc, left, width }: Page) {
  doc
    .moveTo(left, doc.y)
    .lineTo(left + width, doc.y)
    .stroke();
  doc.moveDown(0.3);
}

/** The lines: description, amount, VAT rate, VAT; then the totals. */
function printLines(page: Page) {
  const { p, l, money } = page;
  const { invoice, language } = p;
  printRow(page, [l.description, l.amount, l.vatRate, l.vat], true);
  printRule(page);
  // A line of a lot under the margin scheme holds its VAT and never shows it (Directive 2006/112 art 339).
  for (const line of invoice.Lines)
    printRow(
      page,
      line.VatScheme === 'margin'
        ? [line.Description, money(line.Amount), '–', '–']
        : [line.Description, money(line.Amount), formatRate(line.VatRate, language), money(line.VatAmount)],
    );
  printRule(page);
  printRow(page, [l.subtotal, money(invoice.Subtotal), '', '']);
  printRow(page, [l.vatTotal, money(invoice.VatTotal), '', '']);
  printRow(page, [l.total, money(invoice.Total), '', ''], true);
}

/** What the VAT of the invoice is under: reverse charged, the margin scheme. */
function printVatNotes({ doc, p, l, left, width }: Page) {
  const { invoice } = p;
  const notes = [
    invoice.VatFree ? l.reverseCharge : null,
    invoice.Lines.some((line) => line.VatScheme === 'margin') ? l.marginScheme : null,
  ];
  for (const note of notes.filter((n): n is string => n !== null)) {
    doc.moveDown(0.5);
    doc.font('Helvetica-Oblique').fontSize(9).text(pdfText(note), left, doc.y, { width });
  }
  doc.moveDown();
}

/** The shipping preference: how, and where to. */
function printShipping({ doc, p, l, left, width }: Page) {
  doc.font('Helvetica-Bold').fontSize(11).text(pdfText(l.shipping), left, doc.y, { width });
  doc.font('Helvetica').fontSize(10);
  const s = p.invoice.Shipping;
  if (!s) doc.text(pdfText(l.notChosen));
  else {
    doc.text(pdfText(l[s.Method]));
    for (const line of [s.Name, s.Address, [s.ZipCode, s.City].filter(Boolean).join(' '), s.Country]) if (line) doc.text(pdfText(line));
  }
}

/**
 * The printed invoice: the house, the invoice's number, dates and status, the member it is made out to, its
 * lines with VAT, the totals, and the shipping preference.
 */
export function renderInvoicePdf(p: InvoicePrint): Promise<Buffer> {
  const { invoice, language } = p;
  const l = invoiceLabels(language);
  const money = (amount: number) => formatMoney(amount, invoice.Currency, language);
  const title = `${l.invoice} ${invoice.Number}`;
  return renderPdf({ title: `${p.houseName}: ${title}`, language }, (doc: Pdf) => {
    const left = doc.page.margins.left;
    const page: Page = { doc, p, l, money, left, width: doc.page.width - left - doc.page.margins.right };
    printHeading(page, title);
    printBilledTo(page);
    printLines(page);
    printVatNotes(page);
    printShipping(page);
  });
}
