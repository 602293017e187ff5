import { expect } from 'chai';
import { z } from '../../src/http/schemas.ts';
import { keyProblem, printable, textProblem } from '../../src/text/allowed-characters.ts';
import { holdsLines } from '../../src/text/holds-lines.ts';
import { textErrors } from '../../src/text/text-errors.ts';

/** Every class of text a store must keep as it is (test/contracts: the storage cases). */
const TAKEN = [
  'plain ASCII, punctuation: !"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~',
  'émoji 😀 👩🏽‍💻 👨‍👩‍👧‍👦 🏳️‍🌈 and astral 𝄞 𠜎',
  'RTL: \u200fשלום\u200f and an override \u202eabc\u202c',
  'combining: e\u0301 a\u0308 \u0915\u094d\u0937',
  'separators and invisibles: \u2028 \u2029 \u200b \u00a0 \ufeff \ufffd',
  'private use \ue000 and the last code point before a non-character \u{10fffd}',
];

describe('the characters a text may hold (src/text/allowed-characters.ts)', () => {
  it('takes emoji, right-to-left marks, combining marks and every other character but those below', () => {
    for (const text of TAKEN) {
      expect(textProblem(text), text).to.equal(null);
      expect(textProblem(text, true), text).to.equal(null);
    }
  });

  it('refuses U+0000 and the other C0 and C1 controls, naming the first', () => {
    expect(textProblem('a\u0000b')).to.equal('must not hold the control character U+0000');
    for (const codePoint of [0x01, 0x08, 0x0b, 0x0c, 0x0e, 0x1b, 0x1f, 0x7f, 0x80, 0x85, 0x9f]) {
      const text = `x${String.fromCodePoint(codePoint)}y`;
      expect(textProblem(text), codePoint.toString(16)).to.match(/control character U\+00/);
      expect(textProblem(text, true), codePoint.toString(16)).to.match(/control character U\+00/);
    }
    expect(textProblem('\u00a0')).to.equal(null);
  });

  it('takes tab and line breaks only where the field holds lines', () => {
    for (const text of ['a\tb', 'a\nb', 'a\r\nb']) {
      expect(textProblem(text)).to.match(/^must not hold a (tab|line break) \(U\+000[9AD]\): the field holds one line$/);
      expect(textProblem(text, true)).to.equal(null);
    }
  });

  it('refuses lone surrogates, high or low, at either end, but takes a pair', () => {
    for (const text of ['\ud800', 'a\udbffb', '\udc00x', 'x\udfff', '\ude00\ud83d'])
      expect(textProblem(text), escape(text)).to.match(
        /^must not hold a lone surrogate \(U\+D[89A-F][0-9A-F]{2}\), which is not Unicode text$/,
      );
    expect(textProblem('\ud83d\ude00')).to.equal(null);
  });

  it('refuses non-characters: U+FDD0–U+FDEF and every code point ending in FFFE or FFFF', () => {
    for (const codePoint of [0xfdd0, 0xfdef, 0xfffe, 0xffff, 0x1fffe, 0x1ffff, 0x8fffe, 0x10fffe, 0x10ffff])
      expect(textProblem(`a${String.fromCodePoint(codePoint)}`), codePoint.toString(16)).to.match(/^must not hold the non-character U\+/);
    expect(textProblem('\ufdcf\ufdf0\ufffd\u{1fffd}\u{20000}')).to.equal(null);
  });

  it('takes keys that are not empty, do not start with $ and hold no control at all; a dot is taken', () => {
    for (const key of ['button.placeBid', 'a-b_c', '😀', 'שלום', 'a$b']) expect(keyProblem(key), key).to.equal(null);
    expect(keyProblem('')).to.equal('a key must not be empty');
    expect(keyProblem('$where')).to.equal('a key must not start with $');
    expect(keyProblem('a\tb')).to.equal('a key must not hold a tab (U+0009)');
    expect(keyProblem('a\u0000')).to.equal('a key must not hold the control character U+0000');
    expect(keyProblem('\ud800')).to.match(/lone surrogate/);
  });

  it('names a text in an answer with its refused characters escaped', () => {
    expect(printable('a\u0000b\ud800\n😀')).to.equal('a\\u{0}b\\u{d800}\\u{a}😀');
    expect(printable('x'.repeat(300))).to.have.length(100);
  });
});

describe('the texts of an input read beside its schema (src/text/text-errors.ts)', () => {
  const schema = z.object({
    Name: z.string().max(10).optional(),
    Message: holdsLines(z.string().trim().min(1).max(100)).nullable().optional(),
    Texts: z.record(z.string(), z.object({ title: z.string(), description: holdsLines(z.string()) })).optional(),
    Tags: z.array(z.string()).optional(),
    Choice: z.union([z.string(), z.number(), z.null()]).optional(),
    Count: z.string().transform(Number).pipe(z.number()).optional().openapi({ description: 'after .openapi()' }),
  });

  it('checks every field as one line unless its schema holds lines, through wrappers, records, arrays and unions', () => {
    expect(
      textErrors(
        schema,
        {
          Name: 'a\nb',
          Message: 'line one\r\nline\ttwo',
          Texts: { en: { title: 'T\tT', description: 'one\ntwo' } },
          Tags: ['ok', 'bad\u0000'],
          Choice: 'x\u0085',
          Count: '1\u0000',
        },
        'body',
      ).map((e) => e.field),
    ).to.deep.equal(['body.Name', 'body.Texts.en.title', 'body.Tags.1', 'body.Choice', 'body.Count']);
  });

  it('checks the keys of maps, and of nothing the schema drops', () => {
    const errors = textErrors(schema, { Texts: { $en: { title: 'a', description: 'b' }, '': {} }, 'Unknown\u0000': 'x\u0000' }, 'body');
    expect(errors).to.deep.equal([
      { field: 'body.Texts.$en', message: 'a key must not start with $' },
      { field: 'body.Texts.', message: 'a key must not be empty' },
    ]);
  });

  it('checks everything of a value without a schema as one line', () => {
    expect(textErrors(undefined, { a: ['x\n'], 'b\u0000': 1 }).map((e) => e.field)).to.deep.equal(['a.0', 'b\\u{0}']);
  });

  it('keeps the mark through .max(), .trim(), .openapi() and wrappers', () => {
    const marked = holdsLines(z.string()).trim().max(5).openapi({ description: 'x' }).nullable().optional();
    expect(textErrors(z.object({ m: marked }), { m: 'a\nb' })).to.deep.equal([]);
  });
});

const escape = (text: string) => JSON.stringify(text);
