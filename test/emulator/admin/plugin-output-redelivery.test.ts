import { setTimeout as sleep } from 'node:timers/promises';
import { expect, test } from 'vitest';
import { admin } from '../../kit/index.js';
import { emulatorAndClient, serveEchoPlugin } from '../../kit/plugin-server.js';

// A redelivery sends the same event (same id) again as another delivery. A line of the plugin's output that names the
// event belongs to the delivery being handled when it was read: the original's attempt keeps the lines from before the
// redelivery was made, the redelivery gets those from after (docs/emulator-behaviour.md, "Linking rule").

interface Attempt {
  startedAt: string;
  durationMs: number;
  pluginOutput?: Array<{ text: string }>;
}

test("a line naming the event after its redelivery is the redelivery's, not the original attempt's", async () => {
  const { emu, client } = await emulatorAndClient();
  const { pluginId } = await serveEchoPlugin(emu, client);
  const calls = admin(emu);
  await client.agentPlugins.install('agent_nova', {
    name: 'redelivered',
    pluginId,
    events: [],
    scopes: [],
  });
  const original = await emu.waitForDelivery({ type: 'PLUGIN_INSTALLED', pluginId });
  const attemptEnd = (attempt: Attempt) => Date.parse(attempt.startedAt) + attempt.durationMs;
  const written = async (text: string, at: number) => {
    const answer = await calls.post(`/_emulator/plugins/${pluginId}/output`, {
      lines: [{ at: new Date(at).toISOString(), stream: 'stdout', text }],
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  };
  const read = async (id: string): Promise<Attempt[]> =>
    (await calls.data('GET', `/_emulator/deliveries/${id}`)).attempts;

  // Outside every attempt's window (so only the naming rule can link them), before and after the redelivery.
  const [first] = await read(original.id);
  const before = attemptEnd(first) + 300;
  await written(`handled ${original.eventId} (late log line)`, before);
  await sleep(Math.max(0, before - Date.now()) + 50);
  const redelivery = await calls.data('POST', `/_emulator/deliveries/${original.id}/redeliver`);
  expect(redelivery.eventId).toBe(original.eventId);
  const [resent] = await read(redelivery.id);
  await written(`handled ${original.eventId} again`, attemptEnd(resent) + 300);

  const texts = (attempt: Attempt) => (attempt.pluginOutput ?? []).map((line) => line.text);
  expect(texts((await read(original.id))[0])).toEqual([
    `handled ${original.eventId} (late log line)`,
  ]);
  expect(texts((await read(redelivery.id))[0])).toEqual([`handled ${original.eventId} again`]);
});
