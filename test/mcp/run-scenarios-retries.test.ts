import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { createClient } from '../../src/client/index.js';
import { answerChallenge, emulator, json, receiver, tempDir } from '../kit/index.js';
import { call, connectTo, mcpClient, textOf } from './in-memory.js';

// A passing run through MCP says when retries happened, as `plugsmith scenario run` does: a real webhook that
// answers 500 to the first attempt of every message event (the runner makes the retry at once, so the
// scenario passes), a real emulator, run_scenarios over the SDK's in-memory transport.

async function setUp(refuseFirstAttempt: boolean) {
  const emu = await emulator({ delivery: { schedule: [60_000, 60_000] } });
  const refused = new Set<string>();
  const hook = await receiver((request, res, index) => {
    const event = request.json;
    if (event?.type !== 'AGENT_MESSAGE_RECEIVED') return answerChallenge(request, res, index);
    if (refuseFirstAttempt && !refused.has(event.id)) {
      refused.add(event.id);
      return json(res, 500, { error: 'not ready yet' });
    }
    return json(res, 200, { ok: true });
  });
  const client = createClient({ baseUrl: emu.url, token: emu.token!, adminToken: emu.adminToken });
  const plugin = await client.plugins.createInOrg(emu.orgId!, {
    name: 'flaky plugin',
    description: 'refuses the first attempt',
    type: 'EVENT_HANDLER',
    webhookUrl: hook.webhookUrl,
    events: ['AGENT_MESSAGE_RECEIVED'],
    scopes: ['AGENT_MESSAGE_WRITE'],
  });
  await client.plugins.verifyWebhook(plugin.id);
  await client.agentPlugins.install('agent_nova', {
    name: 'on nova',
    pluginId: plugin.id,
    events: ['AGENT_MESSAGE_RECEIVED'],
    scopes: ['AGENT_MESSAGE_WRITE'],
  });
  await client.close();
  const project = await tempDir('plugsmith-mcp-retries-');
  await mkdir(join(project, 'scenarios'));
  await writeFile(
    join(project, 'scenarios', 'message.json'),
    JSON.stringify({
      name: 'a message is taken',
      steps: [
        { id: 'conv', conversation: { character: 'char_nova' } },
        {
          // biome-ignore lint/suspicious/noTemplateCurlyInString: a scenario's reference to an earlier step, not a template literal
          message: { conversation: '${conv.id}', text: 'hello' },
          // Waits until the delivery settles (the runner makes the retry at once); `status` judges the first answer.
          expect: [
            {
              delivery: {
                type: 'AGENT_MESSAGE_RECEIVED',
                status: refuseFirstAttempt ? 500 : '2xx',
              },
            },
          ],
        },
      ],
    }),
  );
  const base = connectTo(emu);
  const mcp = await mcpClient(async () => ({ ...(await base()), project }));
  return { mcp, pluginId: plugin.id };
}

interface Ran {
  ok: boolean;
  scenarios: Array<{
    ok: boolean;
    retried: Array<{ deliveryId: string; type: string; answers: string[]; status: string }>;
  }>;
}

test('run_scenarios says which deliveries needed a retry in a passing run, with the plugin answers', async () => {
  const { mcp, pluginId } = await setUp(true);
  const ran: CallToolResult = await call(mcp, 'run_scenarios', { pluginId });
  expect(ran.isError, JSON.stringify(ran)).toBeFalsy();
  const results = ran.structuredContent as unknown as Ran;
  expect(results.ok, textOf(ran)).toBe(true);
  const [retried] = results.scenarios[0].retried;
  expect(results.scenarios[0].retried).toHaveLength(1);
  expect(retried.type).toBe('AGENT_MESSAGE_RECEIVED');
  expect(retried.answers).toEqual(['HTTP 500', 'HTTP 200']);
  expect(retried.deliveryId).toMatch(/^dlv_/);
  expect(textOf(ran)).toContain('1 scenario(s) passed. 1 delivery needed a retry');
});

test('a run without retries says none', async () => {
  const { mcp, pluginId } = await setUp(false);
  const ran = await call(mcp, 'run_scenarios', { pluginId });
  const results = ran.structuredContent as unknown as Ran;
  expect(results.ok).toBe(true);
  expect(results.scenarios[0].retried).toEqual([]);
  expect(textOf(ran)).not.toContain('retry');
  // No paths at all is the default folder, as leaving them out is.
  const empty = await call(mcp, 'run_scenarios', { paths: [], pluginId });
  expect(empty.isError, textOf(empty)).toBeFalsy();
  expect((empty.structuredContent as unknown as Ran).scenarios).toHaveLength(1);
});
