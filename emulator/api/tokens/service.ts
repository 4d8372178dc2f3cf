import { newApiKey, newUserToken } from '../../auth/credentials.js';
import { found } from '../../errors.js';
import type { ApiKeyRecord, TokenRecord } from '../../model.js';
import type { StoreDeps } from '../../context.js';
import type { Messaging } from '../../messaging/messaging.js';

/** What the tokens feature needs: the store, and messaging (revoking an API key ends its conversation streams). */
export interface TokenDeps extends StoreDeps {
  messaging: Messaging;
}

/** Issues a user token (the caller checked who may); the secret is returned once, only its hash is kept. */
export async function createUserToken(
  services: TokenDeps,
  input: { userId: string; name: string; orgId: string | null },
): Promise<{ record: TokenRecord; token: string }> {
  const issued = newUserToken(input);
  await services.db.tokens.put(issued.record);
  return issued;
}

/** Issues a messaging API key of an org; the key is returned once, only its hash is kept. */
export async function createApiKey(
  services: TokenDeps,
  input: { orgId: string; name?: string },
): Promise<{ record: ApiKeyRecord; key: string }> {
  const issued = newApiKey(input);
  await services.db.apiKeys.put(issued.record);
  return issued;
}

/** Deletes an API key: the record is the key, so it is unknown at once. A 404 when it is gone. */
export async function deleteApiKey(services: TokenDeps, apiKeyId: string): Promise<ApiKeyRecord> {
  const record = found(services.db.apiKeys.get(apiKeyId), 'API key', apiKeyId);
  await services.db.apiKeys.delete(apiKeyId);
  // A revoked key keeps nothing open: its event streams end now.
  services.messaging.streams.closeForApiKey(apiKeyId);
  return record;
}
