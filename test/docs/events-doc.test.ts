import fs from 'node:fs';
import { expect } from 'chai';
import { renderEventsDoc } from '../../src/events/doc.ts';
import { eventCatalog } from '../../app/features/events.ts';

describe('the event contract', () => {
  it('is documented in docs/events.md exactly as the schemas say (run `npm run docs:events` after a change)', () => {
    const onDisk = fs.readFileSync(new URL('../../docs/events.md', import.meta.url), 'utf8');
    expect(onDisk).to.equal(renderEventsDoc(eventCatalog));
  });

  it('names every event type once, in PascalCase and the past tense, with a version and a tenant field', () => {
    const types = eventCatalog.map((e) => e.type);
    expect(new Set(types).size).to.equal(types.length);
    for (const event of eventCatalog) {
      expect(event.type).to.match(/^[A-Z][a-z]+(?:[A-Z][a-z]+)*$/);
      expect(event.type, `${event.type} is not in the past tense`).to.match(/(ed|Up)$/);
      expect(event.version).to.be.a('number').and.at.least(1);
      expect(Object.keys(event.schema.shape)).to.include('tenant');
    }
  });
});
