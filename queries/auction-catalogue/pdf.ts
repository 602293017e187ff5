import { pdfText, renderPdf, yieldToLoop, type Pdf } from '../../src/pdf.ts';
import { formatDateTime, formatMoney } from '../../src/format.ts';
import { pick } from '../../src/http/language.ts';
import type { AuctionDoc, LotDoc } from '../../projections/catalogue/index.ts';
import type { Dictionary } from '../translations/dictionary.ts';

/** Lots written between two looks at the event loop: a 2,000-lot catalogue never holds it for long. */
const LOTS_PER_SLICE = 50;
const SHORT_DESCRIPTION = 280;

export function shorten(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), max - 20)).trimEnd()}…`;
}

function estimate(lot: LotDoc, language: string): string | null {
  if (lot.EstimateLow === null && lot.EstimateHigh === null) return null;
  const low = lot.EstimateLow !== null ? formatMoney(lot.EstimateLow, lot.Currency, language) : '';
  const high = lot.EstimateHigh !== null ? formatMoney(lot.EstimateHigh, lot.Currency, language) : '';
  return low && high ? `${low} – ${high}` : low || high;
}

/**
 * The printed catalogue of an auction in one language: the auction's title, dates and description on the
 * first page, then every lot (open or closed) in lot-number order with its number, title, estimate and a
 * short description.
 */
export async function renderCataloguePdf(
  auction: AuctionDoc,
  lots: AsyncIterable<LotDoc[]>,
  o: { language: string; fallback: string; houseName: string; dictionary: Dictionary },
): Promise<Buffer> {
  const { language, fallback, dictionary } = o;
  const text = pick(auction.Texts, language, fallback);
  const title = text?.Title ?? '';
  return renderPdf({ title: `${dictionary.t('pdf.catalogueTitle', 'Catalogue')}: ${title}`, language }, async (doc: Pdf) => {
    doc.font('Helvetica').fontSize(10).fillColor('#555555').text(pdfText(o.houseName));
    doc.moveDown(0.5);
    doc.font('Helvetica-Bold').fontSize(22).fillColor('#000000').text(pdfText(title));
    doc.moveDown(0.5);
    doc
      .font('Helvetica')
      .fontSize(11)
      .text(pdfText(`${dictionary.t('pdf.startsAt', 'Starts')}: ${formatDateTime(auction.StartTime, language)}`))
      .text(pdfText(`${dictionary.t('pdf.endsAt', 'Ends')}: ${formatDateTime(auction.EndTime, language)}`));
    if (text?.Description) doc.moveDown().text(pdfText(text.Description));
    doc.moveDown(1.5);
    const lotLabel = dictionary.t('pdf.lotNumber', 'Lot');
    const estimateLabel = dictionary.t('pdf.estimate', 'Estimate');
    let written = 0;
    for await (const page of lots) {
      for (const lot of page) {
        const lotText = pick(lot.Texts, language, fallback);
        doc
          .font('Helvetica-Bold')
          .fontSize(11)
          .text(pdfText(`${lotLabel} ${lot.LotNumber}. ${lotText?.Title ?? ''}`));
        const range = estimate(lot, language);
        if (range)
          doc
            .font('Helvetica')
            .fontSize(9)
            .fillColor('#333333')
            .text(pdfText(`${estimateLabel}: ${range}`));
        if (lotText?.Description)
          doc
            .font('Helvetica')
            .fontSize(9)
            .fillColor('#000000')
            .text(pdfText(shorten(lotText.Description, SHORT_DESCRIPTION)));
        doc.fillColor('#000000').moveDown(0.6);
        if (++written % LOTS_PER_SLICE === 0) await yieldToLoop();
      }
    }
  });
}
