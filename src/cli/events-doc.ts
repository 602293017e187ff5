import fs from 'node:fs';
import { renderEventsDoc } from '../events/doc.ts';

/** `npm run docs:events`: writes docs/events.md from the event schemas. */
fs.writeFileSync(new URL('../../docs/events.md', import.meta.url), renderEventsDoc());
process.stdout.write('docs/events.md written\n');
