import { mkdtemp, rm } from 'node:fs/promises';
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { startEmulator, type Emulator, type EmulatorOptions } from '../../emulator/index.js';
import { call, type ApiResponse, type CallOptions } from './http.js';
import { own } from './scope.js';

export { adminCall, call, queryString, type ApiResponse, type CallOptions } from './http.js';
export { own, ownForFile } from './scope.js';
export { until, type UntilOptions } from './until.js';

// The test kit: what a test starts, each piece closed by the kit itself. Called inside a test, a
// piece lives until that test finishes (onTestFinished); called outside one (in beforeAll or at the
// top of a file), until the file's tests are done (afterAll). Servers listen on free loopback ports.

/** A temporary folder, removed by the kit. */
export async function tempDir(prefix = 'plugsmith-test-'): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  own(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * The environment of a person's fresh machine for a spawned CLI: a temporary HOME (its config dir inside), and no
 * platform, profile, emulator or PORT inherited from the shell that runs the tests.
 */
export async function freshMachine(prefix = 'plugsmith-home-'): Promise<Record<string, string>> {
  const home = await tempDir(prefix);
  return {
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    PLUGSMITH_CONFIG_DIR: join(home, '.config', 'plugsmith'),
    PLUGSMITH_BASE_URL: '',
    PLUGSMITH_MESSAGING_URL: '',
    PLUGSMITH_TOKEN: '',
    PLUGSMITH_API_KEY: '',
    PLUGSMITH_PROFILE: '',
    PLUGSMITH_ADMIN_TOKEN: '',
    PLUGSMITH_EMULATOR: '',
    PORT: '',
  };
}

/** An emulator in memory (unless given a dataDir) on free ports, closed by the kit. */
export async function emulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const emu = await startEmulator(options);
  own(() => emu.close());
  return emu;
}

/** HTTP calls to one server, with default credentials; every call is a real request (undici). */
export interface Api {
  call(method: string, path: string, options?: CallOptions): Promise<ApiResponse>;
  get(path: string, options?: CallOptions): Promise<ApiResponse>;
  post(path: string, body?: unknown, options?: CallOptions): Promise<ApiResponse>;
  put(path: string, body?: unknown, options?: CallOptions): Promise<ApiResponse>;
  patch(path: string, body?: unknown, options?: CallOptions): Promise<ApiResponse>;
  delete(path: string, options?: CallOptions): Promise<ApiResponse>;
  /** For setting up: the `data` of a 2xx answer; any other answer throws, with its status and body. */
  data<T = any>(method: string, path: string, body?: unknown, options?: CallOptions): Promise<T>;
}

function client(baseUrl: string, defaults: CallOptions): Api {
  const send = (method: string, path: string, options: CallOptions = {}) =>
    call(baseUrl, method, path, {
      ...defaults,
      ...options,
      headers: { ...defaults.headers, ...options.headers },
    });
  const withBody =
    (method: string) =>
    (path: string, body?: unknown, options: CallOptions = {}) =>
      send(method, path, body === undefined ? options : { ...options, body });
  const data = async (method: string, path: string, body?: unknown, options: CallOptions = {}) => {
    const answer = await send(method, path, body === undefined ? options : { ...options, body });
    if (answer.status < 200 || answer.status >= 300)
      throw new Error(
        `${method} ${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`,
      );
    return answer.body?.data;
  };
  return {
    call: send,
    get: (path, options) => send('GET', path, options),
    post: withBody('POST'),
    put: withBody('PUT'),
    patch: withBody('PATCH'),
    delete: (path, options) => send('DELETE', path, options),
    data,
  };
}

/**
 * Calls to an emulator's management API (or any base URL) as `token` (default: the emulator's
 * seeded OWNER token; `null` for none). `api(emu.messagingUrl, { token: 'Bearer psk_…' })` calls
 * the messaging API.
 */
export function api(
  target: Pick<Emulator, 'url' | 'token'> | string,
  options: { token?: string | null; headers?: Record<string, string> } = {},
): Api {
  const baseUrl = typeof target === 'string' ? target : target.url;
  const token =
    options.token === null
      ? undefined
      : (options.token ?? (typeof target === 'string' ? undefined : (target.token ?? undefined)));
  return client(baseUrl, { token, headers: options.headers });
}

/** Calls to an emulator's admin API (`/_emulator/…`) with its admin credential. */
export function admin(emu: Pick<Emulator, 'url' | 'adminHeaders'>): Api {
  return client(emu.url, { headers: emu.adminHeaders });
}

/** A request a receiver got. */
export interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The body parsed as JSON, or undefined. */
  json: any;
}

/** How a receiver answers one request; the default answers a webhook challenge, and 200 `{ ok: true }` to the rest. */
export type Answer = (
  request: Received,
  res: ServerResponse,
  index: number,
) => void | Promise<void>;

