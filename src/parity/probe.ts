import { randomBytes } from 'node:crypto';
import { text } from 'node:stream/consumers';
import { request } from '../shared/http/request.js';
import { SseParser, type ServerSentEvent } from '../shared/http/sse.js';
import type { Exchange, StableValue } from './format.js';
import { JOURNEY, STREAM_PACKETS, type JourneyStep, type Names } from './journey.js';
import { envelopeOf, jsonType, shapeOf, valueAt } from './shape.js';

// Runs the probe journey against one target and turns every answer into an exchange: shapes, the
// values the journey marks stable, nothing else. Ids, tokens, names and text stay in memory only.

/** Where the journey runs, and as whom. */
export interface ProbeTarget {
  baseUrl: string;
  messagingUrl?: string;
  token: string;
  apiKey?: string;
  orgId: string;
  /** The character the messaging steps talk to; without one they are skipped. */
  characterId?: string;
  /** An org the user is not a member of, for the 403 step; without one it is skipped. */
  otherOrgId?: string;
}

/** What a run of the journey gives. */
export interface ProbeResult {
  exchanges: Exchange[];
  /** What the run created and then removed, or failed to remove (`removed: false`), by kind and name. */
  created: Created[];
  /** Every id, credential and name the run saw: a recording holding one of them is refused. */
  secrets: Set<string>;
}

export interface ProbeOptions {
  /** Per-request timeout (default 30 s). */
  timeoutMs?: number;
  /** How long to wait for the character's reply (default 30 s). */
  replyTimeoutMs?: number;
  /** Progress lines (stderr). */
  log?: (line: string) => void;
}

const INVALID_CREDENTIAL = 'plugsmith-parity-invalid-credential';
const ID_KEYS =
  /^(id|.*Id|.*Ids|token|accessToken|apiKey|webhookSecret|secret|signedUrl|url|nextCursor|cursor)$/;
/** Keys whose string values are text a person or a character wrote. */
const TEXT_KEYS = /^(content|contentDelta|name|description|title|errorMessage|fileName|folder)$/;

interface Answer {
  status: number | null;
  body: unknown;
  error?: string;
}

