import type { Dispatcher } from 'undici';
import { createAgent, request } from '#shared/http/undici';
import { ReplyEngineError, abortedError } from './errors.js';
import { SseParser } from './sse.js';
import type { ReplyEngine, ReplyRequest } from './types.js';

/** Where an OpenAI-compatible chat-completions backend is (Ollama, LM Studio, vLLM, llama.cpp, OpenAI). */
export interface OpenAiEngineOptions {
  /** e.g. `http://127.0.0.1:11434/v1`; `/chat/completions` is appended. */
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** Longest silence allowed before the answer and inside the stream (undici's coarse clock: up to a second late). */
  timeoutMs?: number;
}

/** Generous, because a local backend may load the model before its first token. */
export const DEFAULT_LLM_TIMEOUT_MS = 120_000;

/** One message of a chat-completions request. */
type ChatCompletionMessage = { role: 'system' | 'user' | 'assistant'; content: string };

const SNIPPET_BYTES = 2048;
/** One Agent for every engine's requests. */
let agent: Dispatcher | undefined;

/** The messages sent for a reply: the persona (or "You are {name}.") as system prompt, the history, the new message. */
export function chatCompletionMessages(req: ReplyRequest): ChatCompletionMessage[] {
  const { character } = req;
  const persona =
    typeof character.persona === 'string' && character.persona.trim() !== ''
      ? character.persona
      : `You are ${character.name}.`;
  return [
    { role: 'system', content: persona },
    ...req.history.map(
      (turn): ChatCompletionMessage => ({
        role: turn.sender === 'USER' ? 'user' : 'assistant',
        content: turn.content,
      }),
    ),
    { role: 'user', content: req.userMessage },
  ];
}

/** Streams replies from `POST {baseUrl}/chat/completions`; every failure ends the reply with a ReplyEngineError naming the backend. */
export function createOpenAiEngine(options: OpenAiEngineOptions): ReplyEngine {
  const endpoint = chatCompletionsUrl(options.baseUrl);
  const timeoutMs = options.timeoutMs ?? DEFAULT_LLM_TIMEOUT_MS;
  return { reply: (req) => streamCompletion({ ...options, timeoutMs }, endpoint, req) };
}

function chatCompletionsUrl(baseUrl: string): string {
  const protocol = URL.canParse(baseUrl) ? new URL(baseUrl).protocol : null;
  if (protocol !== 'http:' && protocol !== 'https:') {
    throw new ReplyEngineError(
      'NOT_CONFIGURED',
      `the LLM base URL "${baseUrl}" is not an http(s) URL; give --llm-base-url like http://127.0.0.1:11434/v1`,
    );
  }
  const trimmed = baseUrl.replace(/\/+$/, '');
  return trimmed.endsWith('/chat/completions') ? trimmed : `${trimmed}/chat/completions`;
}

async function* streamCompletion(
  o: OpenAiEngineOptions & { timeoutMs: number },
  endpoint: string,
  req: ReplyRequest,
): AsyncGenerator<string> {
  const { signal } = req;
  const where = `the LLM backend at ${o.baseUrl}`;
  if (signal?.aborted) throw abortedError(signal);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'text/event-stream',
  };
  if (o.apiKey) headers.authorization = `Bearer ${o.apiKey}`;

  let response: Awaited<ReturnType<typeof request>>;
  try {
    agent ??= createAgent();
    response = await request(endpoint, {
      method: 'POST',
      headers,
      body: JSON.stringify({ model: o.model, messages: chatCompletionMessages(req), stream: true }),
      signal,
      dispatcher: agent,
      headersTimeout: o.timeoutMs,
      bodyTimeout: o.timeoutMs,
    });
  } catch (error) {
    throw requestFailure(error, where, o.timeoutMs, signal);
  }

  const { statusCode, body } = response;
  try {
    if (statusCode < 200 || statusCode > 299) {
      const detail = errorDetail(await readSnippet(body).catch(() => ''));
      throw new ReplyEngineError(
        'HTTP_STATUS',
        `${where} answered ${statusCode}${detail ? `: ${detail}` : ''}; ${statusHint(statusCode, o.model)}`,
        { status: statusCode },
      );
    }
    const contentType = String(response.headers['content-type'] ?? '').toLowerCase();
    if (contentType.startsWith('application/json')) {
      // A backend that ignores `stream: true` still answers; its whole reply is one packet.
      const content = completionContent(await body.text(), where);
      if (content !== '') yield content;
      return;
    }
    if (contentType !== '' && !contentType.startsWith('text/event-stream')) {
      throw new ReplyEngineError(
        'BAD_STREAM',
        `${where} answered with ${contentType} instead of an SSE stream (text/event-stream); check --llm-base-url (an OpenAI-compatible base URL usually ends in /v1)`,
      );
    }

    const parser = new SseParser();
    const decoder = new TextDecoder();
    let finished = false;
    const read = function* (events: string[]): Generator<string, boolean> {
      for (const data of events) {
        if (data === '[DONE]') return true;
        const chunk = parseChunk(data, where);
        if (chunk.content !== '') yield chunk.content;
        finished ||= chunk.finished;
      }
      return false;
    };
    for await (const bytes of body) {
      if (yield* read(parser.push(decoder.decode(bytes as Buffer, { stream: true })))) return;
    }
    if (yield* read(parser.push(decoder.decode()).concat(parser.end()))) return;
    // Some backends close after the last chunk's finish_reason without `[DONE]`: that reply is whole.
    if (!finished)
      throw new ReplyEngineError(
        'DISCONNECTED',
        `${where} closed the stream before the reply was complete (no [DONE]); check the backend's logs`,
      );
  } catch (error) {
    if (error instanceof ReplyEngineError) throw error;
    throw streamFailure(error, where, o.timeoutMs, signal);
  } finally {
    // Ends the request when the reply stops early; the abort error undici's body then emits has no other listener.
    if (!body.destroyed) body.on('error', () => {}).destroy();
  }
}

