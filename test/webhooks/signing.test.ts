import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import {
  decodeWebhookSecret,
  generateWebhookSecret,
  signWebhook,
  verifyWebhook,
  webhookHeaders,
  WebhookVerificationError,
} from '../../src/shared/webhooks/index.js';
import { installed } from './fixtures/events.js';

const secret = generateWebhookSecret();
const body = JSON.stringify(installed);
const nowSeconds = () => Math.floor(Date.now() / 1000);

/** `v1,Xabc…` with X changed, so the signature is surely wrong but well-formed. */
function flipFirstCharacter(signature: string): string {
  return `v1,${signature[3] === 'A' ? 'B' : 'A'}${signature.slice(4)}`;
}

function failure(run: () => unknown): WebhookVerificationError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookVerificationError);
    return error as WebhookVerificationError;
  }
  throw new Error('expected verification to fail');
}

describe('generateWebhookSecret', () => {
  it('makes whsec_ secrets of 32 random bytes', () => {
    const a = generateWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(decodeWebhookSecret(a)).toHaveLength(32);
    expect(generateWebhookSecret()).not.toBe(a);
  });

  it('refuses secrets that are not base64', () => {
    expect(() => decodeWebhookSecret('whsec_not base64!')).toThrow(/invalid webhook secret/);
    expect(() => decodeWebhookSecret('whsec_')).toThrow(TypeError);
  });
});

describe('signWebhook', () => {
  it('matches the Standard Webhooks test vector', () => {
    const signature = signWebhook({
      id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      timestamp: 1614265330,
      body: '{"test": 2432232314}',
      secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    });
    expect(signature).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('produces signatures that the standardwebhooks package accepts', () => {
    const headers = webhookHeaders({ id: installed.id, body, secret });
    expect(headers['content-type']).toBe('application/json');
    expect(new Webhook(secret).verify(body, headers)).toEqual(installed);
  });

  it('signs any id and body the way standardwebhooks does', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1 }),
        fc.string({ unit: 'grapheme', maxLength: 200 }),
        (id, text) => {
          const timestamp = nowSeconds();
          const ours = signWebhook({ id, timestamp, body: text, secret });
          expect(ours).toBe(new Webhook(secret).sign(id, new Date(timestamp * 1000), text));
        },
      ),
      { numRuns: 50 },
    );
  });

  it('signs with every secret during a key rotation', () => {
    const next = generateWebhookSecret();
    const headers = webhookHeaders({ id: 'msg_1', body, secret: [secret, next] });
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(new Webhook(secret).verify(body, headers)).toEqual(installed);
    expect(new Webhook(next).verify(body, headers)).toEqual(installed);
  });

  it('refuses a timestamp that is not whole seconds', () => {
    expect(() => signWebhook({ id: 'm', timestamp: Date.now() + 0.5, body, secret })).toThrow(
      /whole seconds/,
    );
  });
});

