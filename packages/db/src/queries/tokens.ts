import { poolOf, type Db } from '../client.js';
import type { Role } from '../generated/prisma/enums.js';

/** An API token that is not revoked, with its owner's role in the token's team. */
export interface ActiveToken {
  id: string;
  userId: string;
  teamId: string;
  lastUsedAt: Date | null;
  role: Role;
}

/**
 * The live token whose hash is `tokenHash`, or null. Every request sent with a token pays this,
 * ingestion above all, so it is one prepared statement on the pool rather than a Prisma query.
 */
export async function findActiveToken(db: Db, tokenHash: string): Promise<ActiveToken | null> {
  const { rows } = await poolOf(db).query<ActiveToken>({
    name: 'find-active-token',
    text: `SELECT t.id::text AS "id", t.user_id::text AS "userId", t.team_id::text AS "teamId", t.last_used_at AS "lastUsedAt", m.role::text AS "role"
             FROM api_tokens t JOIN memberships m ON m.user_id = t.user_id AND m.team_id = t.team_id
            WHERE t.token_hash = $1 AND t.revoked_at IS NULL`,
    values: [tokenHash],
  });
  return rows[0] ?? null;
}
