import type { RunCommand, CommandInput, OptionsOf } from '../types.js';
import { clientFor, readJson, settingsFor, withClient } from '../context.js';
import { UserError, EXIT } from '../../errors.js';
import { note, printResult } from '../../ui/output.js';
import { eventTypeOf } from '../../trigger/fixtures.js';
import { givenWebhookSecret } from '../webhook-secret.js';
import { pluginOfProject, UnconfirmedStateError } from '../../dev/project-plugin.js';
import { attemptOutputLines, deliverySummary } from '../../dev/delivery-view.js';
import { accepted } from '../../delivery-watch/index.js';
import { styleFor } from '../../ui/style.js';
import type { Delivery } from '../../client/index.js';
import type { DataOverride } from '../../trigger/overrides.js';
import { unknownDataField } from '../../scenario/schema-problems.js';
import type { triggerOptions } from './options.js';

type TriggerOptions = OptionsOf<typeof triggerOptions>;

/** `--data @file` or inline JSON: an object, or a usage/validation error naming the flag. */
async function dataOf(raw: string | undefined): Promise<Record<string, unknown> | undefined> {
  if (raw === undefined) return undefined;
  let parsed: unknown;
  if (raw.startsWith('@')) {
    parsed = await readJson(raw.slice(1), `--data ${raw.slice(1)}`);
  } else {
    try {
      parsed = JSON.parse(raw);
    } catch (error) {
      throw new UserError(
        `--data is not valid JSON: ${(error as Error).message} (pass @file to read a file)`,
        EXIT.VALIDATION,
      );
    }
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new UserError("--data must be a JSON object: the event's data", EXIT.VALIDATION);
  return parsed as Record<string, unknown>;
}

/** Each `--set` path must name a field of the event's sample data (the fields of an open part are any). */
function refuseUnknownFields(type: ReturnType<typeof eventTypeOf>, overrides: DataOverride[]) {
  for (const { path } of overrides) {
    const unknown = unknownDataField(type, path);
    // `data.message.content`: the path written from the event's top, where it starts inside its data.
    if (unknown && path[0] === 'data' && path.length > 1 && !unknownDataField(type, path.slice(1)))
      throw new UserError(
        `--set ${path.join('.')}: paths start inside the event's data: --set ${path.slice(1).join('.')}=…`,
        EXIT.USAGE,
      );
    if (unknown)
      throw new UserError(
        `--set ${path.join('.')}: ${unknown.message}: ${unknown.fix} (to send fields the event does not have, pass the whole data with --data)`,
        EXIT.USAGE,
      );
  }
}

/** Signs a sample event and POSTs it to --direct URL; prints the plugin's answer. */
async function direct(
  input: CommandInput<TriggerOptions>,
  type: ReturnType<typeof eventTypeOf>,
  data: Record<string, unknown> | undefined,
): Promise<void> {
  const o = input.options;
  let secret = await givenWebhookSecret(input, o.secret);
  let pluginId = o.plugin;
  let orgId: string | undefined;
  if (!secret) {
    const { client, settings } = await clientFor(input);
    try {
      pluginId = await pluginOfProject(o.plugin, o.manifest, settings).catch((error: unknown) => {
        if (error instanceof UnconfirmedStateError) throw error;
        throw new UserError(
          '--direct needs the webhook secret: pass --secret - (stdin) or set PLUGSMITH_WEBHOOK_SECRET (or --plugin PLUGIN_ID to fetch it)',
          EXIT.USAGE,
        );
      });
      const plugin = await client.plugins.get(pluginId);
      secret = plugin.webhookSecret as string | undefined;
      orgId = plugin.orgId;
      if (!secret)
        throw new UserError(
          `the platform did not show plugin ${pluginId}'s webhook secret (only MEMBER and OWNER see it): pass --secret - (stdin) or set PLUGSMITH_WEBHOOK_SECRET`,
          EXIT.AUTH,
        );
    } finally {
      await client.close();
    }
  }
  const { sendDirect } = await import('../../trigger/direct.js');
  let result: Awaited<ReturnType<typeof sendDirect>>;
  try {
    result = await sendDirect({
      url: o.direct!,
      secret,
      type,
      pluginId,
      pluginInstanceId: o.instance,
      orgId,
      overrides: o.set,
      data,
    });
  } catch (error) {
    if (error instanceof TypeError) throw new UserError(`${error.message}`, EXIT.USAGE);
    throw error;
  }
  if (!input.global.json)
    note(
      input.io,
      input.global,
      `POST ${result.url} (${type}, event ${String(result.event.id)}, signed)`,
    );
  printResult(
    input.io,
    input.global,
    result,
    () =>
      `HTTP ${result.status} in ${result.durationMs}ms\n${result.body}${result.body.endsWith('\n') || !result.body ? '' : '\n'}`,
  );
  if (result.status < 200 || result.status >= 300)
    throw new UserError(`the webhook answered HTTP ${result.status}`, EXIT.UNEXPECTED);
}

/** The delivery's summary; when its last attempt failed, the plugin's own output linked to that attempt below it. */
function deliveryText(delivery: Delivery, style: ReturnType<typeof styleFor>): string {
  const last = delivery.attempts.at(-1);
  const lines = [deliverySummary(delivery)];
  if (last && !accepted(last)) lines.push(...attemptOutputLines(last, style, '  '));
  return `${lines.join('\n')}\n`;
}

/**
 * Why trigger failed, for a delivery the webhook did not accept: one still pending says when the emulator tries again by
 * itself (a plugin restarting with a new secret takes the retry), one that failed for good says how to send it again.
 */
function notAccepted(delivery: Delivery): string {
  const id = delivery.id;
  const follow = `(\`plugsmith logs ${id}\` shows how it goes; \`plugsmith logs redeliver ${id}\` sends it again now)`;
  const tried = delivery.attempts.length;
  if (delivery.status !== 'pending')
    return `the webhook did not accept the event (\`plugsmith logs ${id}\` shows it whole; \`plugsmith logs redeliver ${id}\` sends it again)`;
  const held = delivery.heldSince
    ? "the emulator holds the plugin's deliveries (`plugsmith dev` does while it restarts the plugin) and sends it by itself when the plugin is back"
    : undefined;
  if (tried === 0)
    return `no attempt of the delivery within --wait: ${held ?? 'it is still queued'} ${follow}`;
  const refused = `the webhook did not accept attempt ${tried}`;
  if (held) return `${refused}; ${held} ${follow}`;
  const retry = Date.parse(delivery.nextAttemptAt ?? '');
  if (!Number.isFinite(retry)) return `${refused}; the delivery is still pending ${follow}`;
  const seconds = Math.ceil((retry - Date.now()) / 1000);
  const when = seconds > 0 ? `in ${seconds} s` : 'any moment now';
  return `${refused}; the emulator tries again by itself ${when} ${follow}`;
}

/** Triggers an event on the emulator (or directly at a URL) and reports the delivery. */
const trigger: RunCommand<TriggerOptions> = async (input) => {
  const o = input.options;
  const type = eventTypeOf(input.args[0]);
  const data = await dataOf(o.data);
  // A field the event does not have is a typo, refused as a scenario's payload refuses it; --data sends any payload.
  if (data === undefined) refuseUnknownFields(type, o.set ?? []);
  if (o.direct) return direct(input, type, data);
  if (o.secret)
    throw new UserError(
      "--secret goes with --direct (the emulator signs with the plugin's own secret)",
      EXIT.USAGE,
    );

  const settings = await settingsFor(input);
  if (settings.noEmulator && !settings.baseUrl)
    throw new UserError(settings.noEmulator, EXIT.NOT_FOUND);
  await withClient(input, { token: true }, async (client) => {
    const pluginId = await pluginOfProject(o.plugin, o.manifest, settings);
    const { triggerEvent } = await import('../../trigger/trigger.js');
    // Messages go through the messaging API with the API key; the same client carries both.
    const result = await triggerEvent(client, {
      type,
      pluginId,
      instanceId: o.instance,
      overrides: o.set,
      data,
      timeoutMs: o.wait * 1000,
      // Without a key (CI sets only the URL and token), a temporary one is borrowed from the emulator.
      hasApiKey: Boolean(settings.apiKey),
    });
    if (!input.global.json)
      note(
        input.io,
        input.global,
        `${type} for plugin ${pluginId}${result.pluginInstanceId ? ` (instance ${result.pluginInstanceId})` : ''} through ${result.via}`,
      );
    // --quiet: the delivery's id alone (for `plugsmith logs redeliver $(…)`); failures still go to stderr.
    const quietly = input.global.quiet && !input.global.json;
    if (quietly && result.delivery) input.io.stdout.write(`${result.delivery.id}\n`);
    if (!quietly)
      printResult(
        input.io,
        input.global,
        result,
        () =>
          (result.delivery
            ? deliveryText(result.delivery, styleFor(input.io, input.global))
            : 'no delivery yet\n') +
          (result.reply ? `reply in ${result.conversationId}: ${result.reply.content}\n` : ''),
      );
    if (type === 'WEBHOOK_CHALLENGE' && result.verified === false && !o.set && !data) {
      throw new UserError(
        `the webhook of plugin ${pluginId} is not verified: ${result.reason ?? 'no reason given'}`,
        EXIT.UNEXPECTED,
      );
    }
    if (!result.delivery)
      throw new UserError(
        `no delivery of ${type} reached the log in time: is the plugin (and its instance) subscribed, and is its webhook up? (\`plugsmith logs\`)`,
        EXIT.UNEXPECTED,
      );
    if (result.delivery.status !== 'delivered')
      throw new UserError(notAccepted(result.delivery), EXIT.UNEXPECTED);
    if (result.reply === null) {
      note(
        input.io,
        input.global,
        `the plugin accepted the event but wrote no message in conversation ${result.conversationId} within ${o.wait}s (an EVENT_HANDLER answers with AGENT_MESSAGE_WRITE: POST /api/agents/:agentId/conversations/:conversationId/messages)`,
      );
    }
  });
};

export default trigger;
