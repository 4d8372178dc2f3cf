import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, onTestFinished, test } from 'vitest';
import { runCli, spawnCli } from '../kit/cli-process.js';
import { stateFileOf } from '../kit/emulator-state.js';
import { freePort } from '../kit/ports.js';
import { LANGUAGES, type Language, scenarioProject } from '../kit/project.js';
import { until } from '../kit/index.js';

// Issue 44's event payloads: a generated plugin run with PLUGSMITH_EVENT_SHAPES keeps the shape of
// every verified event it receives (paths and JSON types, never a value), in the same file for both
// templates; `parity check --event-shapes` compares it with the emulator's event schemas. The events
// are real signed deliveries of a real emulator (`plugsmith dev`'s), to the plugin as a process.

const TYPE_NAMES =
  /^(array|boolean|null|number|object|string)(\|(array|boolean|null|number|object|string))*$/;

/** Every string and number in a JSON value: what the shapes file must never hold. */
function valuesOf(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string' || typeof value === 'number') out.push(String(value));
  else if (value !== null && typeof value === 'object')
    for (const child of Object.values(value)) valuesOf(child, out);
  return out;
}

/**
 * A generated EVENT_HANDLER project run by `plugsmith dev` with PLUGSMITH_EVENT_SHAPES set, after a
 * challenge, an install and a chat message: the shapes file and every event the emulator delivered.
 */
async function keepShapes(language: Language) {
  const { work, dir, env } = await scenarioProject(language, { prefix: 'plugsmith-event-shapes-' });
  const shapesFile = join(work, 'shapes', 'event-shapes.json');
  const port = await freePort();
  const dev = spawnCli(
    ['dev', '--emulator-port', '0', '--messaging-port', '0', '--plugin-port', String(port)],
    { cwd: dir, env: { ...env, PLUGSMITH_EVENT_SHAPES: shapesFile } },
  );
  onTestFinished(async () => {
    await dev.stop('SIGTERM');
  });
  await dev.lineMatching(/PLUGIN_INSTALLED\s+delivered/);
  const state = JSON.parse(await readFile(stateFileOf(env.PLUGSMITH_CONFIG_DIR, dir), 'utf8'));
  const adminGet = async (path: string) => {
    const answer = await fetch(`${state.url}${path}`, {
      headers: { 'x-plugsmith-admin': state.adminToken },
    });
    expect(answer.status, path).toBe(200);
    return ((await answer.json()) as { data: any }).data;
  };
  // A person writes to the character the plugin is installed on.
  const [character] = await adminGet('/_emulator/characters');
  const messaging = { authorization: `Bearer ${state.apiKey}`, 'content-type': 'application/json' };
  const conversation = (await fetch(`${state.messagingUrl}/conversations`, {
    method: 'POST',
    headers: messaging,
    body: JSON.stringify({ characterId: character.id }),
  }).then((r) => r.json())) as { data: { id: string } };
  const sent = await fetch(`${state.messagingUrl}/conversations/${conversation.data.id}/messages`, {
    method: 'POST',
    headers: messaging,
    body: JSON.stringify({ content: 'a private message about the weather' }),
  });
  expect(sent.status).toBeLessThan(300);
  const text = await until('the message event in the shapes file', async () => {
    if (!existsSync(shapesFile)) return undefined;
    const read = await readFile(shapesFile, 'utf8');
    return read.includes('"AGENT_MESSAGE_RECEIVED"') ? read : undefined;
  });
  const deliveries: Array<{ event: unknown }> = await adminGet('/_emulator/deliveries');
  await dev.stop('SIGTERM');
  return { dir, work, env, shapesFile, text, events: deliveries.map((d) => d.event) };
}

