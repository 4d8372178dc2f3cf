import { request } from 'undici';
import { webhookHeaders, type WebhookEvent } from '../../src/shared/webhooks/index.js';

/** Posts `event` to `url` as the platform would, signed with `secret`; returns status and parsed JSON. */
export async function deliver(
  url: string,
  event: WebhookEvent | string,
  secret: string,
  headers: Record<string, string> = {},
) {
  const body = typeof event === 'string' ? event : JSON.stringify(event);
  const id = typeof event === 'string' ? 'msg_raw' : event.id;
  return post(url, body, { ...webhookHeaders({ id, body, secret }), ...headers });
}

/** Posts a raw body with the given headers; returns status and parsed JSON. */
export async function post(url: string, body: string, headers: Record<string, string>) {
  const response = await request(url, { method: 'POST', body, headers });
  return {
    status: response.statusCode,
    headers: response.headers,
    body: (await response.body.json()) as any,
  };
}
