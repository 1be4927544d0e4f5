import { ROLE_RANK, RUN_OWNER_ACTIONS, runOwnershipRefusal, type Me, type RoleName, type RunOwnerAction } from '@starpo/contracts';

/** What the dashboard offers; each maps to the least role the API's guard asks for. */
export type Action = 'launch' | 'edit' | 'cancel' | 'resume' | 'clone' | 'delete' | 'manageTeam' | 'judge';

const MIN: Record<Action, RoleName> = {
  launch: 'member',
  edit: 'member',
  cancel: 'member',
  resume: 'member',
  clone: 'member',
  delete: 'member',
  manageTeam: 'owner',
  // mark the reasoning checker's flags right or wrong
  judge: 'member',
};

/**
 * Why `me` may not do `action` (on `run`, for per-run rules), or null when allowed.
 * The API decides in the end; this only keeps controls a role cannot use from looking usable.
 */
export function denied(me: Me | null | undefined, action: Action, run?: { ownerId: string | null }): string | null {
  if (!me) return 'sign in first';
  const min = MIN[action];
  if (ROLE_RANK[me.role] < ROLE_RANK[min]) return `needs the ${min} role; you are ${me.role}`;
  if (run && isRunOwnerAction(action)) return runOwnershipRefusal({ userId: me.user.id, role: me.role, admin: me.admin }, run, action);
  return null;
}

const isRunOwnerAction = (a: Action): a is RunOwnerAction => (RUN_OWNER_ACTIONS as readonly string[]).includes(a);
