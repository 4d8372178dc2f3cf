import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ObjectStorage, S3Settings } from './uploads/storage/types.js';
import { openObjectStorage } from './uploads/storage/open.js';
import { storageSecret } from './uploads/storage/secret-file.js';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { Store } from './store/store.js';
import { defineCollections, type Db } from './model.js';
import { buildManagementApp, buildMessagingApp, type EmulatorServices } from './app.js';
import {
  defaultSeed,
  readSeedFile,
  seedCredentials,
  validateSeed,
  type Credentials,
  type Seed,
} from './seed.js';
import type { FaultSettings, Overview } from '#contract';
import { resetStore, seedStore } from './admin/store-service.js';
import { storeIdOf } from './store/store-id.js';
import { keepInternals } from './internals.js';
import { loadCredentials, saveCredentials } from './credentials-file.js';
import { WebhookDispatcher } from './webhooks/dispatcher.js';
import { PluginOutputLog } from './plugin-output/service.js';
import {
  presentDelivery,
  type DeliveryMatch,
  type DeliveryView,
} from './webhooks/delivery-service.js';
import { resolveDeliveryOptions, type DeliveryOptions } from './webhooks/options.js';
import { checkFaultSeed, parseFaultProfile, profileIsOn } from '#shared/fault-profile';
import { Messaging, type MessagingOptions } from './messaging/messaging.js';
import { checkStreamBufferLimits } from './messaging/conversation-streams.js';
import type { OpenAiEngineOptions } from './messaging/characters/index.js';
import { ADMIN_HEADER, newAdminToken } from './admin/guard.js';
import { ownAdminTarget } from './admin/self-target.js';
import { DashboardLogins } from './admin/dashboard-logins.js';
import { dashboardLink } from './dashboard/routes.js';
import type { WorkspaceCredentials } from './context.js';
import { contractCheckByDefault } from './openapi/contract-check.js';
import {
  checkConnectionBound,
  DEFAULT_CONNECTION_BOUND,
  type ConnectionBound,
} from './connection-bound.js';
import {
  DEFAULT_SLOW_BODY_BOUND,
  DEFAULT_UNAUTHENTICATED_BODY_BOUND,
  type SlowBodyBound,
  type UnauthenticatedBodyBound,
} from './slow-body.js';

export { SeedError, validateSeed, type Seed } from './seed.js';
export { StoreError } from './store/store.js';
export type { DeliveryMatch, DeliveryView } from './webhooks/delivery-service.js';
export type { DeliveryOptions } from './webhooks/options.js';
export {
  FaultProfileError,
  parseFaultProfile,
  FAULT_PROFILE_SYNTAX,
} from '#shared/fault-profile';
export type { FaultMark, FaultProfile, FaultSettings } from '#contract';
export type { MessagingOptions } from './messaging/messaging.js';
export type { StreamBufferLimits } from './messaging/conversation-streams.js';
export type { OpenAiEngineOptions } from './messaging/characters/index.js';
export { ADMIN_HEADER } from './admin/guard.js';
export { SESSION_HEADER } from './admin/dashboard-logins.js';
export {
  checkContractsByDefault,
  contractViolations,
  type ContractViolation,
} from './openapi/contract-check.js';

