import { createHash, randomBytes } from 'node:crypto';
import argon2 from 'argon2';

/** Random bearer secret: `prefix` + 32 random bytes, base64url. */
export function newSecret(prefix: string): string {
  return `${prefix}${randomBytes(32).toString('base64url')}`;
}

/** Session, invite and API-token secrets are stored as sha256 (they are long and random, so no salt is needed). */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export const hashPassword = (password: string): Promise<string> => argon2.hash(password, { type: argon2.argon2id });

export async function verifyPassword(hash: string, password: string): Promise<boolean> {
  try {
    return await argon2.verify(hash, password);
  } catch {
    return false;
  }
}
