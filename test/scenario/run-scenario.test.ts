import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runScenario, ScenarioFileError } from '../../src/emulator-entry.js';
import { admin, tempDir } from '../kit/index.js';
import { emulatorAndClient, serveEchoPlugin } from '../kit/plugin-server.js';

// `runScenario` as plugsmith/emulator exports it, in a plugin author's TypeScript test: an
// emulator in this process, a plugin on a real port (it answers each message with what it was
// told, in capitals when `shout` is set, never to a message saying "quiet", and every time it is
// told: it does not drop a duplicate), and structured results.

async function setUp(options: { shout?: boolean } = {}) {
  const { emu, client } = await emulatorAndClient();
  const { pluginId } = await serveEchoPlugin(emu, client, {
    answer: (text) => {
      if (text.includes('quiet')) return null;
      const reply = `You said: ${text}`;
      return options.shout ? reply.toUpperCase() : reply;
    },
  });
  return { emu, pluginId };
}

const CHAT = {
  name: 'a chat',
  env: ['WHO'],
  steps: [
    { id: 'inst', install: { on: 'agent', id: 'agent_nova' } },
    { id: 'conv', conversation: { agent: 'agent_nova' } },
    {
      message: { conversation: '${conv.id}', text: 'hello ${env.WHO}' },
      expect: [
        { reply: { text: 'You said: hello Ada' } },
        { replies: { count: 1 } },
        { delivery: { type: 'AGENT_MESSAGE_RECEIVED', status: '2xx', retried: false } },
      ],
    },
    {
      uninstall: { instance: '${inst.id}' },
      expect: [{ delivery: { type: 'PLUGIN_UNINSTALLED' } }],
    },
  ],
};

