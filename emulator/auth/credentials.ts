import { createHash } from 'node:crypto';
import { newId, newSecret, nowIso } from '../store/ids.js';
import type { Db, TokenRecord, ApiKeyRecord } from '../model.js';

/** Prefixes of secret strings, so a leaked string says what it is. */
export const SECRET_PREFIX = { user: 'pst', instance: 'psi', apiKey: 'psk' } as const;

/** The stored form of a secret: its SHA-256, hex. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

function hint(secret: string): string {
  return secret.slice(-4);
}

/** A new user token record (for a given secret too, for seeds), not yet stored; the secret is returned once. */
export function newUserToken(input: { userId: string; name: string; orgId: string | null; token?: string }): { record: TokenRecord; token: string } {
  const token = input.token ?? newSecret(SECRET_PREFIX.user);
  const now = nowIso();
  const record: TokenRecord = {
    id: newId('tok'),
    kind: 'user',
    hash: hashSecret(token),
    hint: hint(token),
    name: input.name,
    userId: input.userId,
    orgId: input.orgId,
    instanceId: null,
    revokedAt: null,
    createdAt: now,
    updatedAt: now,
  };
  return { record, token };
}

/** A new installation access token of a plugin instance, not yet stored (so it can be written with the instance). */
export function newInstanceToken(input: { instanceId: string; orgId: string; name: string }): { record: TokenRecord; token: string } {
  const token = newSecret(SECRET_PREFIX.instance);
  const now = nowIso();
  const record: TokenRecord = {
    id: newId('tok'),
    kind: 'instance',
    hash: hashSecret(token),
    hint: hint(token),
    name: input.name,
    userId: null,
    orgId: input.orgId,
    instanceId: input.instanceId,
    revokedAt: null,
    createdAt: now,
    updatedAt: now,
  };
  return { record, token };
}

/** A new messaging API key record of an org (for a given key too, for seeds), not yet stored; the key is returned once. */
export function newApiKey(input: { orgId: string; name?: string; key?: string }): { record: ApiKeyRecord; key: string } {
  const key = input.key ?? newSecret(SECRET_PREFIX.apiKey);
  const now = nowIso();
  const record: ApiKeyRecord = {
    id: newId('key'),
    hash: hashSecret(key),
    hint: hint(key),
    orgId: input.orgId,
    name: input.name ?? 'default',
    createdAt: now,
    updatedAt: now,
  };
  return { record, key };
}

/** Finds the live token record for a secret string. */
export function findToken(db: Db, secret: string): TokenRecord | undefined {
  return db.tokens.where('hash', hashSecret(secret)).find((record) => record.revokedAt === null);
}

/** Finds the API key record for a key string. */
export function findApiKey(db: Db, key: string): ApiKeyRecord | undefined {
  return db.apiKeys.where('hash', hashSecret(key))[0];
}