/** Runs the whole journey; never throws for an answer, only for a programming error. */
export async function runProbe(
  target: ProbeTarget,
  options: ProbeOptions = {},
): Promise<ProbeResult> {
  const runTag = `plugsmith-parity-${randomBytes(4).toString('hex')}`;
  const names: Names = {
    orgId: target.orgId,
    runTag,
    runName: runTag,
    missingId: `plugsmith-parity-missing-${randomBytes(4).toString('hex')}`,
  };
  if (target.characterId) names.characterId = target.characterId;
  if (target.otherOrgId) names.otherOrgId = target.otherOrgId;
  if (target.apiKey && target.messagingUrl) names.apiKey = target.apiKey;
  const secrets = new Set<string>([target.token, runTag, names.missingId, target.orgId]);
  if (target.apiKey) secrets.add(target.apiKey);
  if (target.characterId) secrets.add(target.characterId);
  if (target.otherOrgId) secrets.add(target.otherOrgId);

  const timeoutMs = options.timeoutMs ?? 30_000;
  const log = options.log ?? (() => undefined);
  const exchanges: Exchange[] = [];
  const created: Created[] = [];
  const ownIds = new Set<string>();
  /** The plugins created, by the name their id is kept under. */
  const plugins = new Map<string, Created>();
  let stream: OpenStream | undefined;

  const send = async (step: JourneyStep, path: string): Promise<Answer> => {
    const base = step.api === 'management' ? target.baseUrl : target.messagingUrl;
    const headers: Record<string, string> = {
      accept: 'application/json',
      'user-agent': 'plugsmith-parity',
    };
    const secret = step.api === 'management' ? target.token : target.apiKey;
    if (step.credential === 'user' || step.credential === 'api-key')
      headers.authorization = `Bearer ${secret}`;
    if (step.credential === 'invalid') headers.authorization = `Bearer ${INVALID_CREDENTIAL}`;
    const body = step.body ? JSON.stringify(step.body(names)) : undefined;
    if (body !== undefined) headers['content-type'] = 'application/json';
    try {
      const response = await request(joinUrl(base!, path), {
        method: step.method,
        headers,
        body,
        signal: AbortSignal.timeout(timeoutMs),
      });
      const raw = await text(response.body);
      return { status: response.statusCode, body: parseJson(raw) };
    } catch (error) {
      return { status: null, body: undefined, error: (error as Error).message };
    }
  };

  try {
    for (const step of JOURNEY) {
      const missing = (step.needs ?? []).filter((name) => names[name] === undefined);
      if (step.api === 'messaging' && (!target.messagingUrl || !target.apiKey))
        missing.push('messagingUrl and apiKey');
      if (missing.length > 0) {
        exchanges.push(skippedExchange(step, `needs ${missing.join(', ')}`));
        if (step.stream)
          exchanges.push(...packetExchanges(step, undefined, `needs ${missing.join(', ')}`));
        continue;
      }
      const path = fill(step.path, names);
      if (step.stream) {
        stream = await openStream(joinUrl(target.messagingUrl!, path), target.apiKey!, timeoutMs);
        exchanges.push(streamExchange(step, stream));
        continue;
      }
      log(`${step.method} ${step.path}`);
      const answer = await send(step, path);
      if (exchanges.length === 0 && answer.status === null)
        throw new ProbeUnreachableError(
          `${step.method} ${joinUrl(target.baseUrl, path)}`,
          answer.error ?? 'no answer',
        );
      collectSecrets(answer.body, secrets);
      const ok = answer.status !== null && answer.status >= 200 && answer.status < 300;
      if (ok && step.keep) {
        for (const [name, at] of Object.entries(step.keep)) {
          const value = pathValue(answer.body, at);
          if (typeof value === 'string' && value !== '') {
            names[name] = value;
            secrets.add(value);
            ownIds.add(value);
            if (/pluginId$/i.test(name)) {
              const entry: Created = { what: `plugin ${names.runName}`, removed: false };
              created.push(entry);
              plugins.set(name, entry);
            }
          }
        }
      }
      if (ok && step.step === 'uploads.generate-upload-url' && names.fileId)
        created.push({
          what: `file record ${names.runName}.txt (status FAILED)`,
          removed: false,
          why: 'the spec offers no way to delete file records',
        });
      if (ok && step.step === 'conversations.create' && names.conversationId)
        created.push({
          what: 'a conversation with the character, holding one message and its reply',
          removed: false,
          why: 'the spec offers no way to delete conversations',
        });
      exchanges.push(exchangeOf(step, answer, step.ownItemsOnly ? ownIds : undefined));
      if (step.awaitReply && ok) {
        const sentId = pathValue(answer.body, 'data.id');
        await awaitReply(
          send,
          fill('/conversations/:conversationId/messages', names),
          sentId,
          options.replyTimeoutMs ?? 30_000,
        );
      }
      if (step.awaitReply) {
        const events = stream ? await stream.close() : undefined;
        for (const event of events ?? []) collectSecrets(event.data, secrets);
        if (stream)
          exchanges.push(...packetExchanges(JOURNEY.find((s) => s.stream)!, events, undefined));
        stream = undefined;
      }
      if (step.step === 'plugins.delete' && isSuccess(answer)) {
        const entry = plugins.get('pluginId');
        if (entry) entry.removed = true;
      }
    }
  } finally {
    if (stream) await stream.close();
    await cleanUp(names, created, plugins, send);
  }
  return { exchanges, created, secrets };
}

/** Removes what the journey created and did not delete itself (a step failed, or a platform accepted what it should have refused). */
async function cleanUp(
  names: Names,
  created: Created[],
  plugins: Map<string, Created>,
  send: (step: JourneyStep, path: string) => Promise<Answer>,
): Promise<void> {
  const removal = (path: string): JourneyStep => ({
    step: 'clean-up',
    api: 'management',
    method: 'DELETE',
    path,
    credential: 'user',
    behaviours: [],
  });
  if (names.instanceId && names.repositoryId) {
    const answer = await send(
      removal(''),
      fill('/api/repositories/:repositoryId/data-providers/:instanceId', names),
    );
    created.push({
      what: `data provider ${names.runName} on a repository`,
      removed: isSuccess(answer) || answer.status === 404,
      why: describe(answer),
    });
  }
  for (const [name, entry] of plugins) {
    if (entry.removed) continue;
    const answer = await send(removal(''), `/api/plugins/${encodeURIComponent(names[name])}`);
    entry.removed = isSuccess(answer) || answer.status === 404;
    if (!entry.removed) entry.why = describe(answer);
  }
}

