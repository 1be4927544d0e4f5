#!/usr/bin/env node
// Container entry point: apply pending migrations (under the advisory lock, so several
// services can start at once), then run the given script in this process.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { migrate } from '@starpo/db';

const [script] = process.argv.slice(2);
if (!script || !process.env.DATABASE_URL) {
  console.error('usage: DATABASE_URL=… node scripts/migrate-and.mjs <script.js>');
  process.exit(2);
}
await migrate(process.env.DATABASE_URL, { log: (m) => console.log(`[migrate] ${m}`) });
await import(pathToFileURL(path.resolve(script)).href);
