import { PassThrough, type Readable } from 'node:stream';
import ExcelJS from 'exceljs';
import { fractionDigits } from '../../src/format.ts';
import { pick } from '../../src/http/language.ts';
import { yieldToLoop } from '../../src/pdf.ts';
import type { AuctionDoc, LotDoc } from '../../projections/catalogue/index.ts';
import type { Dictionary } from '../translations/dictionary.ts';

export const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/**
 * The auction's lots as an .xlsx workbook, written row by row by exceljs's streaming writer into the
 * returned stream: one row per lot in lot-number order under a header row; texts in the language, amounts
 * as numbers in the currency's major unit (1 234,50, not 123450 minor units), end times as dates (UTC).
 */
export function writeLotSpreadsheet(
  auction: AuctionDoc,
  lots: AsyncIterable<LotDoc[]>,
  o: { language: string; fallback: string; categoryNames: Map<number, string>; dictionary: Dictionary },
): Readable {
  const out = new PassThrough();
  const { language, fallback, dictionary } = o;
  const digits = fractionDigits(auction.Currency || 'EUR');
  const moneyFormat = digits === 0 ? '#,##0' : `#,##0.${'0'.repeat(digits)}`;
  const write = async () => {
    const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: true, useSharedStrings: false });
    workbook.creator = 'Bidder API';
    const sheetName = (pick(auction.Texts, language, fallback)?.Title || `Auction ${auction.Id}`).replace(/[\\/?*[\]:]/g, ' ').slice(0, 31);
    const sheet = workbook.addWorksheet(sheetName, { views: [{ state: 'frozen', ySplit: 1 }] });
    const h = (key: string, fallbackText: string) => dictionary.t(`export.${key}`, fallbackText);
    sheet.columns = [
      { header: h('lotNumber', 'Lot number'), key: 'lotNumber', width: 10 },
      { header: h('title', 'Title'), key: 'title', width: 40 },
      { header: h('description', 'Description'), key: 'description', width: 60 },
      { header: h('category', 'Category'), key: 'category', width: 20 },
      { header: h('estimateLow', 'Estimate low'), key: 'estimateLow', width: 14, style: { numFmt: moneyFormat } },
      { header: h('estimateHigh', 'Estimate high'), key: 'estimateHigh', width: 14, style: { numFmt: moneyFormat } },
      { header: h('startingPrice', 'Starting price'), key: 'startingPrice', width: 14, style: { numFmt: moneyFormat } },
      { header: h('currentBid', 'Current bid'), key: 'currentBid', width: 14, style: { numFmt: moneyFormat } },
      { header: h('currency', 'Currency'), key: 'currency', width: 10 },
      { header: `${h('endTime', 'End time')} (UTC)`, key: 'endTime', width: 18, style: { numFmt: 'yyyy-mm-dd hh:mm' } },
    ];
    sheet.getRow(1).font = { bold: true };
    const major = (minor: number | null, currency: string) => (minor === null ? null : minor / 10 ** fractionDigits(currency));
    for await (const page of lots) {
      for (const lot of page) {
        const text = pick(lot.Texts, language, fallback);
        sheet
          .addRow({
            lotNumber: lot.LotNumber,
            title: text?.Title ?? '',
            description: text?.Description ?? '',
            category: lot.CategoryId !== null ? (o.categoryNames.get(lot.CategoryId) ?? '') : '',
            estimateLow: major(lot.EstimateLow, lot.Currency),
            estimateHigh: major(lot.EstimateHigh, lot.Currency),
            startingPrice: major(lot.StartingPrice, lot.Currency),
            currentBid: major(lot.CurrentBid, lot.Currency),
            currency: lot.Currency,
            endTime: new Date(lot.EndTime),
          })
          .commit();
      }
      await yieldToLoop();
    }
    sheet.commit();
    await workbook.commit();
  };
  write().catch((error: unknown) => out.destroy(error instanceof Error ? error : new Error(String(error))));
  return out;
}
