import { Agent, request } from 'undici';
import { randomBytes } from 'node:crypto';
import { generateWebhookSecret, signWebhook } from '../shared/webhooks/signing.js';

/** How to sign (or mis-sign) one delivery. */
export interface DeliveryShape {
  /** `valid` signs with the secret; `none` sends no signature; `wrong` signs with another secret; `rotated` sends a wrong and a valid signature. */
  signature?: 'valid' | 'none' | 'wrong' | 'rotated';
  /** Seconds added to now for `webhook-timestamp` (negative: in the past). */
  skewSeconds?: number;
  /** Change the body after signing it. */
  tamper?: boolean;
  /** The `webhook-id` (default: the event's id). */
  webhookId?: string;
}

/** One answer of the webhook. */
export interface ProbeAnswer {
  /** null when no answer came (error says why). */
  status: number | null;
  contentType: string;
  body: string;
  headers: Record<string, string | string[] | undefined>;
  durationMs: number;
  error: string | null;
}

/** Sends deliveries to one webhook as the platform would, or subtly wrong on purpose; keeps every answer for the echo check. */
export class Prober {
  readonly answers: ProbeAnswer[] = [];
  private readonly agent = new Agent({ connections: 64, connect: { timeout: 5_000 } });
  private readonly otherSecret = generateWebhookSecret();

  constructor(
    readonly url: string,
    private readonly secret: string,
    private readonly timeoutMs: number,
  ) {}

  private stopped = false;

  /** From now on, nothing is sent: each send() answers at once that nothing was (the webhook did not answer at all). */
  stopSending(): void {
    this.stopped = true;
  }

  /** POSTs `event` signed as `shape` says; never throws. */
  async send(event: Record<string, unknown>, shape: DeliveryShape = {}): Promise<ProbeAnswer> {
    if (this.stopped)
      return {
        status: null,
        contentType: '',
        body: '',
        headers: {},
        durationMs: 0,
        error: 'not sent',
      };
    const body = JSON.stringify(event);
    const id = shape.webhookId ?? String(event.id);
    const timestamp = Math.floor(Date.now() / 1000) + (shape.skewSeconds ?? 0);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': 'plugsmith-check',
      'webhook-id': id,
      'webhook-timestamp': String(timestamp),
    };
    const signature = shape.signature ?? 'valid';
    if (signature !== 'none') {
      const secrets =
        signature === 'valid'
          ? [this.secret]
          : signature === 'wrong'
            ? [this.otherSecret]
            : [this.otherSecret, this.secret];
      headers['webhook-signature'] = signWebhook({ id, timestamp, body, secret: secrets });
    }
    // A field added after signing: still JSON, no longer what was signed.
    const sent = shape.tamper ? body.replace('{', '{"tampered":true,') : body;
    const started = performance.now();
    const signal = AbortSignal.timeout(this.timeoutMs);
    let answer: ProbeAnswer;
    try {
      const response = await request(this.url, {
        method: 'POST',
        headers,
        body: sent,
        dispatcher: this.agent,
        signal,
      });
      const text = await response.body.text();
      answer = {
        status: response.statusCode,
        contentType: String(response.headers['content-type'] ?? ''),
        body: text,
        headers: response.headers,
        durationMs: performance.now() - started,
        error: null,
      };
    } catch (error) {
      answer = {
        status: null,
        contentType: '',
        body: '',
        headers: {},
        durationMs: performance.now() - started,
        error: describe(error, this.url, this.timeoutMs),
      };
    }
    this.answers.push(answer);
    return answer;
  }

  async close(): Promise<void> {
    await this.agent.destroy();
  }
}

/** A random id with a prefix, to tell this run's events apart. */
export function checkId(prefix: string): string {
  return `${prefix}_check_${randomBytes(6).toString('hex')}`;
}

function describe(error: unknown, url: string, timeoutMs: number): string {
  const e = error as { name?: string; code?: string; message?: string; cause?: { code?: string } };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError')
    return `no answer within ${timeoutMs} ms (the platform's delivery timeout)`;
  const code = e?.code ?? e?.cause?.code;
  if (code === 'ECONNREFUSED')
    return `connection refused by ${new URL(url).origin}: is the webhook server running?`;
  return `request failed: ${e?.message ?? String(error)}`;
}
