#!/usr/bin/env node
// The environment variables of every process, as markdown tables printed from their settings schemas
// (needs `npm run build`). `node scripts/settings-table.mjs` prints them; `--write` puts them into
// docs/deployment.md between its markers; `--check` exits 1 when the doc differs (e2e/settings.test.ts).
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { settingsTable } from '@starpo/contracts';
import { cliEnv } from '@starpo/trainer/settings';
import { apiEnv } from '../apps/api/dist/settings.js';
import { diagnoseEnv, workerEnv } from '../apps/worker/dist/settings.js';
import { webEnv } from '../apps/web/settings.mjs';
import { startEnv } from './settings.mjs';

export const DOC = fileURLToPath(new URL('../docs/deployment.md', import.meta.url));
const START = '<!-- settings tables: printed by `node scripts/settings-table.mjs --write`; edit the schemas, not these -->';
const END = '<!-- end of settings tables -->';

const PROCESSES = [
  ['`npm start` (scripts/settings.mjs); everything else is passed on to the processes it starts', startEnv.vars],
  ['API (apps/api/src/settings.ts)', apiEnv.vars],
  ['Worker (apps/worker/src/settings.ts)', workerEnv.vars],
  ['Dashboard server (apps/web/settings.mjs)', webEnv.vars],
  ['`starpo` command line (packages/trainer/src/settings.ts)', cliEnv.vars],
  ['`npm run diagnose` (apps/worker/src/settings.ts)', diagnoseEnv.vars],
];

/** The section of docs/deployment.md between (and with) its markers. */
export function settingsSection() {
  return [START, ...PROCESSES.flatMap(([title, vars]) => ['', `### ${title}`, '', settingsTable(vars)]), '', END].join('\n');
}

/** The doc with its section replaced by what the schemas print now. */
export function withSection(doc) {
  const from = doc.indexOf(START);
  const to = doc.indexOf(END);
  if (from < 0 || to < from) throw new Error(`${DOC} has no settings section (${START} … ${END})`);
  return doc.slice(0, from) + settingsSection() + doc.slice(to + END.length);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const doc = readFileSync(DOC, 'utf8');
  if (process.argv.includes('--write')) writeFileSync(DOC, withSection(doc));
  else if (process.argv.includes('--check')) {
    if (withSection(doc) !== doc) {
      console.error('docs/deployment.md: the settings tables differ from the schemas; run node scripts/settings-table.mjs --write');
      process.exit(1);
    }
  } else console.log(settingsSection());
}
