// Author a new SQL migration offline: diff the last committed schema against prisma/schema.prisma
// with Prisma 6.19's Wasm schema engine (Prisma 7's CLI downloads a native engine and fails offline).
// Usage: DATABASE_URL=<any scratch postgres> npm run migration:new -w @starpo/db -- <name>
import { execFileSync, execSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const name = process.argv[2];
if (!name || !process.env.DATABASE_URL) {
  console.error('usage: DATABASE_URL=postgresql://… npm run migration:new -w @starpo/db -- <name>');
  process.exit(2);
}
const work = mkdtempSync(path.join(os.tmpdir(), 'starpo-migration-'));
/** Prisma 6 wants the url in the schema and a client generator with engineType "client". */
const toV6 = (schema) =>
  schema
    .replace(
      /generator client \{[\s\S]*?\}\n/,
      'generator client {\n  provider   = "prisma-client"\n  output     = "./gen"\n  engineType = "client"\n}\n',
    )
    .replace('provider = "postgresql"\n}', 'provider = "postgresql"\n  url      = env("DATABASE_URL")\n}');
let previous = '';
try {
  previous = execSync('git show HEAD:prisma/schema.prisma', { cwd: root, encoding: 'utf8' });
} catch {
  // first migration
}
writeFileSync(path.join(work, 'to.prisma'), toV6(readFileSync(path.join(root, 'prisma/schema.prisma'), 'utf8')));
if (previous) writeFileSync(path.join(work, 'from.prisma'), toV6(previous));
writeFileSync(
  path.join(work, 'prisma.config.ts'),
  `import { defineConfig } from 'prisma/config';\nimport { PrismaPg } from 'adapter-pg-7';\nexport default defineConfig({ experimental: { adapter: true }, engine: 'js', adapter: async () => new PrismaPg({ connectionString: process.env.DATABASE_URL! }), schema: 'to.prisma' });\n`,
);
execSync('npm init -y >/dev/null && npm i -s prisma@6.19.3 adapter-pg-7@npm:@prisma/adapter-pg@7.10.1 >/dev/null', {
  cwd: work,
  stdio: 'inherit',
});
const from = previous ? ['--from-schema-datamodel', 'from.prisma'] : ['--from-empty'];
const sql = execFileSync('npx', ['prisma', 'migrate', 'diff', ...from, '--to-schema-datamodel', 'to.prisma', '--script'], {
  cwd: work,
  encoding: 'utf8',
  env: { ...process.env, CHECKPOINT_DISABLE: '1' },
})
  .split('\n')
  .filter((l) => !l.startsWith('Loaded Prisma config'))
  .join('\n');
if (!sql.trim() || sql.includes('This is an empty migration')) {
  console.error('no schema changes');
  process.exit(1);
}
const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
const dir = path.join(root, 'prisma/migrations', `${stamp}_${name}`);
mkdirSync(dir, { recursive: true });
writeFileSync(path.join(dir, 'migration.sql'), sql);
console.log(`wrote ${path.relative(root, dir)}/migration.sql`);
