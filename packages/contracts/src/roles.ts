// No zod here: every dashboard page reads the roles, and building schemas costs the browser time at load.
export const ROLES = ['owner', 'member', 'viewer'] as const;
export type RoleName = (typeof ROLES)[number];
/** Higher ranks may do all that lower ones may: the API's guard and the dashboard's controls both read this. */
export const ROLE_RANK: Record<RoleName, number> = { viewer: 0, member: 1, owner: 2 };

/** What a role may do to a run it does not own: members act on their own runs only. */
export const RUN_OWNER_ACTIONS = ['edit', 'cancel', 'resume', 'delete', 'prune'] as const;
export type RunOwnerAction = (typeof RUN_OWNER_ACTIONS)[number];

/**
 * Why the caller may not `action` a run owned by someone else, or null when it may. Team owners and
 * administrators of the deployment act on any run; members on their own. Read by the API (403) and
 * by the dashboard (the control's tooltip), so both say the same.
 */
export function runOwnershipRefusal(
  caller: { userId: string; role: RoleName; admin: boolean },
  run: { ownerId: string | null },
  action: RunOwnerAction,
): string | null {
  if (run.ownerId === caller.userId || caller.role === 'owner' || caller.admin) return null;
  return `only the run's creator, a team owner or an administrator may ${action} this run`;
}