function isSuccess(answer: Answer): boolean {
  return answer.status !== null && answer.status >= 200 && answer.status < 300;
}

function describe(answer: Answer): string {
  if (answer.status === null) return answer.error ?? 'no answer';
  const error = (answer.body as { error?: { error?: unknown } } | undefined)?.error?.error;
  return `${answer.status}${typeof error === 'string' ? ` ${error}` : ''}`;
}

/** Polls the messages until one other than the sent message is complete (not streaming). */
async function awaitReply(
  send: (step: JourneyStep, path: string) => Promise<Answer>,
  path: string,
  sentId: unknown,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const list: JourneyStep = {
    step: 'await-reply',
    api: 'messaging',
    method: 'GET',
    path,
    credential: 'api-key',
    behaviours: [],
  };
  while (Date.now() < deadline) {
    const answer = await send(list, path);
    const messages = (answer.body as { data?: unknown } | undefined)?.data;
    if (
      Array.isArray(messages) &&
      messages.some(
        (m) =>
          m &&
          typeof m === 'object' &&
          (m as { id?: unknown }).id !== sentId &&
          (m as { isStreaming?: unknown }).isStreaming === false,
      )
    )
      return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function skippedExchange(step: JourneyStep, why: string): Exchange {
  return {
    step: step.step,
    method: step.method,
    pathTemplate: step.path,
    status: null,
    envelope: null,
    shape: {},
    errorType: null,
    skipped: why,
  };
}

function exchangeOf(step: JourneyStep, answer: Answer, ownIds: Set<string> | undefined): Exchange {
  if (answer.status === null) return skippedExchange(step, `no answer: ${answer.error}`);
  const pick = ownIds
    ? (path: string, item: unknown) =>
        path !== 'data[]' || ownIds.has(String((item as { id?: unknown } | null)?.id))
    : undefined;
  const exchange: Exchange = {
    step: step.step,
    method: step.method,
    pathTemplate: step.path,
    status: answer.status,
    envelope: envelopeOf(answer.body),
    shape: answer.body === undefined ? {} : shapeOf(answer.body, pick),
    errorType: errorTypeOf(answer.body),
  };
  const values = stableValues(answer.body, step.stable);
  if (values) exchange.values = values;
  return exchange;
}

function errorTypeOf(body: unknown): string | null {
  const error = (body as { ok?: unknown; error?: { error?: unknown } } | undefined)?.error;
  return (body as { ok?: unknown } | undefined)?.ok === false && typeof error?.error === 'string'
    ? error.error
    : null;
}

/** The values at the stable paths: primitives only (an object or array there is recorded by its type alone). */
function stableValues(
  body: unknown,
  paths: string[] | undefined,
): Record<string, StableValue> | undefined {
  if (!paths || body === undefined) return undefined;
  const values: Record<string, StableValue> = {};
  for (const path of paths) {
    const value = valueAt(body, path);
    if (value === undefined) continue;
    const type = jsonType(value);
    if (type === 'object' || type === 'array') continue;
    values[path] = value as StableValue;
  }
  return Object.keys(values).length > 0 ? values : undefined;
}

interface OpenStream {
  status: number | null;
  error?: string;
  contentType?: string;
  /** Stops reading and gives the events that arrived. */
  close(): Promise<ServerSentEvent[]>;
}

/** Opens the conversation's event stream and collects its events until closed. */
async function openStream(url: string, apiKey: string, timeoutMs: number): Promise<OpenStream> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const response = await request(url, {
      method: 'GET',
      headers: {
        accept: 'text/event-stream',
        authorization: `Bearer ${apiKey}`,
        'user-agent': 'plugsmith-parity',
      },
      signal: controller.signal,
    });
    clearTimeout(timer);
    const events: ServerSentEvent[] = [];
    const contentType = String(response.headers['content-type'] ?? '');
    const parser = new SseParser();
    const decoder = new TextDecoder();
    const done = (async () => {
      try {
        for await (const chunk of response.body)
          events.push(...parser.push(decoder.decode(chunk as Buffer, { stream: true })));
      } catch {
        // Closed by us.
      }
    })();
    return {
      status: response.statusCode,
      contentType,
      close: async () => {
        // The last packet may still be on its way when the reply shows as complete in the list.
        await new Promise((resolve) => setTimeout(resolve, 50));
        controller.abort();
        response.body.destroy();
        await done;
        return events;
      },
    };
  } catch (error) {
    clearTimeout(timer);
    return { status: null, error: (error as Error).message, close: async () => [] };
  }
}