/** How to start an emulator. Embedded, it is in memory unless given a data dir. */
export interface EmulatorOptions {
  /** A seed object or the path of a seed JSON file; without one the default workspace is created. */
  seed?: Seed | string;
  /** Folder for the durable store; omitted (or `inMemory`) keeps everything in memory. */
  dataDir?: string;
  inMemory?: boolean;
  /** Management API port; 0 (the default when embedded) picks a free one. */
  port?: number;
  /** Messaging API port; 0 (the default when embedded) picks a free one. */
  messagingPort?: number;
  host?: string;
  /** The admin credential (`x-plugsmith-admin`) every `/_emulator` route but health and openapi.json requires; default: a new random `psa_…` per start. */
  adminToken?: string;
  /** Serve the admin API (`/_emulator`, still with the credential) to other machines too; off by default. */
  allowRemoteAdmin?: boolean;
  /** More Host names the admin API answers under (`--admin-host`), such as `emulator` (compose); loopback names and the listening host always are. */
  adminHosts?: string[];
  /** S3-compatible object storage for uploads (MinIO, AWS S3…); without an endpoint the embedded store is used. */
  storage?: S3Settings;
  /** Webhook delivery: per-attempt timeout, retry schedule (ms), and a time scale that shrinks every wait for tests. */
  delivery?: DeliveryOptions;
  /** An OpenAI-compatible chat-completions backend for `engine: 'openai'` characters (`--llm-base-url`, `--llm-model`, `--llm-api-key`). */
  llm?: OpenAiEngineOptions;
  /** Messaging: default packet size and interval of scripted replies, plugin reply timeout, keep-alive interval. */
  messaging?: MessagingOptions;
  /**
   * Start with every plugin's deliveries held (as PUT /_emulator/plugins/:pluginId/hold on each plugin the store
   * has), before the deliveries left pending by the last run resume: none goes before the caller releases the
   * plugin's hold (DELETE …/hold, `client.emulator.holds.release`) or the hold's bound (`delivery.holdMs`) passes.
   * For `plugsmith dev`, whose plugin is not up yet when its emulator starts.
   */
  holdDeliveries?: boolean;
  /** Fault injection into webhook deliveries (off by default), e.g. `'duplicate=0.2,delay=100-500ms,reorder=0.1,drop=0.1,timeout-after-answer=0.05'`. */
  faults?: string;
  /** The seed the faults are drawn from (default: a random one, printed when faults are on); the same seed and events meet the same faults. */
  faultsSeed?: string | number;
  /**
   * Where the emulator writes its notes (the fault profile and seed in force at start, a failure inside it during a
   * delivery attempt, a reply or an event the store refused, a failing listener of deliveries); default: stderr.
   */
  log?: (line: string) => void;
  /** The durable store: how many journal lines or bytes trigger a compaction into the snapshot (defaults 200,000 and 128 MiB; for tests). */
  store?: { compactAfter?: { lines?: number; bytes?: number } };
  /** Check every JSON response against the OpenAPI document and collect mismatches (`contractViolations()`); default off, unless `checkContractsByDefault()`. */
  contractCheck?: boolean;
  /** How long a request body may take: `graceMs` (default 30 s), plus a second per `minBytesPerSecond` (default 8 KiB) received; slower is a 408. */
  slowBodies?: Partial<SlowBodyBound>;
  /** Sockets of each server: a connection without a complete request head for `headersTimeoutMs` (default 15 s) is closed; at most `maxConnections` (default 256). */
  connections?: Partial<ConnectionBound>;
  /**
   * Bodies read without a recognised credential (a token, an API key, the admin credential, a dashboard session): at most `maxBytes`
   * (default 16 KiB), within `graceMs` (default 2 s) plus a second per `minBytesPerSecond` (default 2 KiB); such bodies together hold
   * at most `connections.maxConnections - connections.reservedConnections` connections (reserve default: a quarter).
   */
  unauthenticatedBodies?: Partial<UnauthenticatedBodyBound>;
}

