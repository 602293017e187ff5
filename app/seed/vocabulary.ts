/** Words in the three demo languages, for generated catalogues. */
export type Tri = { en: string; sv: string; de: string };

export const objects: Tri[] = [
  { en: 'chair', sv: 'stol', de: 'Stuhl' },
  { en: 'table', sv: 'bord', de: 'Tisch' },
  { en: 'cabinet', sv: 'skåp', de: 'Schrank' },
  { en: 'mirror', sv: 'spegel', de: 'Spiegel' },
  { en: 'clock', sv: 'klocka', de: 'Uhr' },
  { en: 'vase', sv: 'vas', de: 'Vase' },
  { en: 'painting', sv: 'målning', de: 'Gemälde' },
  { en: 'lamp', sv: 'lampa', de: 'Lampe' },
  { en: 'ring', sv: 'ring', de: 'Ring' },
  { en: 'necklace', sv: 'halsband', de: 'Halskette' },
  { en: 'watch', sv: 'armbandsur', de: 'Armbanduhr' },
  { en: 'bowl', sv: 'skål', de: 'Schale' },
  { en: 'sculpture', sv: 'skulptur', de: 'Skulptur' },
  { en: 'carpet', sv: 'matta', de: 'Teppich' },
  { en: 'sofa', sv: 'soffa', de: 'Sofa' },
  { en: 'desk', sv: 'skrivbord', de: 'Schreibtisch' },
  { en: 'candlestick', sv: 'ljusstake', de: 'Kerzenleuchter' },
  { en: 'teapot', sv: 'tekanna', de: 'Teekanne' },
  { en: 'bookcase', sv: 'bokhylla', de: 'Bücherregal' },
  { en: 'print', sv: 'grafiskt blad', de: 'Druckgrafik' },
];

export const materials: Tri[] = [
  { en: 'oak', sv: 'ek', de: 'Eiche' },
  { en: 'walnut', sv: 'valnöt', de: 'Nussbaum' },
  { en: 'birch', sv: 'björk', de: 'Birke' },
  { en: 'silver', sv: 'silver', de: 'Silber' },
  { en: 'gold', sv: 'guld', de: 'Gold' },
  { en: 'brass', sv: 'mässing', de: 'Messing' },
  { en: 'porcelain', sv: 'porslin', de: 'Porzellan' },
  { en: 'glass', sv: 'glas', de: 'Glas' },
  { en: 'marble', sv: 'marmor', de: 'Marmor' },
  { en: 'pewter', sv: 'tenn', de: 'Zinn' },
  { en: 'mahogany', sv: 'mahogny', de: 'Mahagoni' },
  { en: 'linen', sv: 'linne', de: 'Leinen' },
];

export const adjectives: Tri[] = [
  { en: 'Gustavian', sv: 'gustaviansk', de: 'gustavianisch' },
  { en: 'Baroque', sv: 'barock', de: 'barock' },
  { en: 'Art Deco', sv: 'art déco', de: 'Art-déco' },
  { en: 'Rococo', sv: 'rokoko', de: 'Rokoko' },
  { en: 'modernist', sv: 'modernistisk', de: 'modernistisch' },
  { en: 'Empire', sv: 'empire', de: 'Empire' },
  { en: 'rustic', sv: 'rustik', de: 'rustikal' },
  { en: 'carved', sv: 'snidad', de: 'geschnitzt' },
  { en: 'painted', sv: 'målad', de: 'bemalt' },
  { en: 'gilded', sv: 'förgylld', de: 'vergoldet' },
  { en: 'Scandinavian', sv: 'skandinavisk', de: 'skandinavisch' },
  { en: 'Victorian', sv: 'viktoriansk', de: 'viktorianisch' },
];

export const periods: Tri[] = [
  { en: '18th century', sv: '1700-tal', de: '18. Jahrhundert' },
  { en: '19th century', sv: '1800-tal', de: '19. Jahrhundert' },
  { en: '1920s', sv: '1920-tal', de: '1920er' },
  { en: '1950s', sv: '1950-tal', de: '1950er' },
  { en: '1970s', sv: '1970-tal', de: '1970er' },
];

export const conditions: Tri[] = [
  { en: 'excellent', sv: 'utmärkt', de: 'ausgezeichnet' },
  { en: 'good', sv: 'gott', de: 'gut' },
  { en: 'fair', sv: 'godtagbart', de: 'ordentlich' },
  { en: 'restored', sv: 'restaurerad', de: 'restauriert' },
];

export const places: Tri[] = [
  { en: 'Stockholm', sv: 'Stockholm', de: 'Stockholm' },
  { en: 'Copenhagen', sv: 'Köpenhamn', de: 'Kopenhagen' },
  { en: 'Vienna', sv: 'Wien', de: 'Wien' },
  { en: 'Paris', sv: 'Paris', de: 'Paris' },
  { en: 'London', sv: 'London', de: 'London' },
  { en: 'Gothenburg', sv: 'Göteborg', de: 'Göteborg' },
];

export const categoryTree: Array<{ id: number; parent: number | null; names: Tri }> = [
  { id: 1, parent: null, names: { en: 'Furniture', sv: 'Möbler', de: 'Möbel' } },
  { id: 2, parent: 1, names: { en: 'Chairs', sv: 'Stolar', de: 'Stühle' } },
  { id: 3, parent: 1, names: { en: 'Tables', sv: 'Bord', de: 'Tische' } },
  { id: 4, parent: 1, names: { en: 'Storage', sv: 'Förvaring', de: 'Aufbewahrung' } },
  { id: 5, parent: null, names: { en: 'Art', sv: 'Konst', de: 'Kunst' } },
  { id: 6, parent: 5, names: { en: 'Paintings', sv: 'Måleri', de: 'Malerei' } },
  { id: 7, parent: 5, names: { en: 'Sculpture', sv: 'Skulptur', de: 'Skulptur' } },
  { id: 8, parent: null, names: { en: 'Jewellery and watches', sv: 'Smycken och ur', de: 'Schmuck und Uhren' } },
  { id: 9, parent: null, names: { en: 'Glass and porcelain', sv: 'Glas och porslin', de: 'Glas und Porzellan' } },
  { id: 10, parent: null, names: { en: 'Lighting', sv: 'Belysning', de: 'Beleuchtung' } },
  { id: 11, parent: null, names: { en: 'Carpets and textiles', sv: 'Mattor och textil', de: 'Teppiche und Textilien' } },
  { id: 12, parent: null, names: { en: 'Silver', sv: 'Silver', de: 'Silber' } },
  { id: 13, parent: null, names: { en: 'Books and prints', sv: 'Böcker och grafik', de: 'Bücher und Grafik' } },
  { id: 14, parent: 5, names: { en: 'Photography', sv: 'Fotografi', de: 'Fotografie' } },
];

/** The category an object word belongs to. */
export const categoryOfObject: Record<string, number> = {
  chair: 2,
  sofa: 2,
  table: 3,
  desk: 3,
  cabinet: 4,
  bookcase: 4,
  mirror: 4,
  clock: 10,
  lamp: 10,
  candlestick: 12,
  vase: 9,
  bowl: 9,
  teapot: 12,
  painting: 6,
  sculpture: 7,
  ring: 8,
  necklace: 8,
  watch: 8,
  carpet: 11,
  print: 13,
};
