import PDFDocument from 'pdfkit';

export type Pdf = PDFKit.PDFDocument;

/**
 * Text for PDFKit's built-in fonts (Helvetica, WinAnsi: Western European letters, € and typographic
 * punctuation): the no-break spaces Intl puts in numbers become plain spaces, and characters those fonts
 * cannot show become `?` instead of silently vanishing.
 */
export function pdfText(text: string): string {
  return text
    .normalize('NFC')
    .replace(/[\u00a0\u202f\u2007\u2009]/g, ' ')
    .replace(/\u2212/g, '-')
    .replace(
      /[^\x09\x0a\x0d\x20-\x7e\u00a0-\u00ff\u20ac\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u017d\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u017e\u0178]/g,
      '?',
    );
}

/**
 * Renders a PDF with PDFKit (A4, compressed) and collects its bytes. `build` may be async: long documents
 * yield to the event loop between parts (`yieldEvery`), so other requests are answered meanwhile.
 */
export async function renderPdf(info: { title: string; language: string }, build: (doc: Pdf) => void | Promise<void>): Promise<Buffer> {
  const doc = new PDFDocument({
    size: 'A4',
    margin: 50,
    compress: true,
    bufferPages: false,
    lang: info.language,
    info: { Title: pdfText(info.title), Producer: 'Bidder API', Creator: 'Bidder API' },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const ended = new Promise<void>((resolve, reject) => {
    doc.on('end', resolve);
    doc.on('error', reject);
  });
  await build(doc);
  doc.end();
  await ended;
  return Buffer.concat(chunks);
}

/** Lets the event loop run (between parts of a long document). */
export const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));