/** A running emulator. */
export interface Emulator {
  /** Base URL of the management API, e.g. http://127.0.0.1:4010 (paths start with /api). */
  url: string;
  /** Base URL of the messaging API. */
  messagingUrl: string;
  /** The user token of the seed's first token (the default workspace's OWNER). */
  token: string | null;
  /** The seed's first messaging API key. */
  apiKey: string | null;
  /** The org of the default credentials. */
  orgId: string | null;
  /** The user of the seed's first token. */
  userId: string | null;
  /** The default workspace's agent: the first agent of `orgId` in the seed (the default seed's `agent_nova`), to install a plugin on. */
  agentId: string | null;
  /** The default workspace's character: the seed's first character of that agent (the default seed's `char_nova`), to chat with. */
  characterId: string | null;
  /** The data dir, or null in memory. */
  dataDir: string | null;
  /** The admin credential of this start: send it as `x-plugsmith-admin` on `/_emulator` calls. */
  adminToken: string;
  /** The headers an admin call needs (`{ 'x-plugsmith-admin': adminToken }`), for tests that call `/_emulator`. */
  adminHeaders: Record<string, string>;
  /** The store's stable id (`st_…`): kept in the data dir, so the same across restarts and ports; new per start in memory. */
  storeId: string;
  /** A single-use login link of the web dashboard, `<url>/_emulator/dashboard/#login=<code>`. */
  dashboardUrl: string;
  /** A fresh single-use dashboard login link (as `plugsmith emulator dashboard` prints). */
  dashboardLink(): string;
  /** The webhook delivery log (every delivery with its attempts; secrets left out). */
  deliveries: {
    list(match?: DeliveryMatch): DeliveryView[];
    get(id: string): DeliveryView | undefined;
  };
  /** Resolves with the first delivery (already logged or still to come) that matches; status defaults to 'delivered'. */
  waitForDelivery(match: DeliveryMatch & { timeoutMs?: number }): Promise<DeliveryView>;
  /** Fault injection: the profile and seed in force, and a way to change them while running (like `PUT /_emulator/faults`). */
  faults: {
    get(): FaultSettings;
    /** Sets a profile (`'off'` turns faults off) and seed (default: a new random one); throws FaultProfileError on a bad profile or seed. */
    set(profile: string, seed?: string | number): FaultSettings;
  };
  /** Empties the store and loads the seed again (the same credentials stay valid). */
  reset(): Promise<void>;
  /** Stops both servers and flushes the store. */
  close(): Promise<void>;
}

