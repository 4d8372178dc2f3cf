import {
  collect,
  isApiError,
  paginate,
  type Delivery,
  type DeliveryListQuery,
  type Message,
  type PlatformClient,
} from '../client/index.js';
import { recordedInputs } from './record-secrets.js';
import { credentialShapesIn } from '../shared/plugin-output.js';
import { literalText, literalValue } from './references.js';
import { is2xx, ownAnswers } from './retries.js';

// `plugsmith scenario record`: what happened on the emulator, read back from the plugin's delivery
// log (each event tells a user's action) and the conversations (what the plugin answered), written
// as a scenario: the actions as steps, the plugin's effects as exact expectations, ids replaced by
// references to the steps that make them. Every text that came from the log (a message, a reply, a
// file's name and content, an install's inputs, ids) is written as a literal (`${` escaped as
// `$${`): a recorded `${env.SECRET}` replays as that text, never as the variable. An install's inputs
// that are credentials are the exception: written as `${env.NAME}`, never their value (record-secrets.ts).

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
  /** The steps whose delivery failed, was retried or is still pending: the file's description says so too. */
  failures: RecordedFailure[];
}

type RecordedStep = Record<string, unknown> & { expect?: Array<Record<string, unknown>> };

/** A recorded step whose delivery did not go through at once: what happened, as the file's description and the warning say it. */
export interface RecordedFailure {
  /** The step's index in `steps`. */
  step: number;
  deliveryId: string;
  type: string;
  /** What went wrong: the plugin's answers, the delivery's end state, the faults the emulator injected. */
  what: string;
}

/** The delivery answered 2xx the first time it reached the plugin, and never refused. */
function answeredAtOnce(delivery: Delivery): boolean {
  const answers = ownAnswers(delivery);
  return answers.length > 0 && answers.every((a) => is2xx(a.responseStatus));
}