describe('runScenario from plugsmith/emulator', () => {
  test('runs a scenario file against an emulator and a plugin: every step passes, results are structured', async () => {
    const { emu, pluginId } = await setUp();
    const dir = await tempDir();
    const file = join(dir, 'chat.json');
    await writeFile(file, JSON.stringify(CHAT));
    const seen: string[] = [];
    const result = await runScenario(file, {
      emulator: emu,
      pluginId,
      env: { WHO: 'Ada' },
      onStep: (step) => seen.push(step.kind),
    });
    expect(result.ok, JSON.stringify(result, null, 2)).toBe(true);
    expect(seen).toEqual(['install', 'conversation', 'message', 'uninstall']);
    expect(result.steps[2].deliveries).toHaveLength(1);
    expect(result.steps[0].result.id).toMatch(/^pin_/);
    // The deliveries of the run carry its name.
    const delivery = await emu.waitForDelivery({ type: 'AGENT_MESSAGE_RECEIVED', pluginId });
    expect(delivery.scenario).toBe('a chat');
  });

  test('a changed reply fails the step with what was expected and what came, the delivery named and linked', async () => {
    const { emu, pluginId } = await setUp({ shout: true });
    // A running emulator, by its URL: the link to the delivery in its dashboard outlives the run.
    const result = await runScenario(CHAT, {
      baseUrl: emu.url,
      messagingUrl: emu.messagingUrl,
      token: emu.token!,
      apiKey: emu.apiKey!,
      adminToken: emu.adminToken,
      pluginId,
      env: { WHO: 'Ada' },
    });
    expect(result.ok).toBe(false);
    const failed = result.steps[2];
    expect(failed.ok).toBe(false);
    expect(failed.failures[0]).toMatchObject({
      // The value of ${env.WHO} is never shown: its reference stands in its place.
      expectation: 'reply {"text":"You said: hello ${env.WHO}"}',
      expected: 'a reply "You said: hello ${env.WHO}"',
      observed: '"YOU SAID: HELLO ADA"',
      deliveryId: expect.stringMatching(/^dlv_/),
      link: expect.stringContaining('/_emulator/dashboard/#/deliveries/dlv_'),
    });
    // The later step is skipped, not run.
    expect(result.steps[3]).toMatchObject({ skipped: true, ok: false });
  });

  test('an emulator object (closed with the test that holds it), or dashboardLinks: false, names the delivery without a link', async () => {
    const { emu, pluginId } = await setUp({ shout: true });
    // One after another: a run tags the emulator's deliveries with its scenario.
    const inProcess = await runScenario(CHAT, { emulator: emu, pluginId, env: { WHO: 'Ada' } });
    const unlinked = await runScenario(CHAT, {
      baseUrl: emu.url,
      messagingUrl: emu.messagingUrl,
      token: emu.token!,
      apiKey: emu.apiKey!,
      adminToken: emu.adminToken,
      pluginId,
      env: { WHO: 'Ada' },
      dashboardLinks: false,
    });
    const asked = await runScenario(CHAT, {
      emulator: emu,
      pluginId,
      env: { WHO: 'Ada' },
      dashboardLinks: true,
    });
    for (const result of [inProcess, unlinked]) {
      const failure = result.steps[2].failures[0];
      expect(failure.deliveryId).toMatch(/^dlv_/);
      expect(failure.link).toBeUndefined();
    }
    expect(asked.steps[2].failures[0].link).toContain('/_emulator/dashboard/#/deliveries/dlv_');
  });

  test('a conversation with a character of no agent: its result says agentId null, not the text "null"', async () => {
    const { emu, pluginId } = await setUp();
    const character = await admin(emu).data('POST', '/_emulator/characters', {
      orgId: emu.orgId,
      name: 'Loner',
    });
    expect(character.agentId).toBeNull();
    const result = await runScenario(
      {
        name: 'no agent',
        steps: [
          { id: 'conv', conversation: { character: character.id } },
          { message: { conversation: '${conv.id}', text: 'agent ${conv.agentId}' } },
        ],
      },
      { emulator: emu, pluginId },
    );
    expect(result.steps[0].result).toEqual({
      id: expect.stringMatching(/^conv_/),
      characterId: character.id,
      agentId: null,
    });
    // Inside a text, the reference reads as JSON's null, as a whole-string one keeps the value.
    expect(result.steps[1]).toMatchObject({ ok: true });
  });

  test('a bad scenario throws ScenarioFileError with every problem, before anything runs', async () => {
    const { emu, pluginId } = await setUp();
    const bad = { name: 'bad', steps: [{ mesage: { conversation: 'x', text: 'y' } }] };
    const error = await runScenario(bad, { emulator: emu, pluginId }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ScenarioFileError);
    expect((error as ScenarioFileError).problems[0]).toMatchObject({
      path: 'steps[0].mesage',
      fix: expect.stringContaining('did you mean "message"'),
    });
  });

  test('absence within a window, a wait, and a faults step: a plugin that answers a duplicate twice fails, and the profile is set back', async () => {
    const { emu, pluginId } = await setUp();
    const result = await runScenario(
      {
        name: 'quiet and duplicates',
        steps: [
          { install: { on: 'agent', id: 'agent_nova' } },
          { id: 'conv', conversation: {} },
          {
            message: { conversation: '${conv.id}', text: 'be quiet' },
            expect: [{ none: { reply: true, withinMs: 300 } }],
          },
          { wait: { ms: 10 } },
          { faults: { profile: 'duplicate=1', seed: 1 } },
          {
            message: { conversation: '${conv.id}', text: 'twice?' },
            expect: [{ replies: { count: 1 } }],
          },
        ],
      },
      { emulator: emu, pluginId },
    );
    expect(result.steps.map((s) => s.ok)).toEqual([true, true, true, true, true, false]);
    expect(result.steps[5].failures[0]).toMatchObject({
      expected: 'exactly 1 reply',
      observed: '2 replies: "You said: twice?", "You said: twice?"',
    });
    expect(emu.faults.get()).toMatchObject({ on: false });
  });
});