/** Starts an emulator: opens the store, seeds it when empty, and listens on both ports. */
export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  if (options.inMemory && options.dataDir !== undefined)
    throw new TypeError('startEmulator: pass dataDir (durable) or inMemory: true, not both');
  const startedAt = new Date();
  const dataDir = options.inMemory ? undefined : options.dataDir;
  const host = options.host ?? '127.0.0.1';
  if (
    options.adminToken !== undefined &&
    (typeof options.adminToken !== 'string' || !/^[\x21-\x7e]{16,500}$/.test(options.adminToken))
  ) {
    throw new TypeError(
      'startEmulator: adminToken must be 16 to 500 visible ASCII characters (it goes in a header as it is), or left out for a random one',
    );
  }
  const adminToken = options.adminToken ?? newAdminToken();
  const seed =
    typeof options.seed === 'string'
      ? await readSeedFile(options.seed)
      : options.seed && validateSeed(options.seed);
  // A bad bound fails the start before anything listens.
  checkConnectionBound(options.connections);
  const deliveryOptions = resolveDeliveryOptions(options.delivery);
  // Bad faults fail the start before anything listens (FaultProfileError names each bad part).
  const faultProfile =
    options.faults === undefined ? undefined : parseFaultProfile(String(options.faults));
  const faultsSeed =
    options.faultsSeed === undefined ? undefined : checkFaultSeed(String(options.faultsSeed));
  checkStreamBufferLimits(options.messaging?.streamBuffers);

  let db!: Db;
  const store = await Store.open({ dataDir, compactAfter: options.store?.compactAfter }, (s) => {
    db = defineCollections(s);
  });
  let managementApp: FastifyInstance | undefined;
  let messagingApp: FastifyInstance | undefined;
  let managementUrl = '';
  let messagingUrl = '';
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const dispatcher = new WebhookDispatcher({
    db,
    log,
    options: deliveryOptions,
    faults: faultProfile && { profile: faultProfile, seed: faultsSeed },
    // Webhooks never reach the emulator's own admin and storage paths (a plugin could otherwise aim its webhook at /_emulator/reset).
    refusal: (url) =>
      ownAdminTarget(url, {
        host,
        adminHosts: options.adminHosts ?? [],
        urls: [managementUrl, messagingUrl],
      }),
  });
  let storage: ObjectStorage | undefined;
  try {
    const storeId = await storeIdOf(dataDir);
    const storageKey = await storageSecret(dataDir);
    storage = await openObjectStorage({
      ...options.storage,
      rootDir: dataDir ? join(dataDir, 'objects') : undefined,
      baseUrl: () => managementUrl,
      secret: storageKey,
    });
    await storage.init();
    let effectiveSeed: Seed;
    if (db.users.size === 0) {
      effectiveSeed = seed ?? defaultSeed();
      await seedStore(store, db, effectiveSeed);
      if (dataDir) await saveCredentials(dataDir, effectiveSeed);
    } else {
      // An existing data dir keeps its records; the credentials it was seeded with are reused.
      effectiveSeed = (dataDir && (await loadCredentials(dataDir))) || seed || defaultSeed();
    }
    const credentials = seedCredentials(effectiveSeed);
    const pluginOutput = new PluginOutputLog(db, {
      adminToken,
      token: credentials.token,
      apiKey: credentials.apiKey,
      storageKey,
    });

    // A persistent store keeps the dashboard's sessions (their hashes), so open tabs survive a restart.
    const logins = new DashboardLogins({
      sessionsFile: dataDir ? join(dataDir, 'dashboard-sessions.json') : undefined,
    });
    const messaging = new Messaging(
      { store, db, dispatcher },
      { ...options.messaging, llm: options.llm, log },
    );
    await messaging.finishInterrupted();
    const services: EmulatorServices = {
      store,
      db,
      config: {
        publicUrl: () => managementUrl,
        messagingUrl: () => messagingUrl,
        storeId,
        dataDir: dataDir ?? null,
        startedAt,
        storageBackend: storageBackendOf(options.storage, storage.kind),
        llm: options.llm
          ? {
              baseUrl: options.llm.baseUrl,
              model: options.llm.model,
              hasApiKey: Boolean(options.llm.apiKey),
            }
          : null,
        credentials: workspaceOf(effectiveSeed, credentials),
        contractCheck: options.contractCheck ?? contractCheckByDefault(),
        slowBodies: { ...DEFAULT_SLOW_BODY_BOUND, ...options.slowBodies },
        connections: { ...DEFAULT_CONNECTION_BOUND, ...options.connections },
        unauthenticatedBodies: {
          ...DEFAULT_UNAUTHENTICATED_BODY_BOUND,
          ...options.unauthenticatedBodies,
        },
      },
      admin: {
        token: adminToken,
        allowRemote: options.allowRemoteAdmin === true,
        host,
        adminHosts: options.adminHosts ?? [],
        logins,
      },
      dispatcher,
      messaging,
      pluginOutput,
      reset: async () => {
        await resetStore(services, effectiveSeed);
        pluginOutput.clear();
      },
      storage,
    };
    // Held before anything listens, so neither a request nor a resumed retry reaches a plugin that is not up.
    if (options.holdDeliveries) dispatcher.holdEveryPlugin();
    managementApp = await buildManagementApp(services);
    messagingApp = await buildMessagingApp(services);
    await managementApp.listen({ port: options.port ?? 0, host });
    await messagingApp.listen({ port: options.messagingPort ?? 0, host });
    managementUrl = urlOf(managementApp, host);
    messagingUrl = urlOf(messagingApp, host);
    // Deliveries left pending by the last run (a data dir) pick up where they stopped, or wait for their hold.
    await dispatcher.resume();

    if (faultProfile && profileIsOn(faultProfile)) {
      const { profile, seed } = dispatcher.faults.settings();
      log(
        `plugsmith emulator: fault injection on: ${profile} (seed ${seed}; reproduce with --faults-seed ${seed} or faultsSeed: '${seed}')`,
      );
    }
    const apps = [managementApp, messagingApp];
    let closed = false;
    const workspace = services.config.credentials;
    const emulator: Emulator = {
      url: managementUrl,
      messagingUrl,
      ...credentials,
      userId: workspace.userId,
      agentId: workspace.agentId,
      characterId: workspace.characterId,
      dataDir: dataDir ?? null,
      adminToken,
      adminHeaders: { [ADMIN_HEADER]: adminToken },
      storeId,
      dashboardUrl: dashboardLink(services, logins),
      dashboardLink: () => dashboardLink(services, logins),
      deliveries: {
        list: (match) => dispatcher.log.list(match),
        get: (id) => {
          const record = db.deliveries.get(id);
          return record && presentDelivery(record);
        },
      },
      waitForDelivery: ({ timeoutMs, ...match }) => dispatcher.log.waitFor(match, timeoutMs),
      faults: {
        get: () => dispatcher.faults.settings(),
        set: (profile, seed) =>
          dispatcher.faults.configure(
            parseFaultProfile(profile),
            seed === undefined ? undefined : checkFaultSeed(String(seed)),
          ),
      },
      reset: () => services.reset(),
      async close() {
        if (closed) return;
        closed = true;
        // Every step runs even after one failed (a full disk), so the store always releases its lock; the first failure is reported.
        await inTurn([
          () => services.messaging.close(),
          () => Promise.all(apps.map((a) => a.close())),
          () => dispatcher.close(),
          () => storage!.close(),
          () => store.close(),
        ]);
      },
    };
    return keepInternals(emulator, services);
  } catch (error) {
    await inTurn([
      () => Promise.all([managementApp?.close(), messagingApp?.close()]),
      async () => storage?.close(),
      () => dispatcher.close(),
      () => store.close(),
    ]).catch(() => undefined);
    throw error;
  }
}

