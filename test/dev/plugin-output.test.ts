import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, onTestFinished, test } from 'vitest';
import { DevSession } from '../../src/dev/session.js';
import { ANSWER_SLACK_MS } from '../../emulator/plugin-output/link.js';
import { api as api_, emulator, tempDir, until } from '../kit/index.js';
import { freePort } from '../kit/ports.js';
import sample from '../../src/shared/sample-events/AGENT_MESSAGE_RECEIVED.json' with {
  type: 'json',
};

/** A plugin that answers the challenge, and fails every other event: it prints the event id, a secret, colours and a stack, then answers 500; later it names the event again. */
const SERVER_JS = `
import { createServer } from 'node:http';
createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    const event = JSON.parse(body);
    if (event.type === 'WEBHOOK_CHALLENGE') {
      res.setHeader('content-type', 'application/json');
      return res.end(JSON.stringify({ challenge: event.data.challenge }));
    }
    console.log('handling ' + event.id + ' signed with ' + process.env.PLUGSMITH_WEBHOOK_SECRET + ' as ' + process.env.PLUGSMITH_TOKEN);
    console.error('\\u001b[31mred\\u001b[0m and an installation token psi_ABCDEFGHIJKLMNOPQRSTUVWXYZ012345');
    console.error(new Error('the handler failed on purpose').stack);
    res.statusCode = 500;
    res.end('failed');
    setTimeout(() => console.log('cleanup of ' + event.id + ' done'), 300);
  });
}).listen(Number(process.env.PORT), '127.0.0.1');
setInterval(() => console.log('tick, about nothing'), 250);
`;

