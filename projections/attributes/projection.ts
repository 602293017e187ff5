import { defineDocumentProjection } from '../../src/projector/projection.ts';
import { catalogueEvents } from '../../commands/catalogue/events.ts';
import { catalogueLotEvents } from '../../commands/lots/events.ts';
import { foldText } from '../../src/text/fold.ts';
import { ATTRIBUTE_VALUES, type AttributeValueDoc, attributeValueId } from './collections.ts';

export const attributesProjection = defineDocumentProjection({
  name: 'attributes',
  events: [catalogueEvents, catalogueLotEvents],
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