function streamExchange(step: JourneyStep, stream: OpenStream): Exchange {
  if (stream.status === null) return skippedExchange(step, `no answer: ${stream.error}`);
  const isStream = stream.contentType?.startsWith('text/event-stream') ?? false;
  return {
    step: step.step,
    method: step.method,
    pathTemplate: step.path,
    status: stream.status,
    envelope: isStream ? 'event-stream' : 'other',
    shape: {},
    errorType: null,
  };
}

/** The first and last `CHARACTER_MESSAGE_SENT` packets of the reply, as shapes of `{ event, data }`. */
function packetExchanges(
  step: JourneyStep,
  events: ServerSentEvent[] | undefined,
  skipped: string | undefined,
): Exchange[] {
  const packets = (events ?? []).filter((e) => e.event !== 'message' || typeof e.data === 'object');
  const results: Exchange[] = [];
  for (const [which, packet] of [
    [STREAM_PACKETS.first, packets[0]],
    [STREAM_PACKETS.last, packets[packets.length - 1]],
  ] as const) {
    const base = { ...step, step: which };
    if (skipped !== undefined || !packet) {
      results.push(
        skippedExchange(
          base,
          skipped ?? 'no event arrived on the stream before the reply was complete',
        ),
      );
      continue;
    }
    const framed = { event: packet.event, data: packet.data };
    const stable =
      which === STREAM_PACKETS.last ? ['event', 'data.message.isStreaming'] : ['event'];
    results.push({
      step: which,
      method: step.method,
      pathTemplate: step.path,
      status: 200,
      envelope: 'event-stream',
      shape: shapeOf(framed),
      errorType: null,
      values: stableValues(framed, stable),
    });
  }
  return results;
}

/** One thing the run created: removed, or why not. */
export interface Created {
  what: string;
  removed: boolean;
  /** Why it was not removed (an answer, or that the platform offers no way). */
  why?: string;
}

/** The target did not answer the journey's first request: nothing was recorded. */
export class ProbeUnreachableError extends Error {
  constructor(
    readonly url: string,
    readonly reason: string,
  ) {
    super(`${url} did not answer: ${reason}`);
  }
}

/** Every id-like and text value of an answer, so that the recording can be checked free of them. */
function collectSecrets(value: unknown, secrets: Set<string>, key = ''): void {
  if (typeof value === 'string') {
    if ((ID_KEYS.test(key) || TEXT_KEYS.test(key)) && value.length >= 4) secrets.add(value);
    return;
  }
  if (Array.isArray(value)) {
    for (const item of value) collectSecrets(item, secrets, key);
    return;
  }
  if (value !== null && typeof value === 'object')
    for (const [childKey, child] of Object.entries(value as Record<string, unknown>))
      collectSecrets(child, secrets, childKey);
}

/** The value at `data.files[0].fileRecord.id`-style paths. */
function pathValue(body: unknown, path: string): unknown {
  let current = body;
  for (const part of path.split('.')) {
    const match = /^([^[]+)(?:\[(\d+)\])?$/.exec(part);
    if (!match || current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[match[1]];
    if (match[2] !== undefined)
      current = Array.isArray(current) ? current[Number(match[2])] : undefined;
  }
  return current;
}

/** The path with every `:name` replaced by its value, encoded. */
function fill(template: string, names: Names): string {
  return template.replace(/:([A-Za-z]+)/g, (whole, name: string) =>
    names[name] === undefined ? whole : encodeURIComponent(names[name]),
  );
}

function joinUrl(base: string, path: string): string {
  return base.replace(/\/+$/, '') + path;
}

function parseJson(raw: string): unknown {
  if (raw.trim() === '') return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

export { INVALID_CREDENTIAL };
