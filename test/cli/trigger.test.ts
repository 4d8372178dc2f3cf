import { beforeAll, describe, expect, test } from 'vitest';
import { createWebhookHandler, type WebhookEvent } from '../../src/shared/webhooks/index.js';
import { createClient } from '../../src/client/index.js';
import { jsonFile, ORG, useCliEnv } from '../kit/cli-env.js';
import { server as serve, until } from '../kit/index.js';

const t = useCliEnv();

/** A plugin's real webhook server: verifies every signature with the plugin's secret and records the events. */
interface PluginServer {
  url: string;
  secret: string;
  events: WebhookEvent[];
  close(): Promise<void>;
}

async function pluginServer(secret: string): Promise<PluginServer> {
  const events: WebhookEvent[] = [];
  const record = (event: WebhookEvent) => void events.push(event);
  const tokens = new Map<string, string>();
  const handler = createWebhookHandler({
    secret,
    on: {
      WEBHOOK_CHALLENGE: record,
      PLUGIN_INSTALLED: (event) => {
        record(event);
        tokens.set(
          String(event.pluginInstanceId),
          (event.data as { accessToken: string }).accessToken,
        );
      },
      PLUGIN_UNINSTALLED: record,
      // Answers like an EVENT_HANDLER does: the character's message, written with the installation token.
      AGENT_MESSAGE_RECEIVED: async (event) => {
        record(event);
        const { agentId, conversationId, message } = event.data as {
          agentId: string;
          conversationId: string;
          message: { content: string };
        };
        const token = tokens.get(String(event.pluginInstanceId));
        if (!token || conversationId === 'conv_sample') return;
        const platform = createClient({ baseUrl: t.emu.url, token });
        try {
          await platform.agentMessages.write(agentId, conversationId, {
            content: `echo: ${message.content}`,
            isStreaming: false,
          });
        } finally {
          await platform.close();
        }
      },
      REPOSITORY_FILE_ADDED: record,
      REPOSITORY_FILE_REMOVED: record,
    },
  });
  const webhook = await serve(handler);
  return { url: `${webhook.url}/webhook`, secret, events, close: webhook.close };
}

/** Creates a plugin with `plugins create` and reads its webhook secret. */
async function createPlugin(
  type: string,
  events: string[],
  scopes: string[] = [],
): Promise<{ id: string; secret: string }> {
  const created = await t.json([
    'plugins',
    'create',
    '--org',
    ORG,
    '--name',
    `${type} plugin`,
    '--type',
    type,
    '--events',
    events.join(','),
    ...(scopes.length ? ['--scopes', scopes.join(',')] : []),
  ]);
  const secret = (await t.cli(['plugins', 'secret', created.id])).stdout.trim();
  return { id: created.id, secret };
}

/** Creates a plugin, starts its verifying webhook server and points the plugin at it. */
async function plugin(
  type: string,
  events: string[],
  scopes: string[] = [],
): Promise<{ id: string; server: PluginServer }> {
  const created = await createPlugin(type, events, scopes);
  const server = await pluginServer(created.secret);
  await t.json(['plugins', 'update', created.id, '--webhook-url', server.url]);
  return { id: created.id, server };
}

let handler: { id: string; server: PluginServer };
let provider: { id: string; server: PluginServer };
beforeAll(async () => {
  [handler, provider] = await Promise.all([
    plugin('EVENT_HANDLER', ['AGENT_MESSAGE_RECEIVED'], ['AGENT_MESSAGE_WRITE']),
    plugin(
      'DATA_PROVIDER',
      ['REPOSITORY_FILE_ADDED', 'REPOSITORY_FILE_REMOVED'],
      ['REPOSITORY_FILES_READ'],
    ),
  ]);
});

const last = (server: PluginServer, type: string) =>
  server.events.filter((e) => e.type === type).at(-1);