/** Runs each step after the one before, whether it failed or not; rejects with the first failure once all ran. */
async function inTurn(steps: Array<() => Promise<unknown>>): Promise<void> {
  let failure: { error: unknown } | undefined;
  for (const step of steps) {
    try {
      await step();
    } catch (error) {
      failure ??= { error };
    }
  }
  if (failure) throw failure.error;
}

/** The storage backend as the overview shows it: the endpoint's origin only (never its credentials). */
function storageBackendOf(
  settings: S3Settings | undefined,
  kind: 'embedded' | 's3',
): Overview['storage'] {
  if (kind !== 's3' || !settings?.s3Endpoint)
    return { backend: 'embedded', endpoint: null, bucket: null };
  const endpoint = URL.canParse(settings.s3Endpoint) ? new URL(settings.s3Endpoint).origin : null;
  return { backend: 's3', endpoint, bucket: settings.s3Bucket ?? 'plugsmith' };
}

/** The default workspace: the first token's user, its org, and that org's first agent and character. */
function workspaceOf(seed: Seed, credentials: Credentials): WorkspaceCredentials {
  const userId = seed.tokens.find((t) => t.token === credentials.token)?.userId ?? null;
  const agentId = seed.agents?.find((a) => a.orgId === credentials.orgId)?.id ?? null;
  const characterId =
    seed.characters?.find(
      (c) => c.orgId === credentials.orgId && (agentId === null || c.agentId === agentId),
    )?.id ??
    seed.characters?.find((c) => c.orgId === credentials.orgId)?.id ??
    null;
  return { ...credentials, userId, agentId, characterId };
}

function urlOf(app: FastifyInstance, host: string): string {
  const address = app.server.address() as AddressInfo;
  const shown =
    host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return `http://${shown}:${address.port}`;
}

/** A temporary folder for tests that want a data dir; removed by the returned function. */
export async function temporaryDataDir(
  prefix = 'plugsmith-',
): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}
