// Issue 15's event-loop bound: health latency while regular-expression attacks (ReDoS) are sent,
// as a ratio to health latency with no attack. A backtracking engine let one `^(a+)+$` against
// thirty `a` and a `!` block every request for over 30 s; on RE2 the ratio stays near 1.
// Two more rows send what the first audit of #15 found still stalling: a plugin whose inputsSchema
// has 2,000 patterned properties (compiled on the event loop: 8 s each), and a plugin whose
// `events` hold 200,000 items (walked item by item past maxItems: 5.8 s each); both are now
// refused at a bound (schema size, array length) before anything compiles or validates.
// Issue 24 adds rows for bodies with 60,000 keys and for a long adversarial value of every JSON
// Schema format (the worst was url: 18 s for one install).
import { request } from 'undici';
import { median, percentile, startServer } from './lib.js';
import { FORMAT_ATTACKS } from './format-attacks.js';

const EVIL = '^(a+)+$';
const ATTACK = `${'a'.repeat(30)}!`;

async function healthLatencies(url, count) {
  const out = [];
  for (let i = 0; i < count; i++) {
    const start = process.hrtime.bigint();
    const res = await request(`${url}/_emulator/health`);
    await res.body.dump();
    out.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return out;
}

async function json(url, method, headers, body) {
  const res = await request(url, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const parsed = await res.body.json();
  if (res.statusCode >= 300)
    throw new Error(`${method} ${url}: ${res.statusCode} ${JSON.stringify(parsed)}`);
  return parsed.data;
}

/** Sends a body, whatever the answer (the attacks below are refused with a 400). */
async function send(url, headers, body) {
  const res = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  await res.body.dump();
  return res.statusCode;
}

/** Health latencies while `body` is posted to `url` over and over. */
async function healthDuring(emu, count, url, headers, body) {
  let attacking = true;
  const attacks = (async () => {
    while (attacking) await send(url, headers, body);
  })();
  const during = await healthLatencies(emu.url, count);
  attacking = false;
  await attacks;
  return during;
}

export default async function security({ quick }) {
  const rows = [];
  const emu = await startServer('emulator.js');
  try {
    const count = quick ? 100 : 300;
    await healthLatencies(emu.url, 50); // warm-up
    const baseline = await healthLatencies(emu.url, count);
    rows.push({
      name: 'health, idle (baseline)',
      p50: median(baseline),
      p99: percentile(baseline, 99),
      ratio: 1,
    });

    // A character whose script line is catastrophic for a backtracking engine, and a conversation with it.
    const admin = emu.adminToken ? { 'x-plugsmith-admin': emu.adminToken } : {};
    const character = await json(`${emu.url}/_emulator/characters`, 'POST', admin, {
      orgId: emu.orgId,
      name: 'ReDoS',
      script: [{ match: EVIL, reply: 'x' }],
      packetIntervalMs: 0,
    });
    const messaging = { authorization: `Bearer ${emu.apiKey}` };
    const conversation = await json(`${emu.messagingUrl}/conversations`, 'POST', messaging, {
      characterId: character.id,
    });
    let attacking = true;
    const attacks = (async () => {
      while (attacking)
        await json(
          `${emu.messagingUrl}/conversations/${conversation.id}/messages`,
          'POST',
          messaging,
          { content: ATTACK },
        );
    })();
    const during = await healthLatencies(emu.url, count);
    attacking = false;
    await attacks;
    rows.push({
      name: 'health during ReDoS attempts (script match)',
      p50: median(during),
      p99: percentile(during, 99),
      ratio: percentile(during, 99) / percentile(baseline, 99),
      target: 'p99 < 100 ms',
    });

    const user = { authorization: `Bearer ${emu.token}` };
    const plugins = `${emu.url}/api/orgs/${emu.orgId}/plugins`;
    const properties = Object.fromEntries(
      Array.from({ length: 2_000 }, (_, i) => [`p${i}`, { type: 'string', pattern: `^a${i}b$` }]),
    );
    const bigSchema = JSON.stringify({
      name: 'big',
      type: 'DATA_PROVIDER',
      events: [],
      scopes: [],
      inputsSchema: { type: 'object', properties },
    });
    const schemaDuring = await healthDuring(emu, count, plugins, user, bigSchema);
    rows.push({
      name: 'health during large-schema attempts (2,000 patterns)',
      p50: median(schemaDuring),
      p99: percentile(schemaDuring, 99),
      ratio: percentile(schemaDuring, 99) / percentile(baseline, 99),
      target: 'p99 < 100 ms',
    });

    const hugeArray = `{"name":"x","type":"EVENT_HANDLER","scopes":[],"events":[${Array(200_000).fill('0').join(',')}]}`;
    const arrayDuring = await healthDuring(emu, count, plugins, user, hugeArray);
    rows.push({
      name: 'health during huge-array attempts (200,000 items)',
      p50: median(arrayDuring),
      p99: percentile(arrayDuring, 99),
      ratio: percentile(arrayDuring, 99) / percentile(baseline, 99),
      target: 'p99 < 100 ms',
    });

    // Issue 24: 60,000 unknown keys (0.9 MB) held the loop 4.5-7 s and were answered with 7.7 MB of
    // details; objects are now capped at 1,000 keys when the body is parsed. Sent with a token, and
    // with no credential at all to the dashboard's sign-in.
    const keys = Array.from({ length: 60_000 }, (_, i) => `"k${i}":1`).join(',');
    const keysDuring = await healthDuring(
      emu,
      count,
      plugins,
      user,
      `{"name":"x","type":"APP",${keys}}`,
    );
    rows.push({
      name: 'health during many-keys attempts (60,000 keys, token)',
      p50: median(keysDuring),
      p99: percentile(keysDuring, 99),
      ratio: percentile(keysDuring, 99) / percentile(baseline, 99),
      target: 'p99 < 100 ms',
    });
    const signInDuring = await healthDuring(
      emu,
      count,
      `${emu.url}/_emulator/dashboard/session`,
      {},
      `{"code":"x",${keys}}`,
    );
    rows.push({
      name: 'health during many-keys attempts (60,000 keys, no credential, dashboard sign-in)',
      p50: median(signInDuring),
      p99: percentile(signInDuring, 99),
      ratio: percentile(signInDuring, 99) / percentile(baseline, 99),
      target: 'p99 < 100 ms',
    });

    // Issue 24 audit: 141 objects of 999 short keys (about 140,000 keys, 984 KB) passed the per-object
    // cap and held the loop about 850 ms; a body now holds at most 10,000 keys and items in all.
    const spreadObject = `{${Array.from({ length: 999 }, (_, i) => `"${i.toString(36)}":0`).join(',')}}`;
    const spread = Array(141).fill(spreadObject).join(',');
    const spreadMessages = await healthDuring(
      emu,
      count,
      `${emu.messagingUrl}/conversations/${conversation.id}/messages`,
      messaging,
      `{"content":"hi","attachments":[${spread}]}`,
    );
    rows.push({
      name: 'health during spread-keys attempts (141 × 999 keys, messaging key)',
      p50: median(spreadMessages),
      p99: percentile(spreadMessages, 99),
      ratio: percentile(spreadMessages, 99) / percentile(baseline, 99),
      target: 'p99 < 100 ms',
    });
    const spreadUploads = await healthDuring(
      emu,
      count,
      `${emu.url}/api/generate-upload-url`,
      user,
      `{"files":[${spread}]}`,
    );
    rows.push({
      name: 'health during spread-keys attempts (141 × 999 keys, generate-upload-url)',
      p50: median(spreadUploads),
      p99: percentile(spreadUploads, 99),
      ratio: percentile(spreadUploads, 99) / percentile(baseline, 99),
      target: 'p99 < 100 ms',
    });

    // Issue 24 audit: $ref let a 201-value schema expand exponentially (19 definitions each allOf two
    // refs to the next, then a url format: 21 s per install). Supplied schemas are now measured with
    // every $ref inlined (at most 2,000 values): the audit's schema is refused at creation, and the
    // largest doubling schema accepted (7 levels, 128 url checks) is installed against with 4 KB urls.
    const doubling = (d) => {
      const definitions = {};
      for (let i = 0; i < d; i++)
        definitions[`L${i}`] = {
          allOf: [{ $ref: `#/definitions/L${i + 1}` }, { $ref: `#/definitions/L${i + 1}` }],
        };
      definitions[`L${d}`] = { type: 'string', format: 'url' };
      return { type: 'object', properties: { u: { $ref: '#/definitions/L0' } }, definitions };
    };
    const refsRefused = await healthDuring(
      emu,
      count,
      plugins,
      user,
      JSON.stringify({
        name: 'refs',
        type: 'DATA_PROVIDER',
        events: [],
        scopes: [],
        inputsSchema: doubling(19),
      }),
    );
    rows.push({
      name: 'health during $ref-expansion attempts (19 doubling levels, refused at creation)',
      p50: median(refsRefused),
      p99: percentile(refsRefused, 99),
      ratio: percentile(refsRefused, 99) / percentile(baseline, 99),
      target: 'p99 < 100 ms',
    });
    const refsRepository = await json(
      `${emu.url}/api/orgs/${emu.orgId}/repositories`,
      'POST',
      user,
      { name: 'refs' },
    );
    const refsPlugin = await json(plugins, 'POST', user, {
      name: 'refs',
      type: 'DATA_PROVIDER',
      events: [],
      scopes: [],
      inputsSchema: doubling(7),
    });
    const refsInstall = JSON.stringify({
      name: 'i',
      pluginId: refsPlugin.id,
      events: [],
      scopes: [],
      inputs: { u: `http://${'a.'.repeat(2040)}1` },
    });
    const refsAccepted = await healthDuring(
      emu,
      count,
      `${emu.url}/api/repositories/${refsRepository.id}/data-providers`,
      user,
      refsInstall,
    );
    rows.push({
      name: 'health during installs on the largest accepted $ref schema (7 doubling levels, 4 KB url)',
      p50: median(refsAccepted),
      p99: percentile(refsAccepted, 99),
      ratio: percentile(refsAccepted, 99) / percentile(baseline, 99),
      target: 'p99 < 100 ms',
    });

    // Issue 24: JSON Schema formats. ajv-formats' url expression backtracked quadratically (an install
    // with http:// + 64,000 ':' + a space held the loop ~18 s); every format now runs in bounded time.
    // One plugin with a property per format (unverified: inputs are judged whatever else is wrong).
    const repository = await json(`${emu.url}/api/orgs/${emu.orgId}/repositories`, 'POST', user, {
      name: 'formats',
    });
    const formatPlugin = await json(plugins, 'POST', user, {
      name: 'formats',
      type: 'DATA_PROVIDER',
      events: [],
      scopes: [],
      inputsSchema: {
        type: 'object',
        properties: Object.fromEntries(
          Object.keys(FORMAT_ATTACKS).map((format) => [format, { type: 'string', format }]),
        ),
      },
    });
    const installUrl = `${emu.url}/api/repositories/${repository.id}/data-providers`;
    for (const [format, value] of Object.entries(FORMAT_ATTACKS)) {
      const body = JSON.stringify({
        name: 'i',
        pluginId: formatPlugin.id,
        events: [],
        scopes: [],
        inputs: { [format]: value },
      });
      const during = await healthDuring(emu, count, installUrl, user, body);
      rows.push({
        name: `health during format attempts (${format}, ${value.length.toLocaleString('en')} chars)`,
        p50: median(during),
        p99: percentile(during, 99),
        ratio: percentile(during, 99) / percentile(baseline, 99),
        target: 'p99 < 100 ms',
      });
    }
  } finally {
    await emu.stop();
  }
  return rows;
}
