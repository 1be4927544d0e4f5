export * from './client.js';
export * from './migrate.js';
export * from './embedded.js';
export * from './generated/prisma/client.js';
