import { pdfText, renderPdf, type Pdf } from '../../src/pdf.ts';
import { formatMoney } from '../../src/format.ts';
import { pick } from '../../src/http/language.ts';
import type { LotDoc } from '../../projections/catalogue/index.ts';
import type { Dictionary } from '../translations/dictionary.ts';

/** A lot's factsheet: its title, description, attributes, estimate, starting price and image links. */
export function renderFactsheetPdf(
  lot: LotDoc,
  o: { language: string; fallback: string; houseName: string; dictionary: Dictionary },
): Promise<Buffer> {
  const { language, fallback, dictionary } = o;
  const text = pick(lot.Texts, language, fallback);
  const heading = `${dictionary.t('pdf.lotNumber', 'Lot')} ${lot.LotNumber}. ${text?.Title ?? ''}`;
  return renderPdf({ title: heading, language }, (doc: Pdf) => {
    doc.font('Helvetica').fontSize(10).fillColor('#555555').text(pdfText(o.houseName)).moveDown(0.5);
    doc.font('Helvetica-Bold').fontSize(18).fillColor('#000000').text(pdfText(heading)).moveDown(0.5);
    if (text?.Description) doc.font('Helvetica').fontSize(11).text(pdfText(text.Description)).moveDown();
    for (const attribute of lot.Attributes) {
      const label = pick(attribute.Labels, language, fallback) ?? attribute.Name;
      const value = pick(attribute.Values, language, fallback) ?? '';
      doc
        .font('Helvetica-Bold')
        .fontSize(11)
        .text(pdfText(`${label}: `), { continued: true })
        .font('Helvetica')
        .text(pdfText(value));
    }
    doc.moveDown();
    const money = (amount: number) => formatMoney(amount, lot.Currency, language);
    if (lot.EstimateLow !== null || lot.EstimateHigh !== null) {
      const range = [lot.EstimateLow, lot.EstimateHigh]
        .filter((v): v is number => v !== null)
        .map(money)
        .join(' – ');
      doc
        .font('Helvetica-Bold')
        .text(pdfText(`${dictionary.t('label.estimate', 'Estimate')}: `), { continued: true })
        .font('Helvetica')
        .text(pdfText(range));
    }
    doc
      .font('Helvetica-Bold')
      .text(pdfText(`${dictionary.t('label.startingPrice', 'Starting price')}: `), { continued: true })
      .font('Helvetica')
      .text(pdfText(money(lot.StartingPrice)));
    if (lot.Images.length) {
      doc.moveDown();
      lot.Images.forEach((url, i) => {
        doc.fillColor('#1a0dab').text(pdfText(`${dictionary.t('link.image', 'Image')} ${i + 1}: ${url}`), { link: url, underline: true });
      });
      doc.fillColor('#000000');
    }
  });
}