/** Reads one `data:` payload of the stream: its content delta and whether a choice finished. */
function parseChunk(data: string, where: string): { content: string; finished: boolean } {
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    throw new ReplyEngineError(
      'BAD_STREAM',
      `${where} sent a stream chunk that is not JSON: ${snippet(data)}; is it an OpenAI-compatible endpoint?`,
    );
  }
  if (typeof json !== 'object' || json === null) {
    throw new ReplyEngineError(
      'BAD_STREAM',
      `${where} sent a stream chunk that is not an object: ${snippet(data)}`,
    );
  }
  const chunk = json as { error?: unknown; choices?: unknown };
  if (chunk.error !== undefined) {
    throw new ReplyEngineError(
      'BACKEND_ERROR',
      `${where} reported an error in the middle of the reply: ${errorDetail(JSON.stringify(chunk)) || snippet(data)}`,
    );
  }
  if (!Array.isArray(chunk.choices)) {
    throw new ReplyEngineError(
      'BAD_STREAM',
      `${where} sent a stream chunk without "choices": ${snippet(data)}`,
    );
  }
  const choice = chunk.choices[0] as
    | { delta?: { content?: unknown }; finish_reason?: unknown }
    | undefined;
  const content = choice?.delta?.content;
  if (content !== undefined && content !== null && typeof content !== 'string') {
    throw new ReplyEngineError(
      'BAD_STREAM',
      `${where} sent a stream chunk whose choices[0].delta.content is not text: ${snippet(data)}`,
    );
  }
  return { content: content ?? '', finished: choice?.finish_reason != null };
}

function completionContent(text: string, where: string): string {
  try {
    const content = (JSON.parse(text) as { choices?: Array<{ message?: { content?: unknown } }> })
      .choices?.[0]?.message?.content;
    if (typeof content === 'string') return content;
  } catch {
    // reported below
  }
  throw new ReplyEngineError(
    'BAD_STREAM',
    `${where} answered JSON that is not a chat completion: ${snippet(text)}`,
  );
}

async function readSnippet(body: AsyncIterable<unknown>): Promise<string> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const bytes of body) {
    parts.push(bytes as Buffer);
    size += (bytes as Buffer).length;
    if (size >= SNIPPET_BYTES) break;
  }
  return Buffer.concat(parts).subarray(0, SNIPPET_BYTES).toString('utf8');
}

/** The backend's own error message when its body is `{ error: { message } }` or `{ error: "…" }`, else the body's start. */
function errorDetail(body: string): string {
  try {
    const error = (JSON.parse(body) as { error?: unknown }).error;
    if (typeof error === 'string') return snippet(error);
    const message = (error as { message?: unknown } | undefined)?.message;
    if (typeof message === 'string') return snippet(message);
  } catch {
    // not JSON: show the text itself
  }
  return snippet(body);
}

function statusHint(status: number, model: string): string {
  if (status === 401 || status === 403)
    return 'check the API key the emulator gives the LLM backend';
  if (status === 404)
    return `check --llm-base-url (it usually ends in /v1) and that the backend has the model "${model}"`;
  return "check --llm-base-url and the backend's logs";
}

function snippet(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 300 ? `${flat.slice(0, 300)}…` : flat;
}

function errorCode(error: unknown): string | undefined {
  const e = error as { code?: unknown; errors?: Array<{ code?: unknown }> } | null;
  const code = e?.code ?? e?.errors?.[0]?.code;
  return typeof code === 'string' ? code : undefined;
}

function requestFailure(
  error: unknown,
  where: string,
  timeoutMs: number,
  signal?: AbortSignal,
): ReplyEngineError {
  if (signal?.aborted) return abortedError(signal);
  const code = errorCode(error);
  if (code === 'UND_ERR_HEADERS_TIMEOUT') {
    return new ReplyEngineError(
      'TIMEOUT',
      `${where} did not answer within ${timeoutMs} ms; is the model still loading? check --llm-base-url`,
      { cause: error },
    );
  }
  const reason = code ?? (error as Error)?.message ?? String(error);
  return new ReplyEngineError(
    'UNREACHABLE',
    `cannot reach ${where} (${reason}); is it running? check --llm-base-url`,
    { cause: error },
  );
}

function streamFailure(
  error: unknown,
  where: string,
  timeoutMs: number,
  signal?: AbortSignal,
): ReplyEngineError {
  if (signal?.aborted) return abortedError(signal);
  if (errorCode(error) === 'UND_ERR_BODY_TIMEOUT') {
    return new ReplyEngineError(
      'TIMEOUT',
      `${where} sent nothing for ${timeoutMs} ms in the middle of the reply; check the backend's logs`,
      { cause: error },
    );
  }
  const reason = (error as Error)?.message ?? String(error);
  return new ReplyEngineError(
    'DISCONNECTED',
    `the connection to ${where} dropped in the middle of the reply (${reason}); check the backend's logs`,
    { cause: error },
  );
}
