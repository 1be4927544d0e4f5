import type { ActiveToken } from '@starpo/db';

/** How long a resolved API token or session is trusted without asking the database again. */
export const TOKEN_CACHE_MS = 2_000;
/** Entries kept at most (each is a few hundred bytes); past it the cache starts over. */
const MAX_ENTRIES = 10_000;

/**
 * API tokens (or sessions) resolved in the last TOKEN_CACHE_MS, by hash. A trainer that ingests
 * sends hundreds of requests a second with one token, and looking it up was a round trip and a sixth
 * of the batch endpoint's CPU; a dashboard left open on many screens sends its session cookie with
 * every poll, and its two lookups were a third of a list's queries. Every change of access (revocation, a new role) drops the user's entries
 * on the instance that made it before it answers, and on the others when its notice arrives; the
 * short life bounds what a lost notice, or a change made straight in the database, can leave.
 */
export class TokenCache<T extends { userId: string } = ActiveToken> {
  private readonly byHash = new Map<string, { token: T; at: number }>();
  /** Bumped by every drop: a lookup that started before one must not store what it read. */
  private generation = 0;

  constructor(private readonly ttlMs = TOKEN_CACHE_MS) {}

  /** The generation to hand back to `set` after a database lookup. */
  begin(): number {
    return this.generation;
  }

  get(hash: string): T | undefined {
    const hit = this.byHash.get(hash);
    if (!hit) return undefined;
    if (Date.now() - hit.at <= this.ttlMs) return hit.token;
    this.byHash.delete(hash);
    return undefined;
  }

  /** Keep a token read from the database, unless access changed since that read began. */
  set(hash: string, token: T, since: number): void {
    if (since !== this.generation) return;
    if (this.byHash.size >= MAX_ENTRIES) this.byHash.clear();
    this.byHash.set(hash, { token, at: Date.now() });
  }

  /** The entry for `hash` (none when `fresh`), else what `lookup` reads, kept unless access changed meanwhile. */
  async through(hash: string, fresh: boolean, lookup: () => Promise<T | null>): Promise<T | null> {
    const hit = fresh ? undefined : this.get(hash);
    if (hit) return hit;
    const since = this.begin();
    const found = await lookup();
    if (found) this.set(hash, found, since);
    return found;
  }

  dropUser(userId: string): void {
    this.generation++;
    for (const [hash, { token }] of this.byHash) if (token.userId === userId) this.byHash.delete(hash);
  }

  clear(): void {
    this.generation++;
    this.byHash.clear();
  }
}
