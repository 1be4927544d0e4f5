import { Prisma } from '../generated/prisma/client.js';
import type { Db } from '../client.js';

export type EnvironmentRow = Prisma.EnvironmentGetPayload<object>;

/** A registration's address: a URL, or a command and the folder it runs in. */
export type EnvironmentEndpoint = { url: string } | { command: string[]; cwd: string };

/** The team's registered environments, oldest first. */
export function teamEnvironments(db: Db, teamId: string): Promise<EnvironmentRow[]> {
  return db.environment.findMany({ where: { teamId }, orderBy: { createdAt: 'asc' } });
}

export function findTeamEnvironment(db: Db, teamId: string, name: string): Promise<EnvironmentRow | null> {
  return db.environment.findUnique({ where: { teamId_name: { teamId, name } } });
}

/** Registers `name` for the team as `pending`; null when the team has that name already. */
export async function insertEnvironment(
  db: Db,
  r: { teamId: string; name: string; createdBy: string } & EnvironmentEndpoint,
): Promise<EnvironmentRow | null> {
  const endpoint = 'url' in r ? { url: r.url } : { command: r.command, cwd: r.cwd };
  try {
    return await db.environment.create({ data: { teamId: r.teamId, name: r.name, createdBy: r.createdBy, ...endpoint } });
  } catch (e) {
    if (e instanceof Prisma.PrismaClientKnownRequestError && e.code === 'P2002') return null;
    throw e;
  }
}

/** Removes the team's registration `name`; false when there is none. */
export async function deleteTeamEnvironment(db: Db, teamId: string, name: string): Promise<boolean> {
  return (await db.environment.deleteMany({ where: { teamId, name } })).count > 0;
}

/**
 * Takes one `pending` registration to describe, across teams, oldest first: one no worker holds, or
 * one whose worker took it more than `staleMs` ago and never answered (it may have died). Null: none.
 */
export async function claimPendingEnvironment(db: Db, staleMs: number): Promise<EnvironmentRow | null> {
  const rows = await db.$queryRawUnsafe<{ id: string }[]>(
    `UPDATE environments SET claimed_at = now()
       WHERE id = (SELECT id FROM environments
                    WHERE status = 'pending' AND (claimed_at IS NULL OR claimed_at < now() - $1 * interval '1 millisecond')
                    ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED)
     RETURNING id`,
    staleMs,
  );
  return rows[0] ? db.environment.findUnique({ where: { id: rows[0].id } }) : null;
}

/** Stores a worker's describe: the description (ready) or its error (failed). A registration deleted meanwhile stays gone. */
export async function finishEnvironmentDescribe(
  db: Db,
  id: string,
  result: { description: Prisma.InputJsonValue } | { error: string },
): Promise<void> {
  const data =
    'description' in result
      ? { status: 'ready', description: result.description, error: null }
      : { status: 'failed', description: Prisma.DbNull, error: result.error };
  await db.environment.updateMany({ where: { id, status: 'pending' }, data: { ...data, describedAt: new Date() } });
}
