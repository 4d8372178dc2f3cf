import type { FastifyRequest } from 'fastify';
import type { ApiKeyRecord } from '../model.js';
import type { StoreDeps } from '../context.js';
import { findApiKey } from '../auth/credentials.js';
import { unauthorized } from '../errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The messaging API key of the request, set by the messaging routes' auth hook. */
    apiKey: ApiKeyRecord | null;
  }
}

/** Reads `Authorization: Bearer <apiKey>` (nothing else is accepted): no header, another scheme or an unknown key is a 401. */
export function apiKeyFromHeader(services: StoreDeps, header: string | undefined): ApiKeyRecord {
  if (header === undefined || header.trim() === '') {
    throw unauthorized(
      'An API key is required: send "Authorization: Bearer <apiKey>" (the emulator prints one at start; POST /_emulator/api-keys issues more)',
    );
  }
  const match = /^bearer\s+(\S+)\s*$/i.exec(header.trim());
  if (!match) throw unauthorized('The Authorization header must be "Bearer <apiKey>"');
  const record = findApiKey(services.db, match[1]);
  if (!record)
    throw unauthorized(
      'The API key in the Authorization header is unknown or revoked: use the one the emulator printed, or issue one with POST /_emulator/api-keys',
    );
  return record;
}

/** The API key the auth hook found (routes run only after it succeeded). */
export function requestApiKey(request: FastifyRequest): ApiKeyRecord {
  if (!request.apiKey) throw unauthorized();
  return request.apiKey;
}
