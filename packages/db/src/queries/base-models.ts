import type { Db } from '../client.js';

/** The team's pretrained base models and the deployment's shared ones, newest first. */
export function teamBaseModels(db: Db, teamId: string) {
  return db.baseModel.findMany({ where: { OR: [{ teamId }, { teamId: null }] }, orderBy: { createdAt: 'desc' } });
}

/** Whether the team has a base model `name`, or a pretrain job producing it is queued or running. */
export async function baseModelNameTaken(db: Db, teamId: string, name: string): Promise<boolean> {
  const taken =
    (await db.baseModel.findFirst({ where: { teamId, name } })) ??
    (await db.run.findFirst({ where: { teamId, kind: 'pretrain', name: `pretrain ${name}`, status: { in: ['queued', 'running'] } } }));
  return taken !== null;
}
