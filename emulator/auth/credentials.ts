import { createHash } from 'node:crypto';
import { newId, newSecret, nowIso } from '../store/ids.js';
import type { Db, TokenRecord, ApiKeyRecord } from '../model.js';

/** Prefixes of secret strings, so a leaked string says what it is. */
export const SECRET_PREFIX = { user: 'pst', instance: 'psi', apiKey: 'psk' } as const;

/** The stored form of a secret: its SHA-256, hex. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** What a token and an API key store of their secret: its hash and last characters (`hint`), never the secret. */
function secretRecord(idPrefix: string, secret: string) {
  const now = nowIso();
  return {
    id: newId(idPrefix),
    hash: hashSecret(secret),
    hint: secret.slice(-4),
    createdAt: now,
    updatedAt: now,
  };
}

/** A new token record, not yet stored (so an instance's can be written with the instance); the secret is returned once. */
function newToken(
  kind: TokenRecord['kind'],
  token: string,
  fields: Pick<TokenRecord, 'name' | 'userId' | 'orgId' | 'instanceId'>,
): { record: TokenRecord; token: string } {
  return { record: { ...secretRecord('tok', token), kind, ...fields, revokedAt: null }, token };
}

/** A new user token record (of a given secret too, for seeds). */
export function newUserToken(input: {
  userId: string;
  name: string;
  orgId: string | null;
  token?: string;
}): { record: TokenRecord; token: string } {
  return newToken('user', input.token ?? newSecret(SECRET_PREFIX.user), {
    name: input.name,
    userId: input.userId,
    orgId: input.orgId,
    instanceId: null,
  });
}

/** A new installation access token of a plugin instance. */
export function newInstanceToken(input: { instanceId: string; orgId: string; name: string }): {
  record: TokenRecord;
  token: string;
} {
  return newToken('instance', newSecret(SECRET_PREFIX.instance), {
    name: input.name,
    userId: null,
    orgId: input.orgId,
    instanceId: input.instanceId,
  });
}

/** A new messaging API key record of an org (for a given key too, for seeds), not yet stored; the key is returned once. */
export function newApiKey(input: { orgId: string; name?: string; key?: string }): {
  record: ApiKeyRecord;
  key: string;
} {
  const key = input.key ?? newSecret(SECRET_PREFIX.apiKey);
  return {
    record: { ...secretRecord('key', key), orgId: input.orgId, name: input.name ?? 'default' },
    key,
  };
}

/** Finds the live token record for a secret string. */
export function findToken(db: Db, secret: string): TokenRecord | undefined {
  return db.tokens.where('hash', hashSecret(secret)).find((record) => record.revokedAt === null);
}

/** Finds the API key record for a key string. */
export function findApiKey(db: Db, key: string): ApiKeyRecord | undefined {
  return db.apiKeys.where('hash', hashSecret(key))[0];
}
