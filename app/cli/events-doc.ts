import fs from 'node:fs';
import { renderEventsDoc } from '../../src/events/doc.ts';
import { eventCatalog } from '../features/events.ts';

/** `npm run docs:events`: writes docs/events.md from the event schemas of every feature. */
fs.writeFileSync(new URL('../../docs/events.md', import.meta.url), renderEventsDoc(eventCatalog));
process.stdout.write('docs/events.md written\n');
