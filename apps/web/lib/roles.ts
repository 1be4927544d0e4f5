import { ROLE_RANK, ROUTES, RUN_OWNER_ACTIONS, runOwnershipRefusal, type Me, type RoleName, type RunOwnerAction } from '@starpo/contracts';

/** What the dashboard offers, each by the API route that does it: the route's contract names the least role. */
const ROUTE_OF = {
  launch: ROUTES.createRun,
  edit: ROUTES.updateRun,
  cancel: ROUTES.cancelRun,
  resume: ROUTES.resumeRun,
  clone: ROUTES.cloneRun,
  delete: ROUTES.deleteRun,
  manageTeam: ROUTES.createInvite,
  registerEnv: ROUTES.registerEnv,
  // mark the reasoning checker's flags right or wrong
  judge: ROUTES.markClaim,
} as const;
export type Action = keyof typeof ROUTE_OF;

/**
 * Why `me` may not do `action` (on `run`, for per-run rules), or null when allowed.
 * The API decides in the end; this only keeps controls a role cannot use from looking usable.
 */
export function denied(me: Me | null | undefined, action: Action, run?: { ownerId: string | null }): string | null {
  if (!me) return 'sign in first';
  const min: RoleName = ROUTE_OF[action].role;
  if (ROLE_RANK[me.role] < ROLE_RANK[min]) return `needs the ${min} role; you are ${me.role}`;
  if (run && isRunOwnerAction(action)) return runOwnershipRefusal({ userId: me.user.id, role: me.role, admin: me.admin }, run, action);
  return null;
}

const isRunOwnerAction = (a: Action): a is Action & RunOwnerAction => (RUN_OWNER_ACTIONS as readonly string[]).includes(a);
