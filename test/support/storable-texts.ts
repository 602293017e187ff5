// Texts of every class a store must keep byte for byte (src/text/allowed-characters.ts takes each), for the event
// log's and the read models' contract suites: so that the log and the read models never disagree about what can be
// stored, on any adapter.

/** The longest text a field of an event takes: an auction's or a lot's description (20,000 UTF-16 code units). */
export const LONGEST_TEXT = 20_000;

export const STORABLE_TEXTS: Record<string, string> = {
  emoji: 'emoji 😀 👍🏽 🇸🇪 ❤️',
  zwj: 'ZWJ sequences 👩🏽‍💻 👨‍👩‍👧‍👦 🏳️‍🌈 🧑‍🤝‍🧑',
  astral: 'astral 𝄞 𠜎 𐐷 𝔘𝔫𝔦 and the last code point taken \u{10fffd}',
  rtl: 'RTL \u200fשלום עולם\u200f \u202eevil.exe\u202c مرحبا \u061c',
  combining: 'combining e\u0301 a\u0308\u0323 Z\u0351\u0364\u0489 \u0915\u094d\u0937 \u1100\u1161\u11a8',
  lines: 'lines one\r\ntwo\tthree\nfour\r',
  separators: 'separators \u2028 \u2029 \u00a0 \u200b \u2060 \ufeff \ufffd \ue000 \ufdcf \ufdf0',
  escapes: 'escapes "quoted" \\ back / slash </script> \u007e ~',
  // 3- and 4-byte UTF-8 characters up to the limit: 60,000 bytes at most, here 45,000.
  longest: '€😀ä'.repeat(LONGEST_TEXT / 4),
};

/** Keys a stored map holds (the interface dictionary's are dotted): each taken by src/text/allowed-characters.ts. */
export const STORABLE_KEYS: Record<string, string> = {
  'button.placeBid': 'dotted',
  '😀👩🏽‍💻': 'emoji',
  '\u200fשלום': 'rtl',
  'e\u0301': 'combining',
  'a b$c-d_e': 'punctuation',
  '10': 'integer-like',
};
