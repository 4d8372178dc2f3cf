import type { Delivery, Message, PlatformClient } from '../client/index.js';
import { literalText, literalValue } from './references.js';

// `plugsmith scenario record`: what happened on the emulator, read back from the plugin's delivery
// log (each event tells a user's action) and the conversations (what the plugin answered), written
// as a scenario: the actions as steps, the plugin's effects as exact expectations, ids replaced by
// references to the steps that make them. Every text that came from the log (a message, a reply, a
// file's name and content, an install's inputs, ids) is written as a literal (`${` escaped as
// `$${`): a recorded `${env.SECRET}` replays as that text, never as the variable.

export interface RecordOptions {
  pluginId: string;
  /** Deliveries created at or after this time (ISO 8601). */
  since?: string;
  name: string;
  /** `$schema` of the file written (null: none). */
  schema: string | null;
  /** Installs the project's `plugsmith dev` makes itself: never recorded as steps. */
  manifestInstalls: Array<{ name: string; entityId: string }>;
}

export interface Recording {
  scenario: Record<string, unknown>;
  /** Events read; what was left out, and why. */
  notes: string[];
  /** How many steps came of the deliveries. */
  steps: number;
}

type RecordedStep = Record<string, unknown> & { expect?: Array<Record<string, unknown>> };

/** The delivery answered 2xx the first time it reached the plugin, and never refused. */
function answeredAtOnce(delivery: Delivery): boolean {
  const skipped = new Set(
    (delivery.faults ?? [])
      .filter((m) => m.kind === 'drop' || m.kind === 'duplicate')
      .map((m) => m.attempt),
  );
  const answers = delivery.attempts.filter((a) => !skipped.has(a.number));
  return (
    answers.length > 0 &&
    answers.every(
      (a) => a.responseStatus !== null && a.responseStatus >= 200 && a.responseStatus < 300,
    )
  );
}

function deliveryExpectation(delivery: Delivery, count: number): Record<string, unknown> {
  const first = delivery.attempts[0]?.responseStatus ?? null;
  return {
    delivery: {
      type: delivery.type,
      count,
      ...(answeredAtOnce(delivery)
        ? { status: '2xx', retried: false }
        : first !== null
          ? { status: first }
          : {}),
    },
  };
}

