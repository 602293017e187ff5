import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The standard fonts of pdfjs-dist (a directory path with a trailing slash, as pdfjs wants it). */
const standardFontDataUrl = `${path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../node_modules/pdfjs-dist/standard_fonts')}/`;

/**
 * The text of each page of a PDF, as pdf.js extracts it (the way a reader's search finds it). Throws when the
 * bytes are not a PDF pdf.js can open.
 */
export async function pdfPages(bytes: Buffer | Uint8Array): Promise<string[]> {
  const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const doc = await pdfjs.getDocument({ data: new Uint8Array(bytes), standardFontDataUrl, isEvalSupported: false, verbosity: 0 }).promise;
  try {
    const pages: string[] = [];
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      const content = await page.getTextContent();
      pages.push(content.items.map((item) => ('str' in item ? item.str + (item.hasEOL ? '\n' : '') : '')).join(''));
      page.cleanup();
    }
    return pages;
  } finally {
    await doc.destroy();
  }
}

/** All the text of a PDF, whitespace folded to single spaces (so wrapped lines read as one). */
export async function pdfText(bytes: Buffer | Uint8Array): Promise<string> {
  return foldSpace((await pdfPages(bytes)).join('\n'));
}

export const foldSpace = (text: string) => text.replace(/[\s\u00a0\u202f\u2007\u2009]+/g, ' ').trim();
