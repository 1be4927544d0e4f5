// Prints the environment protocol's JSON Schemas (from the zod schemas in packages/envs) as the
// Markdown section docs/environments.md carries. Run after a build: node scripts/env-protocol-schemas.mjs
import { z } from 'zod';
import { ENV_PROTOCOL_SCHEMAS } from '@starpo/envs';

for (const [name, schema] of Object.entries(ENV_PROTOCOL_SCHEMAS)) {
  // as sent: a field with a default may be left out
  console.log(`#### ${name}\n\n\`\`\`json\n${JSON.stringify(z.toJSONSchema(schema, { io: 'input' }), null, 2)}\n\`\`\`\n`);
}
