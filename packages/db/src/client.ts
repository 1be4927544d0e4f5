import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/prisma/client.js';

export type Db = PrismaClient;

/** A Prisma client over node-postgres (no Rust engine, works offline). */
export function createDb(databaseUrl: string, opts: { max?: number } = {}): Db {
  return new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl, max: opts.max ?? 10 }) });
}
