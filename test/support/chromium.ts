/**
 * Headless Chromium for the browser specs: Debian's `chromium` (which .ci/run installs when it is missing) driven by
 * playwright-core. Where it is not installed the specs skip, saying why.
 */
import fs from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Why the browser specs cannot run here, or null when they can. */
export function chromiumMissing(): string | null {
  return fs.existsSync(CHROMIUM) ? null : `no Chromium at ${CHROMIUM} (apt-get install chromium; .ci/run installs it)`;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
}
