import type { Api } from '../api.js';
import type { CallOptions } from '../transport.js';
import type { Token, TokenCreate } from '../types.js';

/** User tokens: POST /api/tokens. */
export function tokensResource(api: Api) {
  return {
    /** Creates a user token; the secret is at `.token`. */
    create: (body: TokenCreate, options?: CallOptions) =>
      api.data<Token>('POST', '/api/tokens', { body, options }),
  };
}

export type TokensResource = ReturnType<typeof tokensResource>;
