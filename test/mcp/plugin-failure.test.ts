import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, onTestFinished, test } from 'vitest';
import { CLI, spawnCli } from '../kit/cli-process.js';
import { freePort } from '../kit/ports.js';
import { LANGUAGES, type Language, scenarioProject } from '../kit/project.js';
import { call, textOf } from './in-memory.js';

// Issue 43, the agent's side: a spawned `plugsmith mcp` over stdio beside `plugsmith dev`, which runs a generated
// project whose reply throws on "boom" (HTTP 500, the error and its stack on the plugin's stderr). The agent sees the
// plugin's own error and stack beside the attempt, without dev's terminal, and a chat with it returns at the failure.

interface Attempt {
  number: number;
  startedAt: string;
  responseStatus: number | null;
  pluginOutputLines: number;
  untrusted: { pluginOutput: Array<{ stream: string; text: string }> };
}

interface Detail {
  id: string;
  status: string;
  attemptList: Attempt[];
}

async function mcpOver(dir: string, env: Record<string, string>): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp'],
    cwd: dir,
    env: { ...(process.env as Record<string, string>), ...env, NO_COLOR: '1' },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'plugin-failure-test', version: '1' });
  await client.connect(transport);
  onTestFinished(() => client.close());
  return client;
}

/**
 * A generated project whose reply throws on "boom" (then changed by `change`, if given) under `plugsmith dev`, its
 * plugin deployed and installed, and `plugsmith mcp` beside it.
 */
async function devWithMcp(
  language: Language,
  change?: (dir: string) => Promise<void>,
): Promise<{ dir: string; client: Client }> {
  const { dir, env } = await scenarioProject(language, {
    prefix: 'plugsmith-mcp-failure-',
    replyThrows: true,
  });
  await change?.(dir);
  const port = await freePort();
  const dev = spawnCli(
    ['dev', '--emulator-port', '0', '--messaging-port', '0', '--plugin-port', String(port)],
    { cwd: dir, env },
  );
  // Stopped as a user stops it, so that it stops its plugin (the kit kills whatever is left after).
  onTestFinished(async () => {
    await dev.stop('SIGTERM');
  });
  await dev.lineMatching(/PLUGIN_INSTALLED\s+delivered/);
  return { dir, client: await mcpOver(dir, env) };
}

/** The first character of the project's emulator, through the MCP tool. */
async function characterOf(client: Client): Promise<{ id: string; agentId: string }> {
  const listed = await call(client, 'list_characters');
  expect(listed.isError, textOf(listed)).toBeFalsy();
  return (listed.structuredContent as { characters: Array<{ id: string; agentId: string }> })
    .characters[0];
}

