// No zod here: every dashboard page reads the roles, and building schemas costs the browser time at load.
export const ROLES = ['owner', 'member', 'viewer'] as const;
export type RoleName = (typeof ROLES)[number];
/** Higher ranks may do all that lower ones may: the API's guard and the dashboard's controls both read this. */
export const ROLE_RANK: Record<RoleName, number> = { viewer: 0, member: 1, owner: 2 };
