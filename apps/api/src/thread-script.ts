import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The built JavaScript of a worker-thread script beside `moduleUrl` (`relative`, as a `.js` path):
 * found next to the module when it runs from `dist`, else in the build output when it runs from the
 * TypeScript sources (tests), since a thread cannot load TypeScript.
 */
export function threadScript(moduleUrl: string, relative: string): string {
  const here = fileURLToPath(new URL(relative, moduleUrl));
  if (existsSync(here)) return here;
  const built = here.replace(/([\\/])src([\\/])(?!.*[\\/]src[\\/])/, '$1dist$2');
  if (!existsSync(built)) throw new Error(`thread script not found (${built}); build @starpo/api first`);
  return built;
}