/** A chat message that makes the plugin throw: the call returns with the failed delivery, not after waitSeconds. */
async function failingChat(client: Client, characterId: string): Promise<Detail> {
  const chat = await call(client, 'send_chat_message', {
    characterId,
    message: 'please go boom',
    waitSeconds: 120,
  });
  expect(chat.isError, textOf(chat)).toBeFalsy();
  const body = chat.structuredContent as { reply: unknown; failedDelivery: Detail };
  expect(body.reply).toBeNull();
  const failed = body.failedDelivery;
  expect(failed.attemptList[0].responseStatus).toBe(500);
  expect(textOf(chat)).toContain(
    `failed the AGENT_MESSAGE_RECEIVED event of the message (HTTP 500 on attempt 1, delivery ${failed.id}`,
  );
  expect(textOf(chat)).toContain('untrusted.pluginOutput');
  const output = failed.attemptList[0].untrusted.pluginOutput.map((line) => line.text).join('\n');
  // TypeScript quotes the text with ", Python with '.
  expect(output).toMatch(/cannot reply to ["']please go boom["']/);
  return failed;
}

const STACK_LINES = {
  typescript: /^ {4}at replyTo \(.*dist\/reply\.js:\d+:\d+\)$/,
  python: /^ {2}File ".*plugin\/reply\.py", line \d+, in reply_to$/,
};

describe.each(LANGUAGES)(
  'a generated $language plugin that throws, under plugsmith dev',
  ({ code }) => {
    test('send_chat_message returns at the failed attempt; get_delivery and follow_plugin_output show the error and its stack', async () => {
      const { client } = await devWithMcp(code);
      const stackLine = STACK_LINES[code];
      const character = await characterOf(client);
      const failed = await failingChat(client, character.id);

      const got = await call(client, 'get_delivery', { deliveryId: failed.id });
      expect(got.isError, textOf(got)).toBeFalsy();
      const attempt = (got.structuredContent as { delivery: Detail }).delivery.attemptList[0];
      const texts = attempt.untrusted.pluginOutput.map((line) => line.text);
      expect(texts.join('\n')).toContain('cannot reply to');
      expect(
        texts.some((text) => stackLine.test(text)),
        texts.join('\n'),
      ).toBe(true);
      expect(textOf(got)).toMatch(/untrusted\.pluginOutput: \d+ line\(s\) of attempt 1/);

      // From the attempt's start, the plugin's output holds the same lines, in order.
      const followed = await call(client, 'follow_plugin_output', {
        cursor: attempt.startedAt,
        limit: 500,
      });
      expect(followed.isError, textOf(followed)).toBeFalsy();
      const lines = (
        followed.structuredContent as { lines: Array<{ untrusted: { text: string } }> }
      ).lines;
      expect(lines.map((line) => line.untrusted.text)).toEqual(expect.arrayContaining(texts));
    });
  },
);

test('trigger_event returns the failed attempt with the plugin output; a message the plugin accepts without replying is explained after waitSeconds', async () => {
  const { client } = await devWithMcp('typescript', async (dir) => {
    // "quiet": the plugin accepts the event and writes nothing.
    const path = join(dir, 'dist/plugin.js');
    const plugin = await readFile(path, 'utf8');
    const quiet = plugin.replace(
      'const content = await replyTo(message.content);',
      "if (message.content.includes('quiet')) return { ok: true };\n        const content = await replyTo(message.content);",
    );
    expect(quiet).not.toBe(plugin);
    await writeFile(path, quiet);
  });
  const character = await characterOf(client);

  const now = new Date().toISOString();
  const triggered = await call(client, 'trigger_event', {
    type: 'AGENT_MESSAGE_RECEIVED',
    data: {
      agentId: character.agentId,
      characterId: character.id,
      conversationId: 'conv_trigger',
      message: {
        id: 'msg_trigger',
        conversationId: 'conv_trigger',
        sender: 'USER',
        type: 'TEXT',
        content: 'boom by trigger',
        attachments: [],
        isStreaming: false,
        createdAt: now,
        updatedAt: now,
      },
    },
    waitSeconds: 60,
  });
  expect(triggered.isError, textOf(triggered)).toBeFalsy();
  const delivery = (triggered.structuredContent as { delivery: Detail }).delivery;
  expect(delivery.attemptList[0].responseStatus).toBe(500);
  expect(textOf(triggered)).toContain('the plugin failed the event');
  expect(
    delivery.attemptList[0].untrusted.pluginOutput.map((line) => line.text).join('\n'),
  ).toContain('cannot reply to "boom by trigger"');

  const silent = await call(client, 'send_chat_message', {
    characterId: character.id,
    message: 'stay quiet',
    waitSeconds: 2,
  });
  expect(silent.isError, textOf(silent)).toBeFalsy();
  const body = silent.structuredContent as {
    reply: unknown;
    noReply: { reason: string; deliveries: Array<{ id: string; responseStatus: number }> };
  };
  expect(body.reply).toBeNull();
  expect(body.noReply.reason).toMatch(
    /^the plugin accepted the event but wrote no message in conversation conv_\w+ within 2s: delivery dlv_\w+ \(HTTP 200\)/,
  );
  expect(body.noReply.deliveries).toMatchObject([{ responseStatus: 200 }]);
  expect(textOf(silent)).toContain(body.noReply.reason);
});
