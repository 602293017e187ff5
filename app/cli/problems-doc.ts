import fs from 'node:fs';
import { renderProblemsDoc } from '../../src/http/openapi/problems-doc.ts';
import { service } from '../features/index.ts';

/** `npm run docs:problems`: writes docs/problems.md from the catalogue of problem codes and every operation's codes. */
fs.writeFileSync(new URL('../../docs/problems.md', import.meta.url), renderProblemsDoc(service.operations));
process.stdout.write('docs/problems.md written\n');
