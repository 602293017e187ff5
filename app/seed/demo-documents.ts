import type { IntakeRecord } from '../features/intake.ts';
import { renderPdf, pdfText } from '../../src/pdf.ts';

type Lang = 'en' | 'sv' | 'de';

const termsText: Record<Lang, { title: string; body: string[] }> = {
  en: {
    title: 'Terms of sale',
    body: [
      'These terms apply to every bid placed in this auction. By registering you accept them.',
      '1. A bid is binding. The highest bid at the close of a lot wins it, subject to the reserve.',
      '2. A buyer’s premium of 25 % of the hammer price is added, plus VAT where it applies.',
      '3. Lots are sold as they are. Condition reports are given in good faith but are not a guarantee.',
      '4. Payment is due within 10 days of the invoice. Lots are collected or shipped once paid.',
    ],
  },
  sv: {
    title: 'Försäljningsvillkor',
    body: [
      'Dessa villkor gäller för varje bud i denna auktion. Genom att registrera dig godkänner du dem.',
      '1. Ett bud är bindande. Det högsta budet när ett föremål stänger vinner, med förbehåll för reservationspriset.',
      '2. En köparprovision om 25 % av klubbat pris tillkommer, samt moms där sådan gäller.',
      '3. Föremålen säljs i befintligt skick. Konditionsrapporter lämnas i god tro men är ingen garanti.',
      '4. Betalning ska ske inom 10 dagar från fakturan. Föremålen hämtas eller skickas när de är betalda.',
    ],
  },
  de: {
    title: 'Versteigerungsbedingungen',
    body: [
      'Diese Bedingungen gelten für jedes Gebot in dieser Auktion. Mit der Registrierung erkennen Sie sie an.',
      '1. Ein Gebot ist verbindlich. Das höchste Gebot bei Schließung eines Loses erhält den Zuschlag, vorbehaltlich des Limits.',
      '2. Zum Zuschlagspreis kommt ein Aufgeld von 25 % hinzu, zuzüglich Mehrwertsteuer, wo sie anfällt.',
      '3. Die Lose werden verkauft, wie sie sind. Zustandsberichte werden nach bestem Wissen erstellt, sind aber keine Garantie.',
      '4. Die Zahlung ist binnen 10 Tagen nach Rechnungsstellung fällig. Bezahlte Lose werden abgeholt oder versandt.',
    ],
  },
};

const conditionText: Record<Lang, { title: string; body: string }> = {
  en: {
    title: 'Condition report',
    body: 'Examined by our specialist. Light wear consistent with age and use; no restorations found. Photographs on request.',
  },
  sv: {
    title: 'Konditionsrapport',
    body: 'Undersökt av vår specialist. Lätt slitage i enlighet med ålder och bruk; inga restaureringar funna. Fotografier på begäran.',
  },
  de: {
    title: 'Zustandsbericht',
    body: 'Von unserem Experten geprüft. Leichte alters- und gebrauchsbedingte Spuren; keine Restaurierungen festgestellt. Fotos auf Anfrage.',
  },
};

async function textPdf(title: string, language: string, heading: string, paragraphs: string[]): Promise<string> {
  const bytes = await renderPdf({ title, language }, (doc) => {
    doc.font('Helvetica-Bold').fontSize(18).text(pdfText(heading));
    doc.moveDown();
    doc.font('Helvetica').fontSize(11);
    for (const paragraph of paragraphs) doc.text(pdfText(paragraph)).moveDown(0.5);
  });
  return bytes.toString('base64');
}

/**
 * The demo tenant's documents as intake records (bytes inline, base64): the terms of every auction in every
 * language, conditions of sale and a catalogue supplement for the first auction, and condition reports of
 * some lots.
 */
export async function demoDocumentRecords(
  auctions: Array<{ id: number; title: Record<Lang, string> }>,
  conditionReportLots: number[],
): Promise<IntakeRecord[]> {
  const records: IntakeRecord[] = [];
  let documentId = 1;
  for (const auction of auctions) {
    for (const language of ['en', 'sv', 'de'] as const) {
      const terms = termsText[language];
      records.push({
        kind: 'auctionDocument',
        tenant: 'demo',
        auctionId: auction.id,
        documentId: documentId++,
        name: `${terms.title} – ${auction.title[language]}.pdf`,
        documentKind: 'terms',
        language,
        contentType: 'application/pdf',
        base64: await textPdf(terms.title, language, `${terms.title}: ${auction.title[language]}`, terms.body),
      });
    }
  }
  const first = auctions[0];
  records.push({
    kind: 'auctionDocument',
    tenant: 'demo',
    auctionId: first.id,
    documentId: documentId++,
    name: 'Conditions of sale.pdf',
    documentKind: 'conditions',
    language: 'en',
    contentType: 'application/pdf',
    base64: await textPdf('Conditions of sale', 'en', 'Conditions of sale', [
      'Viewing by appointment in the week before the sale. Collection within 14 days of payment.',
      'Shipping is arranged by the house at cost; insurance is included up to the hammer price.',
    ]),
  });
  records.push({
    kind: 'auctionDocument',
    tenant: 'demo',
    auctionId: first.id,
    documentId,
    name: 'Catalogue supplement.txt',
    documentKind: 'catalogue-supplement',
    language: 'en',
    contentType: 'text/plain',
    base64: Buffer.from(
      `Supplement to ${first.title.en}\n\nLot 12: the estimate is revised to 8,000–12,000 €.\nLot 40: withdrawn.\n`,
      'utf8',
    ).toString('base64'),
  });
  for (const lotId of conditionReportLots) {
    const text = conditionText.en;
    records.push({
      kind: 'conditionReport',
      tenant: 'demo',
      lotId,
      name: `condition-report-${lotId}.pdf`,
      language: 'en',
      contentType: 'application/pdf',
      base64: await textPdf(`${text.title} ${lotId}`, 'en', `${text.title}: lot ${lotId}`, [
        text.body,
        conditionText.sv.body,
        conditionText.de.body,
      ]),
    });
  }
  return records;
}
