/**
 * No text an intake record holds can be what a store refuses (src/text/allowed-characters.ts): every intake kind
 * walked from its schema, so that a new kind is covered without a line here. A record with U+0000, a C1 control, a
 * lone surrogate or a non-character in any one of its texts, or a bad key in any of its maps, is a line error
 * naming that field, and nothing is appended for it; tab and line breaks only where the field holds lines.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { INTAKE_KINDS, importLines } from '../../app/features/intake.ts';
import { SqliteEventLog } from '../../src/adapters/embedded/sqlite-event-log.ts';
import { sample, setAt, textSlots } from '../support/schema-texts.ts';

const BAD = ['a\u0000b', 'a\u0001b', 'a\u009fb', 'a\ud800b', 'a\udfffb', 'a\ufdd0b', 'a\u{10ffff}b'];

describe('intake: every text of every kind holds only what every store keeps', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bidder-intake-texts-'));
  let log: SqliteEventLog;
  before(() => {
    log = new SqliteEventLog(path.join(dir, 'events.sqlite'));
  });
  after(async () => {
    await log.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Imports the records as NDJSON lines: the line errors, and whether anything was appended. */
  async function imported(records: unknown[]) {
    const before = await log.headPosition();
    const report = await importLines(
      log,
      records.map((r) => JSON.stringify(r)),
    );
    expect(await log.headPosition(), 'appended').to.equal(before);
    return report.errors;
  }

  it('refuses a bad character in any text of any kind, and a bad key in any of its maps, naming the field', async () => {
    let cases = 0;
    for (const kind of INTAKE_KINDS) {
      const base = { ...(sample(kind.schema) as object), kind: kind.kind };
      for (const slot of textSlots(kind.schema)) {
        if (slot.path[0] === 'kind') continue;
        const field = slot.path.join('.');
        const records = slot.key
          ? [setAt(base, slot.path, { 'a\u0000': 'x' }), setAt(base, slot.path, { $where: 'x' }), setAt(base, slot.path, { '': 'x' })]
          : BAD.map((bad) => setAt(base, slot.path, bad));
        const errors = await imported(records);
        expect(
          errors.map((e) => e.line),
          `${kind.kind} ${field}`,
        ).to.deep.equal(records.map((_, i) => i + 1));
        const named = slot.key ? [`${field}.a\\u{0}: `, `${field}.$where: `, `${field}.: `] : records.map(() => `${field}: `);
        errors.forEach((e, i) =>
          expect(e.message, `${kind.kind} ${field}`).to.match(new RegExp(`^${escape(named[i])}(must not|a key must not)`)),
        );
        cases += records.length;
      }
    }
    expect(cases).to.be.greaterThan(500);
  });

  it('takes tab and line breaks only in the fields that hold lines', async () => {
    const withLines: string[] = [];
    for (const kind of INTAKE_KINDS) {
      const base = { ...(sample(kind.schema) as object), kind: kind.kind };
      for (const slot of textSlots(kind.schema).filter((s) => !s.key && s.path[0] !== 'kind')) {
        const field = slot.path.join('.');
        const record = setAt(base, slot.path, 'line one\r\nline two\tand a tab');
        const before = await log.headPosition();
        const report = await importLines(log, [JSON.stringify(record)]);
        const message = report.errors[0]?.message ?? '';
        if (slot.lines) {
          withLines.push(`${kind.kind} ${field}`);
          expect(message, `${kind.kind} ${field}`).to.not.include(`${field}: must not hold`);
        } else {
          expect(message, `${kind.kind} ${field}`).to.match(new RegExp(`^${escape(field)}: must not hold a line break`));
          expect(await log.headPosition()).to.equal(before);
        }
      }
    }
    // The intake fields that hold lines (docs/api-decisions.md "Texts").
    expect(withLines.sort()).to.deep.equal([
      'auction texts.k.description',
      'auctionDocument base64',
      'conditionReport base64',
      'lot texts.k.description',
      'profile extraData.k',
      'translations entries.k',
    ]);
  });
});

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
