import type { Doc, TenantScope } from '../../src/ports/read-models.ts';

/**
 * The attribute values lots carry, per attribute name, language and value as the catalogue filters match it
 * (folded: lower case, without accents), with the value and label as people read them. Counts are not kept
 * here: they depend on the filters of a request and are counted on the lots (`Meta.<name>.<language>`).
 */
export const ATTRIBUTE_VALUES = 'attribute_values';

export interface AttributeValueDoc extends Doc {
  /** The attribute's name as the catalogue writes it (`Material`). */
  Name: string;
  /** Lower-cased name: the key of the lots' `Meta` (MetaDataProperties names are case-insensitive). */
  NameKey: string;
  Language: string;
  /** The value folded, as lots are filtered on it. */
  Folded: string;
  /** The value as the latest lot carrying it writes it. */
  Value: string;
  Label: string;
}

export const attributeValueId = (nameKey: string, language: string, folded: string) => `${nameKey}|${language}|${folded}`;
export const attributeValues = (db: TenantScope) => db.collection<AttributeValueDoc>(ATTRIBUTE_VALUES);
