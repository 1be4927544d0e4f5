// The headless Chromium that the browser tests and bench:web drive: where it is, and how it is started.
import { existsSync } from 'node:fs';

/** Debian's chromium (installed by .ci/run), or CHROMIUM_PATH. */
export function chromiumPath() {
  return [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => p && existsSync(p)) ?? null;
}

/** Headless Chromium as root in a container, with no GPU. */
export const HEADLESS_ARGS = ['--no-sandbox', '--disable-gpu'];

/**
 * Chromium's launch flags. Since version 156, headless Chromium starts the omnibox popup's WebUI (its own
 * renderer, about 290 chrome:// requests) in every new window. On 2 cores that took about 2 s of CPU beside
 * each page's first load, a cost a user's browser pays once when its window opens, not on a navigation.
 */
export const CHROMIUM_ARGS = [
  ...HEADLESS_ARGS,
  '--disable-features=WebUIOmniboxPopup,WebUIOmniboxFullPopup,WebUIOmniboxAimPopup,PreloadTopChromeWebUI',
];