/** What the file must hold: shapes by event type, and none of the values the events carried. */
function expectShapesOnly(kept: Awaited<ReturnType<typeof keepShapes>>) {
  const { text, events } = kept;
  const file = JSON.parse(text) as {
    version: number;
    events: Record<string, Record<string, string>>;
  };
  expect(file.version).toBe(1);
  expect(Object.keys(file.events)).toEqual([
    'AGENT_MESSAGE_RECEIVED',
    'PLUGIN_INSTALLED',
    'WEBHOOK_CHALLENGE',
  ]);
  expect(file.events.AGENT_MESSAGE_RECEIVED).toMatchObject({
    id: 'string',
    type: 'string',
    pluginInstanceId: 'string',
    'data.message': 'object',
    'data.message.content': 'string',
    'data.message.attachments': 'array',
    'data.message.isStreaming': 'boolean',
  });
  expect(file.events.WEBHOOK_CHALLENGE.pluginInstanceId).toBe('null');
  expect(file.events.PLUGIN_INSTALLED['data.accessToken']).toBe('string');
  // The installation's inputs are its own: their type only, none of their keys.
  expect(file.events.PLUGIN_INSTALLED['data.instance.inputs']).toBe('object');
  expect(
    Object.keys(file.events.PLUGIN_INSTALLED).filter((p) => p.startsWith('data.instance.inputs.')),
  ).toEqual([]);
  for (const shape of Object.values(file.events))
    for (const type of Object.values(shape)) expect(type).toMatch(TYPE_NAMES);

  // No value of any delivered event: no id, token, name, text or timestamp (the enum names aside).
  expect(events.length).toBeGreaterThanOrEqual(3);
  const values = [...new Set(events.flatMap((event) => valuesOf(event)))].filter(
    (v) => v.length >= 4 && !/^[A-Z_]+$/.test(v),
  );
  expect(values).toContain('a private message about the weather');
  expect(values.filter((v) => text.includes(v))).toEqual([]);
  expect(text).not.toMatch(/psi_|whsec_|pst_|psk_/);
  return file;
}

describe('PLUGSMITH_EVENT_SHAPES in generated plugins, and parity check --event-shapes', () => {
  test('both templates keep the same file of shapes and no value; the check passes on it and names one changed type', async () => {
    const [typescript, python] = await Promise.all(LANGUAGES.map(({ code }) => keepShapes(code)));
    const file = expectShapesOnly(typescript);
    expectShapesOnly(python);
    // The same events, the same file, byte for byte.
    expect(python.text).toBe(typescript.text);

    // The emulator sent these events, so its schemas agree with them.
    const { shapesFile, env } = typescript;
    const checked = await runCli(['parity', 'check', '--event-shapes', shapesFile, '--json'], {
      env,
    });
    expect(checked.code, checked.stdout + checked.stderr).toBe(0);
    const report = JSON.parse(checked.stdout);
    expect(report.differences).toEqual([]);
    expect(report.comparedEvents.sort()).toEqual(Object.keys(file.events));
    expect(report.behaviours).toContainEqual(
      expect.objectContaining({ section: 'Webhook delivery' }),
    );
    const text = await runCli(['parity', 'check', '--event-shapes', shapesFile], { env });
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(
      /^no differences: 3 recorded event types sent alike by the emulator/,
    );

    // One type changed, as if the platform sent a number: exit 1, that field named.
    file.events.AGENT_MESSAGE_RECEIVED['data.message.content'] = 'number';
    await writeFile(shapesFile, JSON.stringify(file, null, 2));
    const changed = await runCli(['parity', 'check', '--event-shapes', shapesFile, '--json'], {
      env,
    });
    expect(changed.code).toBe(1);
    expect(JSON.parse(changed.stdout).differences).toEqual([
      {
        step: 'event.AGENT_MESSAGE_RECEIVED',
        method: 'POST',
        pathTemplate: ':webhookUrl',
        kind: 'type',
        path: 'data.message.content',
        platform: 'number',
        emulator: 'string',
      },
    ]);
    const table = await runCli(['parity', 'check', '--event-shapes', shapesFile], { env });
    expect(table.code).toBe(1);
    expect(table.stdout).toMatch(/1 difference\b/);
    expect(table.stdout).toMatch(
      /event\.AGENT_MESSAGE_RECEIVED\s+POST :webhookUrl\s+type data\.message\.content\s+number\s+string/,
    );
  });
});
