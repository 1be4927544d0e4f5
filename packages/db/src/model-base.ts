import { realpathSync } from 'node:fs';
import path from 'node:path';
import { shippedBase, starpoTinyRefusal } from '@starpo/contracts';
import type { Db } from './client.js';
import { dbSettings } from './settings.js';

/**
 * Where `model.base` may point: a random init (`starpo-tiny/<size>`), a shipped base, a base model
 * of the team (or the deployment's shared ones), or a folder under one of the MODEL_ROOTS.
 */
export type ModelBaseRef = { kind: 'scratch' } | { kind: 'shipped' } | { kind: 'stored' } | { kind: 'folder'; dir: string };

/** The one answer for any other value: it says nothing of whether a path exists or what it holds. */
export const MODEL_BASE_REFUSED =
  'not a shipped base (starpo-base/…), starpo-tiny/<size>, a base model of this team, or an absolute folder under MODEL_ROOTS';

/** MODEL_ROOTS: absolute folders that runs may load model folders from; none by default (settings.ts). */
export const modelRoots = (): readonly string[] => dbSettings().modelRoots;

const within = (root: string, p: string) => {
  const rel = path.relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
};

/**
 * The absolute folder `p` names, `..` folded away, when its text lies under one of `roots`, else null.
 * No file is touched: the API's check (model.base, a registered environment's cwd); a worker checks
 * the real path again before it loads or runs anything (realFolderUnderRoots).
 */
export function folderUnderRoots(p: string, roots: readonly string[]): string | null {
  if (!path.isAbsolute(p)) return null;
  const dir = path.resolve(p);
  return roots.some((r) => within(r, dir)) ? dir : null;
}

/**
 * What `model.base` names for this team, or null when it may not be loaded. Decided from the
 * name, the database and the text of the path alone: no file is touched (the launch check).
 */
export async function classifyModelBase(db: Db, teamId: string, base: string, roots = modelRoots()): Promise<ModelBaseRef | null> {
  if (base.startsWith('starpo-tiny/')) return starpoTinyRefusal(base) ? null : { kind: 'scratch' };
  if (shippedBase(base)) return { kind: 'shipped' };
  if (path.isAbsolute(base)) {
    const dir = folderUnderRoots(base, roots);
    return dir ? { kind: 'folder', dir } : null;
  }
  const stored = await db.baseModel.findFirst({ where: { OR: [{ teamId }, { teamId: null }], name: base }, select: { id: true } });
  return stored ? { kind: 'stored' } : null;
}

/**
 * The folder's real path when it lies under a root once symlinks are followed, else null (also
 * when it does not exist: the caller answers both alike). The worker's check just before loading.
 */
export function realFolderUnderRoots(dir: string, roots = modelRoots()): string | null {
  let real: string;
  try {
    real = realpathSync(dir);
  } catch {
    return null;
  }
  const realRoots = roots.flatMap((r) => {
    try {
      return [realpathSync(r)];
    } catch {
      return [];
    }
  });
  return realRoots.some((r) => within(r, real)) ? real : null;
}