/** Reads the plugin's deliveries since `since` and writes them as a scenario. */
export async function recordScenario(
  client: PlatformClient,
  options: RecordOptions,
): Promise<Recording> {
  const notes: string[] = [];
  const page = await client.emulator.deliveries.list({
    pluginId: options.pluginId,
    since: options.since,
    limit: 100,
    sortBy: 'createdAt',
    sortOrder: 'asc',
  });
  // Each event once (a redelivery or an injected duplicate is the same action), never one a scenario run made.
  const seen = new Set<string>();
  const deliveries = page.data.filter((d) => {
    if (d.type === 'WEBHOOK_CHALLENGE' || d.redeliveryOf || d.scenario) return false;
    if (seen.has(d.eventId)) return false;
    seen.add(d.eventId);
    return true;
  });
  if (page.data.length === 100)
    notes.push('only the first 100 deliveries were read: pass a later --since to record less');

  const steps: RecordedStep[] = [];
  const conversations = new Map<string, string>();
  const messagesOf = new Map<string, Message[]>();
  const files = new Map<string, string>();
  const instances = new Map<string, string>();
  let counter = 0;
  const nextId = (prefix: string) => `${prefix}${++counter}`;

  for (const delivery of deliveries) {
    const data = (delivery.event as { data?: Record<string, unknown> }).data ?? {};
    switch (delivery.type) {
      case 'AGENT_MESSAGE_RECEIVED': {
        const conversationId = String(data.conversationId);
        const message = data.message as { id: string; content: string };
        if (!conversations.has(conversationId)) {
          const id = nextId('conv');
          conversations.set(conversationId, id);
          steps.push({ id, conversation: { character: literalText(String(data.characterId)) } });
        }
        let messages = messagesOf.get(conversationId);
        if (!messages) {
          messages = (await client.messaging.messages.list(conversationId, { limit: 100 })).data;
          messagesOf.set(conversationId, messages);
        }
        const at = messages.findIndex((m) => m.id === message.id);
        const after = at === -1 ? [] : messages.slice(at + 1);
        const nextUser = after.findIndex((m) => m.sender === 'USER');
        const replies = (nextUser === -1 ? after : after.slice(0, nextUser)).filter(
          (m) => m.sender === 'CHARACTER' && !m.isStreaming,
        );
        const expect: Array<Record<string, unknown>> = [];
        if (replies[0]) expect.push({ reply: { text: literalText(replies[0].content) } });
        expect.push({ replies: { count: replies.length } });
        expect.push(deliveryExpectation(delivery, 1));
        steps.push({
          message: {
            conversation: `\${${conversations.get(conversationId)}.id}`,
            text: literalText(message.content),
          },
          expect,
        });
        break;
      }
      case 'REPOSITORY_FILE_ADDED': {
        const file = data.file as { id: string; fileName: string; contentType?: string | null };
        const id = nextId('file');
        files.set(file.id, id);
        let content = '';
        try {
          const access = await client.uploads.accessUrl(file.id);
          if (access.url) content = await (await fetch(access.url)).text();
        } catch {
          notes.push(`could not read ${file.fileName} (${file.id}): recorded with empty content`);
        }
        steps.push({
          id,
          addFile: {
            repository: literalText(String(data.repositoryId)),
            name: literalText(file.fileName),
            content: literalText(content),
            ...(file.contentType ? { contentType: literalText(file.contentType) } : {}),
          },
          expect: [deliveryExpectation(delivery, 1)],
        });
        break;
      }
      case 'REPOSITORY_FILE_REMOVED': {
        const file = data.file as { id: string; fileName: string };
        const step = files.get(file.id);
        if (!step) {
          notes.push(
            `left out the removal of ${file.fileName} (${file.id}): it was added before the recording, so a replay would not have it`,
          );
          break;
        }
        steps.push({
          removeFile: {
            repository: literalText(String(data.repositoryId)),
            file: `\${${step}.id}`,
          },
          expect: [deliveryExpectation(delivery, 1)],
        });
        break;
      }
      case 'PLUGIN_INSTALLED': {
        const instance = data.instance as {
          id: string;
          name: string;
          entityType: string;
          entityId: string;
          inputs?: Record<string, unknown>;
          events?: string[];
          scopes?: string[];
        };
        const fromManifest = options.manifestInstalls.some(
          (i) => i.name === instance.name && i.entityId === instance.entityId,
        );
        if (fromManifest) {
          notes.push(
            `left out the install ${instance.name} (${instance.id}): \`plugsmith dev\` makes it from the manifest`,
          );
          break;
        }
        const id = nextId('inst');
        instances.set(instance.id, id);
        steps.push({
          id,
          install: literalValue({
            on: instance.entityType.toLowerCase(),
            id: instance.entityId,
            name: instance.name,
            ...(instance.inputs && Object.keys(instance.inputs).length
              ? { inputs: instance.inputs }
              : {}),
            ...(instance.events ? { events: instance.events } : {}),
            ...(instance.scopes ? { scopes: instance.scopes } : {}),
          }),
          expect: [deliveryExpectation(delivery, 1)],
        });
        break;
      }
      case 'PLUGIN_UNINSTALLED': {
        const instance = data.instance as { id: string; name: string };
        const step = instances.get(instance.id);
        if (!step) {
          notes.push(
            `left out the uninstall of ${instance.name} (${instance.id}): it was installed before the recording`,
          );
          break;
        }
        steps.push({
          uninstall: { instance: `\${${step}.id}` },
          expect: [deliveryExpectation(delivery, 1)],
        });
        break;
      }
    }
  }
  const scenario = {
    ...(options.schema ? { $schema: options.schema } : {}),
    name: options.name,
    description: `Recorded by plugsmith scenario record on ${new Date().toISOString().slice(0, 10)}${options.since ? ` (events since ${options.since})` : ''}`,
    steps,
  };
  return { scenario, notes, steps: steps.length };
}