function deliveryExpectation(delivery: Delivery, count: number): Record<string, unknown> {
  const first = ownAnswers(delivery)[0]?.responseStatus ?? null;
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

/** One attempt's answer in a few words: `500`, `no answer (connect ECONNREFUSED …)`. */
function answerOf(attempt: Delivery['attempts'][number]): string {
  if (attempt.responseStatus !== null) return String(attempt.responseStatus);
  const error = attempt.error?.replace(/\s+/g, ' ').trim();
  return error
    ? `no answer (${error.length > 80 ? `${error.slice(0, 79)}…` : error})`
    : 'no answer';
}

/**
 * What went wrong with a delivery, or null when it went through at once: an attempt that was not a 2xx (or got no
 * answer), more than one attempt, or a delivery that is still pending or failed.
 */
function failureOf(delivery: Delivery): string | null {
  const attempts = delivery.attempts;
  const refused = attempts.some((a) => !is2xx(a.responseStatus));
  if (delivery.status === 'delivered' && attempts.length === 1 && !refused) return null;
  const parts: string[] = [];
  if (attempts.length === 0) parts.push('no attempt reached the plugin');
  else
    parts.push(
      `${attempts.length === 1 ? 'its attempt got' : `its ${attempts.length} attempts got`} ${attempts.map(answerOf).join(', ')}`,
    );
  if (delivery.status === 'pending')
    parts.push(attempts.length ? 'it is still being retried' : 'it is still waiting to be sent');
  else if (delivery.status !== 'delivered')
    parts.push(`it ${delivery.status === 'exhausted' ? 'ran out of retries' : 'failed'}`);
  const faults = [...new Set((delivery.faults ?? []).map((f) => f.kind))];
  if (faults.length > 0) parts.push(`the emulator injected faults: ${faults.join(', ')}`);
  return parts.join('; ');
}

/** The plugin's deliveries a recording reads, and what was left out of them. */
interface Journey {
  deliveries: Delivery[];
  /** Deliveries scenario runs made, by scenario name. */
  scenarioRuns: Map<string, number>;
}

/**
 * Every delivery of the plugin since `since`, oldest first, page after page (a cursor: deliveries
 * made while it reads come after it, never shift it). Scenario runs' deliveries, challenges and
 * redeliveries are left out as each page comes, and each event is kept once (an injected duplicate
 * or a resend is the same action), so nothing a run made can push the user's own actions out.
 */
async function readJourney(
  client: PlatformClient,
  pluginId: string,
  since: string | undefined,
): Promise<Journey> {
  const deliveries: Delivery[] = [];
  const scenarioRuns = new Map<string, number>();
  const seen = new Set<string>();
  const pages = paginate((query) => client.emulator.deliveries.list(query), {
    pluginId,
    since,
    limit: 100,
    cursor: '',
    sortBy: 'createdAt',
    sortOrder: 'asc',
  } satisfies DeliveryListQuery);
  for await (const delivery of pages) {
    if (delivery.scenario) {
      scenarioRuns.set(delivery.scenario, (scenarioRuns.get(delivery.scenario) ?? 0) + 1);
      continue;
    }
    if (delivery.type === 'WEBHOOK_CHALLENGE' || delivery.redeliveryOf) continue;
    if (seen.has(delivery.eventId)) continue;
    seen.add(delivery.eventId);
    deliveries.push(delivery);
  }
  return { deliveries, scenarioRuns };
}

/** Reads the plugin's deliveries since `since` and writes them as a scenario. */
export async function recordScenario(
  client: PlatformClient,
  options: RecordOptions,
): Promise<Recording> {
  const notes: string[] = [];
  const { deliveries, scenarioRuns } = await readJourney(client, options.pluginId, options.since);
  if (scenarioRuns.size > 0) {
    const total = [...scenarioRuns.values()].reduce((a, b) => a + b, 0);
    const names = [...scenarioRuns.keys()];
    notes.push(
      `left out ${total} deliver${total === 1 ? 'y' : 'ies'} of scenario runs (${names.slice(0, 5).join(', ')}${names.length > 5 ? `, and ${names.length - 5} more` : ''})`,
    );
  }

  const steps: RecordedStep[] = [];
  const conversations = new Map<string, string>();
  const messagesOf = new Map<string, Message[]>();
  const files = new Map<string, string>();
  const instances = new Map<string, string>();
  let counter = 0;
  const nextId = (prefix: string) => `${prefix}${++counter}`;

  const failures: RecordedFailure[] = [];
  /** The variables the credentials of installs' inputs are written as (the file's `env`). */
  const variables = new Set<string>();
  /** Deliveries of events that are no user's action a step can make, by kind. */
  const otherKinds = new Map<string, number>();
  for (const delivery of deliveries) {
    const before = steps.length;
    const data = (delivery.event as { data?: Record<string, unknown> }).data ?? {};
    switch (delivery.type) {
      case 'AGENT_MESSAGE_RECEIVED': {
        const conversationId = String(data.conversationId);
        const message = data.message as { id: string; content: string };
        let messages = messagesOf.get(conversationId);
        if (!messages) {
          // Every message of the conversation, page after page: a reply after the 100th is one too.
          const read = await collect(
            (query) => client.messaging.messages.list(conversationId, query),
            { limit: 100 },
          ).catch((error: unknown) => {
            if (isApiError(error) && error.status === 404) return null;
            throw error;
          });
          if (!read) {
            notes.push(
              `left out a message (delivery ${delivery.id}): its conversation ${conversationId} is not on the emulator (an event sent by hand, with plugsmith trigger?)`,
            );
            break;
          }
          messages = read;
          messagesOf.set(conversationId, messages);
        }
        if (!conversations.has(conversationId)) {
          const id = nextId('conv');
          conversations.set(conversationId, id);
          steps.push({ id, conversation: { character: literalText(String(data.characterId)) } });
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
        const given =
          instance.inputs && Object.keys(instance.inputs).length
            ? recordedInputs(instance.name, instance.inputs, variables)
            : null;
        for (const credential of given?.credentials ?? [])
          notes.push(
            `the install ${instance.name}'s ${credential.path} looks like a credential: written as \${env.${credential.name}}, never its value; to replay, set ${credential.name} and pass --allow-env ${credential.name}`,
          );
        steps.push({
          id,
          install: {
            ...literalValue({
              on: instance.entityType.toLowerCase(),
              id: instance.entityId,
              name: instance.name,
            }),
            ...(given ? { inputs: given.inputs } : {}),
            ...literalValue({
              ...(instance.events ? { events: instance.events } : {}),
              ...(instance.scopes ? { scopes: instance.scopes } : {}),
            }),
          },
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
      default:
        otherKinds.set(delivery.type, (otherKinds.get(delivery.type) ?? 0) + 1);
    }
    const what = steps.length > before ? failureOf(delivery) : null;
    if (what)
      failures.push({ step: steps.length - 1, deliveryId: delivery.id, type: delivery.type, what });
  }
  for (const [kind, count] of otherKinds)
    notes.push(
      `left out ${count} ${kind} deliver${count === 1 ? 'y' : 'ies'}: record writes messages, files, installs and uninstalls; a trigger step sends any event`,
    );
  // A message or payload is written as it was sent: a credential typed into a chat would be committed with the file.
  const credentials = credentialShapesIn(JSON.stringify(steps));
  if (credentials.length > 0)
    notes.push(
      `the recording holds ${credentials.length} text${credentials.length === 1 ? '' : 's'} shaped like a credential (${[...new Set(credentials)].join(', ')}): messages and payloads are written as they were sent, so check the file and put a made-up value in each before you commit it`,
    );
  const recorded = `Recorded by plugsmith scenario record on ${new Date().toISOString().slice(0, 10)}${options.since ? ` (events since ${options.since})` : ''}`;
  const scenario = {
    ...(options.schema ? { $schema: options.schema } : {}),
    name: options.name,
    description: failures.length ? `${recorded}. WARNING: ${failureWarning(failures)}` : recorded,
    ...(variables.size ? { env: [...variables] } : {}),
    steps,
  };
  return { scenario, notes, steps: steps.length, failures };
}

/** How many failures the warning names one by one: the rest are counted. */
const FAILURES_SHOWN = 10;

/** The failures of a recording as one paragraph, for the file's description (and the CLI's warning). */
export function failureWarning(failures: RecordedFailure[]): string {
  const shown = failures.slice(0, FAILURES_SHOWN);
  const more = failures.length - shown.length;
  const each = `${shown
    .map((f) => `steps[${f.step}] (${f.type}, delivery ${f.deliveryId}): ${f.what}`)
    .join(
      '. ',
    )}${more > 0 ? `. And ${more} more step${more === 1 ? '' : 's'} (record --json and MCP record_scenario list every one as failures)` : ''}`;
  return `the recorded journey had ${failures.length === 1 ? 'a failure' : `${failures.length} failures`}, and this scenario expects what happened, not what should: ${each}. Check each of these steps' delivery expectation (a recorded status 500 expects the plugin to fail again) and set it to what the plugin should do ("status": "2xx") before trusting a pass.`;
}