describe('verifyWebhook', () => {
  const signedByLibrary = (id = installed.id, date = new Date(), payload = body, key = secret) => ({
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(date.getTime() / 1000)),
    'webhook-signature': new Webhook(key).sign(id, date, payload),
  });

  it('accepts signatures made by the standardwebhooks package and returns the typed event', () => {
    const event = verifyWebhook(body, signedByLibrary(), secret);
    expect(event).toEqual(installed);
    if (event.type === 'PLUGIN_INSTALLED') expect(event.data.accessToken).toBe('itok_secret');
  });

  it('accepts a Buffer body, header names in any case, and fetch Headers', () => {
    const headers = signedByLibrary();
    const shouting = Object.fromEntries(
      Object.entries(headers).map(([k, v]) => [k.toUpperCase(), v]),
    );
    expect(verifyWebhook(Buffer.from(body), shouting, secret)).toEqual(installed);
    expect(verifyWebhook(body, new Headers(headers), secret)).toEqual(installed);
  });

  it('accepts the header when any one of several signatures matches', () => {
    const headers = signedByLibrary();
    const other = signWebhook({
      id: installed.id,
      timestamp: Number(headers['webhook-timestamp']),
      body,
      secret: generateWebhookSecret(),
    });
    headers['webhook-signature'] = `v1a,ZmFrZQ== ${other} ${headers['webhook-signature']}`;
    expect(verifyWebhook(body, headers, secret)).toEqual(installed);
  });

  it('accepts any of several secrets on the receiving side', () => {
    expect(verifyWebhook(body, signedByLibrary(), [generateWebhookSecret(), secret])).toEqual(
      installed,
    );
  });

  it.each([
    [
      'body',
      (h: Record<string, string>) => ({
        headers: h,
        payload: body.replace('itok_secret', 'itok_stolen'),
      }),
    ],
    [
      'id',
      (h: Record<string, string>) => ({
        headers: { ...h, 'webhook-id': 'evt_other' },
        payload: body,
      }),
    ],
    [
      'timestamp',
      (h: Record<string, string>) => ({
        headers: { ...h, 'webhook-timestamp': String(Number(h['webhook-timestamp']) - 1) },
        payload: body,
      }),
    ],
    [
      'signature',
      (h: Record<string, string>) => ({
        headers: { ...h, 'webhook-signature': flipFirstCharacter(h['webhook-signature']) },
        payload: body,
      }),
    ],
  ])('rejects a tampered %s', (_part, tamper) => {
    const { headers, payload } = tamper(signedByLibrary());
    const error = failure(() => verifyWebhook(payload, headers, secret));
    expect(error.code).toBe('NO_MATCHING_SIGNATURE');
    expect(error.message).toMatch(/no matching signature/);
  });

  it('rejects a signature made with another secret', () => {
    const error = failure(() =>
      verifyWebhook(
        body,
        signedByLibrary(undefined, undefined, undefined, generateWebhookSecret()),
        secret,
      ),
    );
    expect(error.code).toBe('NO_MATCHING_SIGNATURE');
  });

  it('rejects signatures of other versions', () => {
    const headers = signedByLibrary();
    headers['webhook-signature'] = headers['webhook-signature'].replace('v1,', 'v2,');
    expect(failure(() => verifyWebhook(body, headers, secret)).code).toBe('NO_MATCHING_SIGNATURE');
  });

  it.each(['webhook-id', 'webhook-timestamp', 'webhook-signature'])(
    'names the missing %s header',
    (name) => {
      const headers: Record<string, string> = signedByLibrary();
      delete headers[name];
      const error = failure(() => verifyWebhook(body, headers, secret));
      expect(error.code).toBe('MISSING_HEADER');
      expect(error.message).toBe(`missing ${name} header`);
    },
  );

  it('rejects a timestamp that is not Unix seconds', () => {
    const headers = { ...signedByLibrary(), 'webhook-timestamp': '2025-01-01T00:00:00Z' };
    expect(failure(() => verifyWebhook(body, headers, secret)).code).toBe('INVALID_HEADER');
  });

  describe('timestamp tolerance', () => {
    const sentAt = new Date('2025-03-01T12:00:00Z');
    const headers = () => signedByLibrary(installed.id, sentAt);
    const at = (seconds: number) => new Date(sentAt.getTime() + seconds * 1000);

    it('accepts deliveries up to 300 s either way by default', () => {
      expect(verifyWebhook(body, headers(), secret, { now: at(300) })).toEqual(installed);
      expect(verifyWebhook(body, headers(), secret, { now: at(-300) })).toEqual(installed);
    });

    it('rejects a delivery that is too old', () => {
      const error = failure(() => verifyWebhook(body, headers(), secret, { now: at(301) }));
      expect(error.code).toBe('TIMESTAMP_TOO_OLD');
      expect(error.message).toMatch(/too old: 301 s before now \(tolerance 300 s\)/);
    });

    it('rejects a delivery from the future', () => {
      const error = failure(() => verifyWebhook(body, headers(), secret, { now: at(-301) }));
      expect(error.code).toBe('TIMESTAMP_TOO_NEW');
      expect(error.message).toMatch(/too new/);
    });

    it('honours a custom tolerance', () => {
      expect(
        failure(() => verifyWebhook(body, headers(), secret, { now: at(11), toleranceSeconds: 10 }))
          .code,
      ).toBe('TIMESTAMP_TOO_OLD');
      expect(
        verifyWebhook(body, headers(), secret, { now: at(3000), toleranceSeconds: 3600 }),
      ).toEqual(installed);
    });
  });

  it('rejects a correctly signed body that is not an event', () => {
    for (const payload of ['not json', '[1,2]', '{"id":1}']) {
      const error = failure(() =>
        verifyWebhook(payload, signedByLibrary('m', new Date(), payload), secret),
      );
      expect(error.code).toBe('INVALID_PAYLOAD');
    }
  });
});
