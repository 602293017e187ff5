import { defineDocumentProjection } from '../../src/projector/projection.ts';
import { catalogueEvents } from '../../commands/catalogue/events.ts';
import type { Doc, TenantScope } from '../../src/ports/read-models.ts';
import { foldText } from '../../src/text/fold.ts';

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

export const attributesProjection = defineDocumentProjection({
  name: 'attributes',
  events: [catalogueEvents],
  handles: ['LotCatalogued'],
  collections: [{ name: ATTRIBUTE_VALUES, indexes: [{ fields: ['Language', 'NameKey'] }] }],
  async apply(event, uow) {
    const d = event.data;
    const written = new Set<string>();
    for (const attribute of d.attributes) {
      const nameKey = attribute.name.toLowerCase();
      for (const [language, value] of Object.entries(attribute.values)) {
        const folded = foldText(value);
        const id = attributeValueId(nameKey, language, folded);
        // A document takes one write per event (its position guards it): a lot naming a value twice writes it once.
        if (written.has(id)) continue;
        written.add(id);
        await uow.update<AttributeValueDoc>(ATTRIBUTE_VALUES, d.tenant, id, () => ({
          Name: attribute.name,
          NameKey: nameKey,
          Language: language,
          Folded: folded,
          Value: value,
          Label: attribute.labels[language] ?? attribute.name,
        }));
      }
    }
  },
});
