import { attributesReadModels } from '../../projections/attributes/index.ts';
import { givenEvents } from '../support/projection-spec.ts';
import { lotCatalogued } from '../support/catalogue-events.ts';

const material = (values: Record<string, string>, labels: Record<string, string> = { en: 'Material', nl: 'Materiaal' }) => ({
  name: 'Material',
  labels,
  values,
});

describe('attributes projection', () => {
  it('keeps each attribute value of a lot per language, folded as filters match it, with its label', async () => {
    await givenEvents(
      lotCatalogued(1, { attributes: [material({ en: 'Oak', nl: 'Eiken' }), { name: 'Period', labels: {}, values: { en: 'Art Déco' } }] }),
    )
      .whenProjected(attributesReadModels)
      .thenDocuments('attribute_values', 'demo', [
        { _id: 'material|en|oak', Name: 'Material', NameKey: 'material', Language: 'en', Folded: 'oak', Value: 'Oak', Label: 'Material' },
        {
          _id: 'material|nl|eiken',
          Name: 'Material',
          NameKey: 'material',
          Language: 'nl',
          Folded: 'eiken',
          Value: 'Eiken',
          Label: 'Materiaal',
        },
        // No label in the language: the attribute's name.
        {
          _id: 'period|en|art deco',
          Name: 'Period',
          NameKey: 'period',
          Language: 'en',
          Folded: 'art deco',
          Value: 'Art Déco',
          Label: 'Period',
        },
      ]);
  });

  it('keeps one document per value however lots spell it, written as the latest lot writes it', async () => {
    await givenEvents(
      lotCatalogued(1, { attributes: [material({ en: 'OAK' })] }),
      lotCatalogued(2, { attributes: [material({ en: 'oak' }, { en: 'Wood' })] }),
    )
      .whenProjected(attributesReadModels)
      .thenDocuments('attribute_values', 'demo', [
        { _id: 'material|en|oak', Name: 'Material', NameKey: 'material', Language: 'en', Folded: 'oak', Value: 'oak', Label: 'Wood' },
      ]);
  });

  it('keeps a value once no lot carries it any more (values are never counted here), and writes a value a lot names twice once', async () => {
    await givenEvents(
      lotCatalogued(1, { attributes: [material({ en: 'Oak' }), { name: 'material', labels: {}, values: { en: 'oak' } }] }),
      lotCatalogued(1, { attributes: [] }),
    )
      .whenProjected(attributesReadModels)
      .thenDocuments('attribute_values', 'demo', [
        { _id: 'material|en|oak', Name: 'Material', NameKey: 'material', Language: 'en', Folded: 'oak', Value: 'Oak', Label: 'Material' },
      ]);
  });

  it("keeps each tenant's attribute values apart", async () => {
    await givenEvents(
      lotCatalogued(1, { attributes: [material({ en: 'Oak' })] }),
      lotCatalogued(1, { tenant: 'demo2', attributes: [material({ en: 'Pine' })] }),
    )
      .whenProjected(attributesReadModels)
      .thenDocuments('attribute_values', 'demo', [
        { _id: 'material|en|oak', Name: 'Material', NameKey: 'material', Language: 'en', Folded: 'oak', Value: 'Oak', Label: 'Material' },
      ])
      .thenDocuments('attribute_values', 'demo2', [
        {
          _id: 'material|en|pine',
          Name: 'Material',
          NameKey: 'material',
          Language: 'en',
          Folded: 'pine',
          Value: 'Pine',
          Label: 'Material',
        },
      ]);
  });
});
