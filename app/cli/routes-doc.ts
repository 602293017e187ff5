import fs from 'node:fs';
import path from 'node:path';
import { currentRouteMap, ROOT } from '../route-map/index.ts';

/** `npm run docs:routes`: writes docs/routes.md from the features and their handlers. */
fs.writeFileSync(path.join(ROOT, 'docs/routes.md'), currentRouteMap());
process.stdout.write('docs/routes.md written\n');
