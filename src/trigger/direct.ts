import { request } from 'undici';
import { createWebhookEvent, type WebhookEventType } from '../shared/webhooks/events.js';
import { webhookHeaders } from '../shared/webhooks/signing.js';
import { errorCode, NetworkError } from '../client/errors.js';
import { sampleData } from './fixtures.js';
import { applyOverrides, type DataOverride } from './overrides.js';

/** What `sendDirect` needs: the URL, the plugin's secret, and what to put in the sample event. */
interface DirectRequest {
  url: string;
  secret: string;
  type: WebhookEventType;
  pluginId?: string;
  pluginInstanceId?: string;
  orgId?: string;
  overrides?: DataOverride[];
  data?: Record<string, unknown>;
}

interface DirectResult {
  url: string;
  event: Record<string, unknown>;
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  durationMs: number;
}

/** Signs a sample event with the plugin's secret, as the platform does, and POSTs it straight to a URL. */
export async function sendDirect(input: DirectRequest): Promise<DirectResult> {
  const pluginId = input.pluginId ?? 'plg_sample';
  const orgId = input.orgId ?? 'org_sample';
  const pluginInstanceId =
    input.type === 'WEBHOOK_CHALLENGE' ? null : (input.pluginInstanceId ?? 'pin_sample');
  const known = {
    pluginId,
    orgId,
    pluginInstanceId: pluginInstanceId ?? undefined,
    events: [input.type],
    scopes: [],
    entityType: 'APP',
    entityId: 'app_sample',
  };
  const data = applyOverrides(input.data ?? sampleData(input.type, known), input.overrides ?? []);
  const event = createWebhookEvent(input.type, {
    pluginId,
    pluginInstanceId: pluginInstanceId ?? null,
    orgId,
    data,
  });
  const body = JSON.stringify(event);
  const headers = {
    ...webhookHeaders({ id: String(event.id), body, secret: input.secret }),
    'user-agent': 'plugsmith-trigger',
  };
  const started = performance.now();
  try {
    const response = await request(input.url, {
      method: 'POST',
      headers,
      body,
      headersTimeout: 10_000,
      bodyTimeout: 10_000,
    });
    const text = await response.body.text();
    return {
      url: input.url,
      event,
      status: response.statusCode,
      headers: response.headers,
      body: text,
      durationMs: Math.round(performance.now() - started),
    };
  } catch (error) {
    throw new NetworkError({
      code: errorCode(error),
      method: 'POST',
      url: input.url,
      cause: error,
    });
  }
}
