// Runs `prisma generate` offline: Prisma 7's CLI only checks that a schema engine binary exists.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../../..');
execFileSync(process.execPath, [path.join(root, 'node_modules/prisma/build/index.js'), 'generate', '--schema', 'prisma/schema.prisma'], {
  cwd: root,
  stdio: ['ignore', 'ignore', 'inherit'],
  env: {
    ...process.env,
    CHECKPOINT_DISABLE: '1',
    PRISMA_HIDE_UPDATE_MESSAGE: '1',
    PRISMA_SCHEMA_ENGINE_BINARY: path.join(here, 'schema-engine-placeholder.sh'),
    DATABASE_URL: process.env.DATABASE_URL ?? 'postgresql://localhost/placeholder',
  },
});