/** A plugin's webhook (or any HTTP peer) that records what it gets. */
export interface Receiver {
  /** Base URL (`http://127.0.0.1:<port>`). */
  url: string;
  /** `url` + `/webhook`, where a plugin's webhook usually is. */
  webhookUrl: string;
  received: Received[];
  /** Resolves with the first request (already received or still to come) that `match` accepts. */
  next(match?: (request: Received) => boolean, timeoutMs?: number): Promise<Received>;
  close(): Promise<void>;
}

/** Answers a webhook challenge with its challenge, and anything else with 200 `{ ok: true }`. */
export const answerChallenge: Answer = (request, res) => {
  const challenge =
    request.json?.type === 'WEBHOOK_CHALLENGE' ? request.json.data?.challenge : undefined;
  res
    .writeHead(200, { 'content-type': 'application/json' })
    .end(JSON.stringify(challenge !== undefined ? { challenge } : { ok: true }));
};

/** Answers every request with `status` (500 by default) and a short text. */
export const refuse =
  (status = 500): Answer =>
  (_request, res) =>
    void res.writeHead(status).end('refused');

/** Answers with a JSON body. */
export function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res
    .writeHead(status, { 'content-type': 'application/json', ...headers })
    .end(JSON.stringify(body));
}

/** Answers with the success envelope. */
export function ok(res: ServerResponse, data: unknown, meta?: unknown): void {
  json(res, 200, meta === undefined ? { ok: true, data } : { ok: true, data, meta });
}

/** A node:http server on 127.0.0.1:0 serving `listener` (which reads the request itself), closed by the kit; returns its base URL. */
export async function server(
  listener: RequestListener,
): Promise<{ url: string; server: Server; close(): Promise<void> }> {
  const http = createServer(listener);
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const close = () =>
    new Promise<void>((resolve) => {
      http.closeAllConnections();
      http.close(() => resolve());
    });
  own(close);
  return { url: `http://127.0.0.1:${(http.address() as AddressInfo).port}`, server: http, close };
}

/** A loopback URL where nothing listens (a port free a moment ago): connections are refused. */
export async function deadUrl(): Promise<string> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return `http://127.0.0.1:${port}`;
}

/** A real node:http server on 127.0.0.1:0 that records every request and answers with `answer`; closed by the kit. */
export async function receiver(answer: Answer = answerChallenge): Promise<Receiver> {
  const received: Received[] = [];
  const waiting = new Set<() => void>();
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let parsed: unknown;
      try {
        parsed = body === '' ? undefined : JSON.parse(body);
      } catch {
        parsed = undefined;
      }
      const request: Received = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body,
        json: parsed,
      };
      received.push(request);
      for (const wake of waiting) wake();
      Promise.resolve(answer(request, res, received.length - 1)).catch((error) => {
        if (!res.headersSent) res.writeHead(599);
        res.end(String(error));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  own(close);
  return {
    url,
    webhookUrl: `${url}/webhook`,
    received,
    close,
    next: (match = () => true, timeoutMs = 30_000) =>
      new Promise((resolve, reject) => {
        const check = (): boolean => {
          const found = received.find(match);
          if (!found) return false;
          waiting.delete(wake);
          clearTimeout(timer);
          resolve(found);
          return true;
        };
        const wake = () => void check();
        const timer = setTimeout(() => {
          waiting.delete(wake);
          reject(
            new Error(
              `no matching request within ${timeoutMs} ms; received: ${received.map((r) => `${r.method} ${r.url}`).join(', ') || 'none'}`,
            ),
          );
        }, timeoutMs);
        if (!check()) waiting.add(wake);
      }),
  };
}

/** What a CLI run printed and how it ended. */
export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * The CLI in this process, as src/cli.ts runs it (`main()`, the exit code from the error it throws),
 * with a config dir of its own: for tests of what a command does rather than of the process. The
 * spawned CLI is `spawnedCli()` in ./spawn.ts (the process tier).
 */
export interface Cli {
  configDir: string;
  /** PLUGSMITH_CONFIG_DIR and what `cli()` was given. */
  env: Record<string, string>;
  /** Runs `plugsmith <args>`: the environment (and `cwd`) is the process's for the duration, shared only with runs that have the same. */
  run(
    args: string[],
    options?: { env?: Record<string, string>; input?: string; cwd?: string },
  ): Promise<CliResult>;
  /** Runs with --json and parses stdout; throws with stderr when the exit code is not 0. */
  json<T = any>(args: string[], options?: { env?: Record<string, string> }): Promise<T>;
}

/** What in-process runs share: the environment and folder set for them, until the last of them ends. */
interface ProcessLease {
  key: string;
  holders: number;
  ended: Promise<void>;
  end(): void;
}

let lease: ProcessLease | undefined;
let runsAlone = 0;

/**
 * Sets `env` and `cwd` for a run, or joins the runs that have them set already: runs with the same
 * environment and folder overlap, as spawned ones would; a run that needs others waits until those
 * end. The CLI keeps `--emulator` as process state, so a run given it shares with no other.
 */
async function processStateFor(
  args: string[],
  env: Record<string, string>,
  cwd: string | undefined,
): Promise<() => void> {
  const alone = args.some((a) => a === '--emulator' || a.startsWith('--emulator='));
  const key = alone
    ? `alone ${++runsAlone}`
    : JSON.stringify([Object.entries(env).sort(), cwd ?? null]);
  for (;;) {
    if (lease && lease.key !== key) {
      await lease.ended;
      continue;
    }
    if (!lease) {
      const home = process.cwd();
      // First, as it may throw (no such folder): then nothing has been changed yet.
      if (cwd) process.chdir(cwd);
      const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]));
      Object.assign(process.env, env);
      let ended!: () => void;
      const current: ProcessLease = {
        key,
        holders: 0,
        ended: new Promise((resolve) => (ended = resolve)),
        end: () => {
          process.chdir(home);
          for (const [k, v] of Object.entries(saved)) {
            if (v === undefined) delete process.env[k];
            else process.env[k] = v;
          }
          lease = undefined;
          ended();
        },
      };
      lease = current;
    }
    const held = lease;
    held.holders++;
    return () => {
      if (--held.holders === 0) held.end();
    };
  }
}