describe('plugsmith trigger', () => {
  test('every event type reaches a real plugin server that verifies the signature', async () => {
    for (const p of [handler, provider]) {
      const verified = await t.json(['trigger', 'WEBHOOK_CHALLENGE', '--plugin', p.id]);
      expect(verified).toMatchObject({
        type: 'WEBHOOK_CHALLENGE',
        verified: true,
        delivery: { status: 'delivered' },
      });
      expect(last(p.server, 'WEBHOOK_CHALLENGE')?.pluginId).toBe(p.id);

      const installed = await t.cli(['trigger', 'plugin_installed', '--plugin', p.id]);
      expect(installed.code, installed.stderr).toBe(0);
      expect(installed.stdout).toMatch(/^delivery dlv_\S+ delivered \(HTTP 200, \d+ms\)$/m);
      const event = last(p.server, 'PLUGIN_INSTALLED');
      expect(event?.data).toMatchObject({
        instance: { pluginId: p.id },
        accessToken: expect.any(String),
      });
    }
    const agentInstance = last(handler.server, 'PLUGIN_INSTALLED')!.pluginInstanceId;
    expect(
      (last(handler.server, 'PLUGIN_INSTALLED')!.data as { instance: { entityId: string } })
        .instance.entityId,
    ).toBe('agent_nova');

    const message = await t.json(['trigger', 'AGENT_MESSAGE_RECEIVED', '--plugin', handler.id]);
    expect(message).toMatchObject({
      pluginInstanceId: agentInstance,
      delivery: { status: 'delivered' },
    });
    expect(message.via).toContain('char_nova');
    expect(message.reply).toMatchObject({
      conversationId: message.conversationId,
      sender: 'CHARACTER',
      content: expect.stringContaining('echo: Hello!'),
    });
    expect(last(handler.server, 'AGENT_MESSAGE_RECEIVED')?.data).toMatchObject({
      agentId: 'agent_nova',
      characterId: 'char_nova',
      message: { sender: 'USER', content: expect.stringContaining('onboarding') },
    });

    const added = await t.json(['trigger', 'REPOSITORY_FILE_ADDED', '--plugin', provider.id]);
    expect(added.delivery.status).toBe('delivered');
    const addedEvent = last(provider.server, 'REPOSITORY_FILE_ADDED')!;
    expect(addedEvent.data).toMatchObject({
      repositoryId: 'repo_docs',
      file: { fileName: 'onboarding-guide.md', status: 'UPLOADED' },
    });

    const removed = await t.json(['trigger', 'REPOSITORY_FILE_REMOVED', '--plugin', provider.id]);
    expect(removed.delivery.status).toBe('delivered');
    expect(last(provider.server, 'REPOSITORY_FILE_REMOVED')?.data).toMatchObject({
      repositoryId: 'repo_docs',
      file: { id: (addedEvent.data as { file: { id: string } }).file.id },
    });

    const uninstalled = await t.json(['trigger', 'PLUGIN_UNINSTALLED', '--plugin', handler.id]);
    expect(uninstalled).toMatchObject({
      pluginInstanceId: agentInstance,
      delivery: { status: 'delivered' },
    });
    expect(last(handler.server, 'PLUGIN_UNINSTALLED')?.pluginInstanceId).toBe(agentInstance);

    // With its only agent instance gone, a message needs an install first: the error says how.
    const none = await t.cli(['trigger', 'AGENT_MESSAGE_RECEIVED', '--plugin', handler.id]);
    expect(none.code).toBe(4);
    expect(none.stderr).toContain(`plugsmith trigger PLUGIN_INSTALLED --plugin ${handler.id}`);
  });

  test('--set and --data make the emulator emit that payload, signed and logged', async () => {
    await t.json(['trigger', 'PLUGIN_INSTALLED', '--plugin', provider.id]);
    const set = await t.json([
      'trigger',
      'REPOSITORY_FILE_ADDED',
      '--plugin',
      provider.id,
      '--set',
      'file.fileName=custom.txt',
      '--set',
      'file.fileSize=42',
    ]);
    expect(set.delivery.status).toBe('delivered');
    expect(last(provider.server, 'REPOSITORY_FILE_ADDED')?.data).toMatchObject({
      repositoryId: 'repo_docs',
      file: { fileName: 'custom.txt', fileSize: 42 },
    });

    const given = {
      id: 'file_given',
      fileName: 'given.md',
      contentType: 'text/markdown',
      fileSize: 12,
      isPublic: false,
      status: 'UPLOADED',
      errorMessage: null,
      parentId: 'org_acme',
      parentType: 'ORG',
      folder: null,
      orgId: 'org_acme',
      createdAt: '2026-01-01T00:00:00.000Z',
      updatedAt: '2026-01-01T00:00:00.000Z',
    };
    const file = await jsonFile(t.dir, 'removed.json', { repositoryId: 'repo_docs', file: given });
    const data = await t.json([
      'trigger',
      'REPOSITORY_FILE_REMOVED',
      '--plugin',
      provider.id,
      '--data',
      `@${file}`,
    ]);
    expect(data.delivery.status).toBe('delivered');
    expect(last(provider.server, 'REPOSITORY_FILE_REMOVED')?.data).toEqual({
      repositoryId: 'repo_docs',
      file: given,
    });

    const logged = await t.json([
      'logs',
      '--plugin',
      provider.id,
      '--type',
      'REPOSITORY_FILE_REMOVED',
    ]);
    expect(logged.at(-1).id).toBe(data.delivery.id);

    const notSubscribed = await t.cli([
      'trigger',
      'AGENT_MESSAGE_RECEIVED',
      '--plugin',
      provider.id,
      '--set',
      'message.content=x',
    ]);
    expect(notSubscribed.code).toBe(2);
    const fileAddedWith = (assignment: string) =>
      t.cli(['trigger', 'REPOSITORY_FILE_ADDED', '--plugin', provider.id, '--set', assignment]);
    const badSet = await fileAddedWith('novalue');
    expect(badSet.code).toBe(2);
    expect(badSet.stderr).toContain('path=value');

    // A field the event's data does not have is a typo: refused, with the fields it has; nothing is sent.
    const sent = (await t.json(['logs', '--plugin', provider.id])).length;
    const typo = await fileAddedWith('files.fileName=x');
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain(
      '--set files.fileName: REPOSITORY_FILE_ADDED\'s data has no field "files": did you mean "file"? use one of its fields (repositoryId, file)',
    );
    expect(typo.stderr).toContain('pass the whole data with --data');
    // Written from the event's top: the path inside its data is named.
    const fromTop = await fileAddedWith('data.repositoryId=repo_x');
    expect(fromTop.code).toBe(2);
    expect(fromTop.stderr).toContain(
      "--set data.repositoryId: paths start inside the event's data: --set repositoryId=…",
    );
    const near = await fileAddedWith('repositryId=repo_x');
    expect(near.code).toBe(2);
    expect(near.stderr).toContain('did you mean "repositoryId"?');
    expect((await t.json(['logs', '--plugin', provider.id])).length).toBe(sent);
  });

  test('--direct signs a sample event with the secret and POSTs it to a URL', async () => {
    const ok = await t.cli([
      'trigger',
      'AGENT_MESSAGE_RECEIVED',
      '--direct',
      handler.server.url,
      '--secret',
      handler.server.secret,
      '--set',
      'message.content=direct hello',
    ]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/^HTTP 200 in \d+ms\n\{"ok":true\}/);
    expect(last(handler.server, 'AGENT_MESSAGE_RECEIVED')?.data).toMatchObject({
      message: { content: 'direct hello' },
    });

    // Without --secret the secret is fetched with the plugin.
    const fetched = await t.json([
      'trigger',
      'WEBHOOK_CHALLENGE',
      '--direct',
      handler.server.url,
      '--plugin',
      handler.id,
    ]);
    expect(fetched.status).toBe(200);
    expect(JSON.parse(fetched.body)).toEqual({
      challenge: (fetched.event.data as { challenge: string }).challenge,
    });

    const otherSecret = await t.cli([
      'trigger',
      'PLUGIN_INSTALLED',
      '--direct',
      handler.server.url,
      '--secret',
      provider.server.secret,
    ]);
    expect(otherSecret.code).toBe(1);
    expect(otherSecret.stdout).toContain('HTTP 401');
  });

  describe('a delivery the webhook did not take is not told as final', () => {
    /** A plugin whose webhook answers 503 to the next REPOSITORY_FILE_ADDED deliveries it is told to refuse (a restarting server), running `before` first. */
    async function flaky(): Promise<{
      id: string;
      files: WebhookEvent[];
      refuse: (times: number, before?: () => Promise<unknown>) => void;
    }> {
      const created = await createPlugin('DATA_PROVIDER', ['REPOSITORY_FILE_ADDED']);
      const files: WebhookEvent[] = [];
      const handle = createWebhookHandler({
        secret: created.secret,
        on: {
          PLUGIN_INSTALLED: () => undefined,
          REPOSITORY_FILE_ADDED: (event) => void files.push(event),
        },
      });
      let refusals = 0;
      let beforeRefusal: (() => Promise<unknown>) | undefined;
      const webhook = await serve(async (req, res) => {
        const chunks: Buffer[] = [];
        for await (const chunk of req) chunks.push(chunk as Buffer);
        const body = Buffer.concat(chunks);
        (req as typeof req & { rawBody: Buffer }).rawBody = body;
        // Only REPOSITORY_FILE_ADDED is refused: the install before it, and the challenge, go through.
        if (refusals > 0 && body.includes('"type":"REPOSITORY_FILE_ADDED"')) {
          refusals--;
          await beforeRefusal?.();
          res.statusCode = 503;
          res.end();
          return;
        }
        return handle(req, res);
      });
      await t.json(['plugins', 'update', created.id, '--webhook-url', `${webhook.url}/webhook`]);
      await t.json(['plugins', 'verify', created.id]);
      // Installed once, on the org's first repository, which each trigger below adds a file to.
      const installed = await t.cli(['trigger', 'PLUGIN_INSTALLED', '--plugin', created.id]);
      expect(installed.code, installed.stderr).toBe(0);
      return {
        id: created.id,
        files,
        refuse: (times, before) => {
          refusals = times;
          beforeRefusal = before;
        },
      };
    }

    const delivered = (id: string) =>
      until(`delivery ${id} delivered`, async () => {
        const delivery = await t.json(['logs', id]);
        return delivery.status === 'delivered' ? delivery : undefined;
      });

    test('a refused attempt: when the emulator tries again by itself; the retry goes through', async () => {
      const plugin = await flaky();
      // Refused twice: whether trigger looks after the first attempt or the retry a second later, one is still due.
      plugin.refuse(2);
      const refused = await t.cli(['trigger', 'REPOSITORY_FILE_ADDED', '--plugin', plugin.id]);
      expect(refused.code, refused.stderr).toBe(1);
      const id = /delivery (dlv_\S+) pending \(HTTP 503/.exec(refused.stdout)?.[1];
      expect(id, refused.stdout).toBeDefined();
      expect(refused.stderr).toMatch(
        /the webhook did not accept attempt [12]; the emulator tries again by itself in [0-9]+ s \(`plugsmith logs (dlv_\S+)` shows how it goes; `plugsmith logs redeliver \1` sends it again now\)/,
      );
      expect(refused.stderr).toContain(id);
      // Its next attempt now rather than in some 5 s.
      await until('the second refusal', async () =>
        (await t.json(['logs', id!])).attempts.length >= 2 ? true : undefined,
      );
      // Unless the emulator's own retry (some 5 s on) went through meanwhile, on a loaded machine.
      await t.api.emulator.deliveries.retry(id!).catch(() => undefined);
      await delivered(id!);
      expect(plugin.files).toHaveLength(1);
    });

    test('a retry held while the plugin restarts, and a delivery held before its first attempt, say so', async () => {
      const plugin = await flaky();
      // Held as dev holds them when it restarts the plugin after the refusal.
      plugin.refuse(1, () => t.api.emulator.holds.hold(plugin.id));
      const refused = await t.cli(['trigger', 'REPOSITORY_FILE_ADDED', '--plugin', plugin.id]);
      expect(refused.code, refused.stderr).toBe(1);
      const id = /delivery (dlv_\S+) pending/.exec(refused.stdout)?.[1];
      expect(refused.stderr).toContain(
        "the webhook did not accept attempt 1; the emulator holds the plugin's deliveries (`plugsmith dev` does while it restarts the plugin) and sends it by itself when the plugin is back",
      );
      await t.api.emulator.holds.release(plugin.id);
      await delivered(id!);

      await t.api.emulator.holds.hold(plugin.id);
      const queued = await t.cli([
        'trigger',
        'REPOSITORY_FILE_ADDED',
        '--plugin',
        plugin.id,
        '--wait',
        '1',
      ]);
      expect(queued.code, queued.stderr).toBe(1);
      const held = /delivery (dlv_\S+) pending \(no attempt yet\)/.exec(queued.stdout)?.[1];
      expect(held, queued.stdout).toBeDefined();
      expect(queued.stderr).toContain(
        `no attempt of the delivery within --wait: the emulator holds the plugin's deliveries`,
      );
      await t.api.emulator.holds.release(plugin.id);
      await delivered(held!);
      expect(plugin.files).toHaveLength(2);
    });
  });

  test('unknown event types and missing plugins are usage errors', async () => {
    const unknown = await t.cli(['trigger', 'NOPE', '--plugin', handler.id]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('REPOSITORY_FILE_ADDED');
    const which = await t.cli(['trigger', 'WEBHOOK_CHALLENGE'], {}, undefined);
    expect(which.code).toBe(2);
    expect(which.stderr).toContain('--plugin');
  });
});
