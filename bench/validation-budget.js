// Issue 36: the work of validating an install's `inputs` against a supplied inputsSchema is counted
// before ajv runs and refused past MAX_VALIDATION_WORK. Each row: how long the install request takes
// (the amplified ones are refused with a 400), and the slowest health answer meanwhile. Before the
// budget, the first row answered 500 after 37-57 s and health waited as long.
// Run: node bench/validation-budget.js (after npm run build).
import { createServer } from 'node:http';
import { request } from 'undici';
import { startEmulator } from '../dist/emulator/index.js';

/** Rows: each install request (ms) and the slowest health answer while it ran (p99). */
export default async function validationBudget() {
  const rows = [];
  const hook = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const event = JSON.parse(body || '{}');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ challenge: event.data?.challenge }));
    });
  });
  await new Promise((r) => hook.listen(0, '127.0.0.1', r));
  const hookUrl = `http://127.0.0.1:${hook.address().port}/webhook`;
  const emu = await startEmulator({ log: () => undefined });
  const auth = { authorization: `Bearer ${emu.token}`, 'content-type': 'application/json' };

  async function call(method, path, body) {
    const res = await request(`${emu.url}${path}`, {
      method,
      headers: auth,
      body: body && JSON.stringify(body),
    });
    return { status: res.statusCode, body: await res.body.json() };
  }

  function amplified(check, refs = 6, copies = 150) {
    return {
      type: 'object',
      definitions: { a: { allOf: Array.from({ length: copies }, () => check) } },
      properties: {
        values: {
          type: 'array',
          items: { allOf: Array.from({ length: refs }, () => ({ $ref: '#/definitions/a' })) },
        },
      },
    };
  }

  const repository = (await call('GET', `/api/orgs/${emu.orgId}/repositories`)).body.data[0].id;

  async function row(name, inputsSchema, inputs) {
    const plugin = (
      await call('POST', `/api/orgs/${emu.orgId}/plugins`, {
        name,
        type: 'DATA_PROVIDER',
        events: [],
        scopes: [],
        webhookUrl: hookUrl,
        inputsSchema,
      })
    ).body.data;
    await call('POST', `/api/plugins/${plugin.id}/verify-webhook`);
    let worstHealth = 0;
    let done = false;
    const started = process.hrtime.bigint();
    const install = call('POST', `/api/repositories/${repository}/data-providers`, {
      name,
      pluginId: plugin.id,
      events: [],
      scopes: [],
      inputs,
    }).finally(() => (done = true));
    while (!done) {
      const t = process.hrtime.bigint();
      const res = await request(`${emu.url}/_emulator/health`);
      await res.body.dump();
      worstHealth = Math.max(worstHealth, Number(process.hrtime.bigint() - t) / 1e6);
    }
    const result = await install;
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    const answer = `${result.status} ${result.body.error?.details?.[0]?.code ?? ''}`.trim();
    rows.push({
      name: `install, ${name}: ${answer} (ms: the request; p99: slowest health meanwhile)`,
      ms,
      p99: worstHealth,
      target: 'answer < 1 s, health < 100 ms',
    });
  }

  const long = (n, len) => Array.from({ length: n }, (_, i) => `${i}`.padEnd(len, 'x'));
  const letters = (n) => Array.from({ length: n }, () => 'a');
  await row('allOf 150 date-time x 6 refs, 240 x 4,096 chars', amplified({ format: 'date-time' }), {
    values: long(240, 4096),
  });
  await row('allOf 150 number x 6 refs, 1,000 one-letter items', amplified({ type: 'number' }), {
    values: letters(1000),
  });
  // Within the budget, near it: what the budget still lets through.
  await row(
    'allOf 150 number x 1 ref, 300 items (45,000 errors)',
    amplified({ type: 'number' }, 1),
    {
      values: letters(300),
    },
  );
  await row(
    'allOf 100 date-time x 1 ref, 7 x 4,096 chars (formats near the budget)',
    amplified({ format: 'date-time' }, 1, 100),
    { values: long(7, 4096) },
  );
  await row(
    'allOf 150 string x 1 ref, 300 valid items (no errors)',
    amplified({ type: 'string' }, 1),
    { values: letters(300) },
  );
  await row(
    'a ref-holding definition x 4 refs, 1,000 items (4,000 called refs, near the budget)',
    {
      type: 'object',
      definitions: { b: { type: 'number' }, a: { allOf: [{ $ref: '#/definitions/b' }] } },
      properties: {
        values: {
          type: 'array',
          items: { allOf: Array.from({ length: 4 }, () => ({ $ref: '#/definitions/a' })) },
        },
      },
    },
    { values: letters(1000) },
  );
  await emu.close();
  hook.close();
  return rows;
}