/** A sink that keeps what is written to it. */
function sink(): PassThrough & { text(): string } {
  const stream = new PassThrough() as PassThrough & { text(): string };
  let text = '';
  stream.on('data', (d) => (text += d));
  stream.text = () => text;
  return stream;
}

async function runInProcess(
  args: string[],
  env: Record<string, string>,
  input: string,
  cwd?: string,
): Promise<CliResult> {
  const [{ main }, { exitCodeOf, formatError }, { ExitWith, UserError }, { terminalSafeIo }] =
    await Promise.all([
      import('../../src/main.js'),
      import('../../src/ui/errors.js'),
      import('../../src/errors.js'),
      import('../../src/ui/terminal-text.js'),
    ]);
  const release = await processStateFor(args, { CI: 'true', NO_COLOR: '1', ...env }, cwd);
  const stdout = sink();
  const stderr = sink();
  // What src/cli.ts does around main(): the same Io filter (control characters from the platform's
  // strings escaped), the same exit codes, the same error lines.
  const io = terminalSafeIo(
    { stdout, stderr, stdin: Readable.from([input]), interactive: false },
    { json: args.includes('--json') },
  );
  let code = 0;
  try {
    await main(args, io);
  } catch (error) {
    if (error instanceof ExitWith) code = error.exitCode;
    else {
      io.stderr.write(formatError(error, { verbose: args.includes('--verbose') }) + '\n');
      code = error instanceof UserError ? error.exitCode : exitCodeOf(error);
    }
  } finally {
    release();
  }
  // Let the sinks deliver what was written last.
  await new Promise((resolve) => setImmediate(resolve));
  return { code, signal: null, stdout: stdout.text(), stderr: stderr.text() };
}

/**
 * Runs `plugsmith <args>` in this process with `env` on top of the process's own (runCli's
 * signature, test/kit/cli-process.ts, without the spawn). Runs with the same `env` and `cwd`
 * overlap; others wait their turn.
 */
export function runCliInProcess(
  args: string[],
  options: { env?: Record<string, string>; input?: string; cwd?: string } = {},
): Promise<CliResult> {
  return runInProcess(args, options.env ?? {}, options.input ?? '', options.cwd);
}

/** The CLI in this process pointed at what `env` says (e.g. `emulatorEnv(emu)`), with a fresh config dir. */
export async function cli(env: Record<string, string> = {}): Promise<Cli> {
  const configDir = await tempDir('plugsmith-cfg-');
  const base = { PLUGSMITH_CONFIG_DIR: configDir, ...env };
  const self: Cli = {
    configDir,
    env: base,
    run: (args, options = {}) =>
      runCliInProcess(args, { ...options, env: { ...base, ...options.env } }),
    json: async (args, options = {}) => {
      const result = await self.run([...args, '--json'], options);
      if (result.code !== 0)
        throw new Error(`plugsmith ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
      return JSON.parse(result.stdout);
    },
  };
  return self;
}

/** The environment that points the CLI at `emu` as its seeded OWNER, with its messaging key and admin token. */
export function emulatorEnv(emu: Emulator, token = emu.token): Record<string, string> {
  return {
    PLUGSMITH_BASE_URL: emu.url,
    PLUGSMITH_MESSAGING_URL: emu.messagingUrl,
    ...(token ? { PLUGSMITH_TOKEN: token } : {}),
    ...(emu.apiKey ? { PLUGSMITH_API_KEY: emu.apiKey } : {}),
    PLUGSMITH_ADMIN_TOKEN: emu.adminToken,
  };
}