test('dev: the plugin process output reaches the emulator scrubbed and escaped, and each attempt of a delivery carries its lines', async () => {
  const dir = await tempDir('plugsmith-output-');
  const emu = await emulator();
  const port = await freePort();
  await writeFile(join(dir, 'server.mjs'), SERVER_JS);
  await writeFile(
    join(dir, 'plugsmith.json'),
    JSON.stringify({
      plugin: {
        name: 'Output plugin',
        description: 'd',
        type: 'EVENT_HANDLER',
        events: ['AGENT_MESSAGE_RECEIVED'],
        scopes: [],
        webhookUrl: `http://127.0.0.1:${port}/webhook`,
      },
    }),
  );
  // How a session against an emulator it did not start (--base-url) gets the admin credential.
  const before = process.env.PLUGSMITH_ADMIN_TOKEN;
  process.env.PLUGSMITH_ADMIN_TOKEN = emu.adminToken;
  onTestFinished(() => {
    if (before === undefined) delete process.env.PLUGSMITH_ADMIN_TOKEN;
    else process.env.PLUGSMITH_ADMIN_TOKEN = before;
  });
  const printed: string[] = [];
  const session = new DevSession(
    {
      manifestPath: join(dir, 'plugsmith.json'),
      command: 'node server.mjs',
      env: { ...process.env },
      dataDir: dir,
      verifyTimeoutMs: 10_000,
      installs: false,
      target: {
        url: emu.url,
        messagingUrl: emu.messagingUrl,
        token: emu.token!,
        apiKey: emu.apiKey,
        orgId: emu.orgId!,
        adminToken: emu.adminToken,
        storeId: emu.storeId,
      },
    },
    {
      info: () => undefined,
      warn: () => undefined,
      delivery: () => undefined,
      pluginOutput: (line) => printed.push(line),
    },
  );
  onTestFinished(() => session.stop());
  await session.start();
  const api = api_(emu, { headers: emu.adminHeaders });
  const pluginId = session.pluginId!;
  await until('the webhook verified', async () => {
    const plugin = await api.get(`/api/plugins/${pluginId}`);
    return plugin.body.data?.webhookUrlIsVerified ? true : undefined;
  });
  const secret = (await api.get(`/api/plugins/${pluginId}`)).body.data.webhookSecret as string;

  const agentId = emu.agentId!;
  const instance = await api.post(`/api/agents/${agentId}/plugins`, {
    name: 'On the agent',
    pluginId,
    events: ['AGENT_MESSAGE_RECEIVED'],
    scopes: [],
  });
  expect(instance.status, JSON.stringify(instance.body)).toBe(201);
  const emitted = await api.post('/_emulator/events', {
    type: 'AGENT_MESSAGE_RECEIVED',
    pluginId,
    pluginInstanceId: instance.body.data.id,
    data: JSON.parse(JSON.stringify(sample.data).replaceAll('{{now}}', new Date().toISOString())),
  });
  expect(emitted.status, JSON.stringify(emitted.body)).toBeLessThan(300);
  const deliveryId = emitted.body.data.id;
  // stdout and stderr are two pipes, read and posted apart: wait for the last line of each.
  const delivery = await until(
    'the late line and the stack linked to the first attempt',
    async () => {
      const read = await api.get(`/_emulator/deliveries/${deliveryId}`);
      const lines: Array<{ text: string }> = read.body.data.attempts[0]?.pluginOutput ?? [];
      const late = lines.some((l) => l.text.startsWith('cleanup of'));
      const stack = lines.some((l) => /^ {4}at .*server\.mjs:\d+:\d+/.test(l.text));
      return late && stack ? read.body.data : undefined;
    },
    {
      timeoutMs: 45_000,
      explain: () => `the plugin printed:\n${printed.join('\n')}`,
    },
  );
  const eventId = delivery.eventId as string;
  const first = delivery.attempts[0];
  expect(first.responseStatus).toBe(500);
  const texts = first.pluginOutput.map((l: { text: string }) => l.text);
  expect(texts).toContain(`handling ${eventId} signed with whsec_[redacted] as pst_[redacted]`);
  expect(texts).toContain('\\u001b[31mred\\u001b[0m and an installation token psi_[redacted]');
  expect(texts).toContain('Error: the handler failed on purpose');
  expect(texts.some((t: string) => /^ {4}at .*server\.mjs:\d+:\d+/.test(t))).toBe(true);
  expect(texts).toContain(`cleanup of ${eventId} done`);
  // The ticks of an idle plugin (one every 250 ms) are about nothing: only those read while the attempt was under way
  // (its duration and the slack after its answer) can be linked.
  const window = first.durationMs + ANSWER_SLACK_MS;
  expect(texts.filter((t: string) => t.startsWith('tick')).length).toBeLessThanOrEqual(
    Math.ceil(window / 250),
  );
  expect(first.pluginOutput[0]).toMatchObject({ stream: 'stdout', at: expect.any(String) });
  expect(JSON.stringify(delivery)).not.toContain(secret);

  // Followers read the plugin's whole output after a cursor.
  const page = await api.get(`/_emulator/plugins/${pluginId}/output?after=0&limit=500`);
  expect(page.status).toBe(200);
  const all = page.body.data.lines as Array<{ seq: number; text: string }>;
  expect(all.some((l) => l.text.startsWith('tick'))).toBe(true);
  const next = await api.get(
    `/_emulator/plugins/${pluginId}/output?after=${all.at(-1)!.seq}&limit=500`,
  );
  expect(next.body.data.lines.every((l: { seq: number }) => l.seq > all.at(-1)!.seq)).toBe(true);
  // dev still prints the lines as the plugin wrote them.
  expect(printed.some((l) => l.includes('\u001b[31mred'))).toBe(true);
}, 90_000);

test('the output routes: an unknown plugin is a 404, a bad body and a bad cursor are 400s, and the admin credential is required', async () => {
  const emu = await emulator();
  const api = api_(emu, { headers: emu.adminHeaders });
  const line = { at: new Date().toISOString(), stream: 'stdout', text: 'x' };
  const unknown = await api.post('/_emulator/plugins/plg_nope/output', { lines: [line] });
  expect(unknown.status).toBe(404);
  const created = await api.post('/api/plugins', {
    name: 'P',
    description: 'd',
    type: 'EVENT_HANDLER',
    events: ['AGENT_MESSAGE_RECEIVED'],
    scopes: [],
    orgId: emu.orgId,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const pluginId = created.body.data.id;
  const cases = [
    { body: { lines: [] }, status: 400 },
    { body: { lines: [{ ...line, stream: 'stdin' }] }, status: 400 },
    { body: { lines: [{ ...line, at: 'yesterday' }] }, status: 400 },
    { body: { lines: [line], extra: 1 }, status: 400 },
    { body: { lines: [line] }, status: 200 },
  ];
  for (const c of cases) {
    const answer = await api.post(`/_emulator/plugins/${pluginId}/output`, c.body);
    expect({ body: c.body, status: answer.status }).toEqual({ body: c.body, status: c.status });
  }
  expect((await api.get(`/_emulator/plugins/${pluginId}/output?after=-1`)).status).toBe(400);
  const withoutCredential = await fetch(`${emu.url}/_emulator/plugins/${pluginId}/output`);
  expect(withoutCredential.status).toBe(401);
});
