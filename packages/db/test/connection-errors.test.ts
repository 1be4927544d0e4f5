import { describe, expect, it } from 'vitest';
import { isConnectionError } from '../src/index.js';

/** What a driver error looks like by the time it reaches the caller: Prisma's wrapper with the cause inside. */
const wrapped = (message: string, code?: string) => ({
  name: 'PrismaClientKnownRequestError',
  message: `\nInvalid invocation:\n\n${message}`,
  code,
});

describe('connection errors (the database is away) and query errors', () => {
  it('counts as the database being away every failure the fault suite met while Postgres was stopped, killed, frozen or restarting', () => {
    for (const e of [
      wrapped("Can't reach database server at 127.0.0.1:5432", 'P1001'),
      wrapped('Database error. Code: `57P03`. Message: `the database system is starting up`'),
      wrapped('Database error. Code: `57P03`. Message: `the database system is not yet accepting connections`'),
      wrapped('Database error. Code: `57P01`. Message: `terminating connection due to unexpected postmaster exit`'),
      { message: 'terminating connection because of crash of another server process', code: '57P02' },
      new Error('Client has encountered a connection error and is not queryable'),
      new Error('Connection terminated unexpectedly'),
      Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }),
      new Error('write EPIPE'),
      Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }),
      { message: 'outer', cause: { message: 'inner', cause: { code: 'ECONNREFUSED' } } },
      wrapped('Transaction API error: Unable to start a transaction in the given time.', 'P2028'),
      new Error('Query read timeout'),
    ])
      expect(isConnectionError(e), String(e.message)).toBe(true);
  });

  it('does not retry a query error: it would fail the same way again', () => {
    for (const e of [
      wrapped('Unique constraint failed on the fields: (`run_id`,`step`)', 'P2002'),
      wrapped('Database error. Code: `22021`. Message: `invalid byte sequence for encoding "UTF8": 0x00`'),
      new Error('lease 3 on run x is gone'),
      null,
      undefined,
    ])
      expect(isConnectionError(e)).toBe(false);
  });
});
