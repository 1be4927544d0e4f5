#!/usr/bin/env node
// Writes the API's OpenAPI document to a file, from the built API without starting it: the document
// is a pure function of the route contracts (apps/api/src/openapi.ts). Used by `npm run lint:openapi`.
import { writeFileSync } from 'node:fs';
import { openApiDocument } from '../apps/api/dist/openapi.js';

const out = process.argv[2];
if (!out) {
  console.error('usage: node scripts/openapi.mjs <file.json>');
  process.exit(2);
}
writeFileSync(out, `${JSON.stringify(openApiDocument(), null, 2)}\n`);
