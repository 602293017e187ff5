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
    const width = doc.page.width - left - doc.page.margins.right;
    const field = (label: string, value: string) =>
      doc
        .font('Helvetica-Bold')
        .fontSize(10)
        .text(pdfText(`${label}: `), { continued: true })
        .font('Helvetica')
        .text(pdfText(value));

    doc.font('Helvetica-Bold').fontSize(14).fillColor('#000000').text(pdfText(p.houseName)).moveDown(0.5);
    doc.font('Helvetica-Bold').fontSize(20).text(pdfText(title)).moveDown(0.5);
    field(l.number, String(invoice.Number));
    field(l.issued, formatDate(invoice.IssuedAt, language));
    field(l.due, formatDate(invoice.DueAt, language));
    field(
      l.status,
      invoice.Status === 'paid' && invoice.PaidAt ? `${l.paid} (${l.paidOn} ${formatDate(invoice.PaidAt, language)})` : l.unpaid,
    );
    if (invoice.AuctionId !== null)
      field(l.auction, p.auctionTitle ? `${invoice.AuctionId}, ${p.auctionTitle}` : String(invoice.AuctionId));
    doc.moveDown();

    doc.font('Helvetica-Bold').fontSize(11).text(pdfText(l.billedTo));
    doc.font('Helvetica').fontSize(10);
    for (const line of [p.memberName, p.companyName, ...p.addressLines]) if (line) doc.text(pdfText(line));
    doc.text(pdfText(`${l.member} ${p.memberId}`));
    doc.moveDown();

    // The lines: description, amount, VAT rate, VAT.
    const columns = [
      { width: width - 270, align: 'left' as const },
      { width: 100, align: 'right' as const },
      { width: 70, align: 'right' as const },
      { width: 100, align: 'right' as const },
    ];
    const row = (cells: string[], bold = false) => {
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
    };
    row([l.description, l.amount, l.vatRate, l.vat], true);
    doc
      .moveTo(left, doc.y)
      .lineTo(left + width, doc.y)
      .stroke();
    doc.moveDown(0.3);
    // A line of a lot under the margin scheme holds its VAT and never shows it (Directive 2006/112 art 339).
    for (const line of invoice.Lines)
      row(
        line.VatScheme === 'margin'
          ? [line.Description, money(line.Amount), '–', '–']
          : [line.Description, money(line.Amount), formatRate(line.VatRate, language), money(line.VatAmount)],
      );
    doc
      .moveTo(left, doc.y)
      .lineTo(left + width, doc.y)
      .stroke();
    doc.moveDown(0.3);
    row([l.subtotal, money(invoice.Subtotal), '', '']);
    row([l.vatTotal, money(invoice.VatTotal), '', '']);
    row([l.total, money(invoice.Total), '', ''], true);
    const notes = [
      invoice.VatFree ? l.reverseCharge : null,
      invoice.Lines.some((line) => line.VatScheme === 'margin') ? l.marginScheme : null,
    ];
    for (const note of notes.filter((n): n is string => n !== null)) {
      doc.moveDown(0.5);
      doc.font('Helvetica-Oblique').fontSize(9).text(pdfText(note), left, doc.y, { width });
    }
    doc.moveDown();

    doc.font('Helvetica-Bold').fontSize(11).text(pdfText(l.shipping), left, doc.y, { width });
    doc.font('Helvetica').fontSize(10);
    const s = invoice.Shipping;
    if (!s) doc.text(pdfText(l.notChosen));
    else {
      doc.text(pdfText(l[s.Method]));
      for (const line of [s.Name, s.Address, [s.ZipCode, s.City].filter(Boolean).join(' '), s.Country]) if (line) doc.text(pdfText(line));
    }
  });
}
