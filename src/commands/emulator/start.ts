import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { RunCommand, OptionsOf } from '../types.js';
import { UserError, ExitWith, EXIT } from '../../errors.js';
import {
  emulatorOf,
  emulatorOwner,
  removeEmulatorState,
  writeEmulatorState,
} from '../../config/emulators.js';
import { env } from '../../config/env.js';
import { note } from '../../ui/output.js';
import { listenForStop } from '../stop-signal.js';
import type { execOptions, StartOptions } from './options.js';

/** A secret given as a file (its first line): other local users see every process's arguments, not this. */
async function secretFromFile(path: string | undefined, flag: string): Promise<string | undefined> {
  if (path === undefined) return undefined;
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new UserError(
      `${flag} ${path}: cannot read it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
      EXIT.USAGE,
    );
  }
  const secret = text.split(/\r?\n/, 1)[0].trim();
  if (!secret)
    throw new UserError(
      `${flag} ${path}: the file is empty; write the secret on its first line`,
      EXIT.USAGE,
    );
  return secret;
}

async function llmOptions(o: StartOptions) {
  const baseUrl = o.llmBaseUrl ?? env.llmBaseUrl();
  if (!baseUrl) return undefined;
  const model = o.llmModel ?? env.llmModel();
  if (!model)
    throw new UserError(
      '--llm-base-url needs --llm-model (or PLUGSMITH_LLM_MODEL), e.g. --llm-model llama3.2',
      EXIT.USAGE,
    );
  return {
    baseUrl,
    model,
    apiKey:
      o.llmApiKey ??
      (await secretFromFile(o.llmApiKeyFile, '--llm-api-key-file')) ??
      env.llmApiKey(),
  };
}

/** Starts the emulator, prints where it listens and what to authenticate with, serves until a signal. */
export const start: RunCommand<StartOptions> = async ({ options: o, global, io }) => {
  // A bad flag is told before anything else is looked at (ports, a running emulator).
  const { faultOptions } = await import('../../dev/faults.js');
  const faults = faultOptions(o.faults, o.faultsSeed);
  const llm = await llmOptions(o);
  const s3SecretKey = await secretFromFile(o.s3SecretKeyFile, '--s3-secret-key-file');
  const {
    assertDistinctPorts,
    choosePort,
    describePort,
    startOnChosenPorts,
    storeErrorExit,
    DEFAULT_PORT,
    DEFAULT_MESSAGING_PORT,
  } = await import('../../dev/local-emulator.js');
  assertDistinctPorts(o.port, o.messagingPort, ['--port', '--messaging-port']);
  // One emulator per project, else per data dir: its state file is how commands run there find it.
  const { dataDirFor } = await import('../../project/data-dir.js');
  const dataDir = o.inMemory ? undefined : await dataDirFor(process.cwd(), o.dataDir);
  const owner = emulatorOwner({ dataDir });
  const running = await emulatorOf(owner.key);
  if (running) {
    throw new UserError(
      `an emulator already runs for ${owner.project ?? owner.key}: ${running.url} (pid ${running.pid}, store ${running.dataDir ?? 'in memory'}). ` +
        'Use it (commands run in that folder find it), or stop it first (`plugsmith emulator stop`)',
      EXIT.CONFLICT,
    );
  }
  const notes: string[] = [];
  const instead = 'this emulator listens on a free port instead';
  const port = await choosePort(o.port, DEFAULT_PORT, o.host, '--port', notes, instead);
  const messagingPort = await choosePort(
    o.messagingPort,
    DEFAULT_MESSAGING_PORT,
    o.host,
    '--messaging-port',
    notes,
    instead,
  );
  const { startEmulator, SeedError, StoreError } = await import('../../../emulator/index.js');
  const emulator = await startOnChosenPorts(
    { port, messagingPort },
    o,
    notes,
    instead,
    (port, messagingPort) =>
      startEmulator({
        port,
        messagingPort,
        host: o.host,
        allowRemoteAdmin: o.allowRemoteAdmin === true,
        adminHosts: o.adminHost ?? [],
        dataDir,
        inMemory: o.inMemory,
        seed: o.seed ? resolve(o.seed) : undefined,
        storage: {
          s3Endpoint: o.s3Endpoint ?? env.s3Endpoint(),
          s3AccessKey: o.s3AccessKey ?? env.s3AccessKey(),
          s3SecretKey: o.s3SecretKey ?? s3SecretKey ?? env.s3SecretKey(),
          s3Bucket: o.s3Bucket ?? env.s3Bucket(),
          s3Region: o.s3Region ?? env.s3Region(),
        },
        llm,
        ...faults,
        log: (line) => note(io, global, line),
      }),
  ).catch(async (error: Error) => {
    if (error instanceof SeedError)
      throw new UserError(`invalid seed: ${error.message}`, EXIT.VALIDATION);
    if (error instanceof StoreError) throw new UserError(error.message, storeErrorExit(error));
    if (error.name === 'StorageError')
      throw new UserError(`object storage: ${error.message}`, EXIT.NETWORK);
    if (error.name === 'ReplyEngineError')
      throw new UserError(`LLM backend: ${error.message}`, EXIT.USAGE);
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      // Taken between the check above and the start.
      const port = (error as { port?: number }).port;
      const flag = port === messagingPort ? '--messaging-port' : '--port';
      throw new UserError(
        `cannot listen on ${o.host}:${port ?? '?'} (${flag}): ${port ? await describePort(port) : error.message}; stop it, or pass another ${flag} (0 picks a free port)`,
        EXIT.CONFLICT,
      );
    }
    throw error;
  });

  // Before anything says it is ready: a script that waits for that, then sends SIGTERM, gets a clean stop.
  const { stopped } = listenForStop();
  const { path: statePath, ...state } = await writeEmulatorState(emulator, owner);
  for (const line of notes) note(io, global, line);
  const faultSettings = emulator.faults.get();

  const dashboardUrl = emulator.dashboardUrl;
  if (global.json) {
    const ready = { ...state, dashboardUrl };
    io.stdout.write(
      JSON.stringify(
        faultSettings.on
          ? { ...ready, faults: faultSettings.profile, faultsSeed: faultSettings.seed }
          : ready,
      ) + '\n',
    );
  } else {
    io.stdout.write(
      [
        'plugsmith emulator ready',
        `  management API  ${state.url}  (the base URL: --base-url, PLUGSMITH_BASE_URL; its routes are under /api)`,
        `  messaging API   ${state.messagingUrl}`,
        `  token           ${state.token ?? '(none in the seed)'}`,
        `  API key         ${state.apiKey ?? '(none in the seed)'}`,
        `  org             ${state.orgId ?? '-'}`,
        `  admin token     ${state.adminToken}  (header x-plugsmith-admin on /_emulator; the CLI finds it in ${statePath})`,
        `  store           ${state.dataDir ?? 'in memory'} (${state.storeId})`,
        ...(state.project
          ? [`  project         ${state.project}  (commands run in this folder use this emulator)`]
          : []),
        ...(faultSettings.on
          ? [
              `  faults          ${faultSettings.profile}  (seed ${faultSettings.seed}; reproduce with --faults-seed ${faultSettings.seed})`,
            ]
          : []),
        '',
        `Dashboard: ${dashboardUrl}`,
        '  (the link works once; `plugsmith emulator dashboard --open` makes another)',
        '',
        `${await howToUse()} Stop with Ctrl+C.`,
        '',
      ].join('\n'),
    );
  }

  if (o.open) {
    const { openInBrowser } = await import('../../ui/open-browser.js');
    const problem = await openInBrowser(dashboardUrl);
    if (problem)
      note(
        io,
        global,
        `could not open a browser (${problem}): open the Dashboard link yourself, or set BROWSER`,
      );
  }

  const loopbackHost = /^(localhost|127(\.\d{1,3}){3}|::1|\[::1\])$/i.test(o.host);
  if (o.allowRemoteAdmin)
    note(
      io,
      global,
      'the admin API (/_emulator) is served to other machines too (--allow-remote-admin); it still needs the admin token',
    );
  else if (!loopbackHost)
    note(
      io,
      global,
      `listening on ${o.host}: the APIs are reachable from other machines, the admin API (/_emulator) only from this one (--allow-remote-admin to change that)`,
    );

  await stopped;
  if (!global.quiet) io.stderr.write('stopping the emulator…\n');
  await emulator.close();
  await removeEmulatorState(statePath);
};

/** Runs the command with an in-memory emulator (--deploy: the manifest in it) in its environment; --json prints that and serves. */
export const exec: RunCommand<OptionsOf<typeof execOptions>> = async ({
  args,
  options,
  global,
  io,
}) => {
  const words = (args as unknown[]).flat().filter((w): w is string => typeof w === 'string');
  if (global.json && words.length)
    throw new UserError(
      '--json prints the environment instead of running a command: drop the command, or --json',
      EXIT.USAGE,
    );
  if (!global.json && !words.length)
    throw new UserError(
      'which command? `plugsmith emulator exec -- npm test` (or --json to print the environment and keep the emulator running)',
      EXIT.USAGE,
    );
  const manifestPath = resolve(options.manifest);
  const { loadManifest } = await import('../../manifest/load.js');
  // A missing or invalid manifest is told before anything starts.
  const manifest = options.deploy ? await loadManifest(manifestPath, process.env) : undefined;
  const { startEmulator, SeedError } = await import('../../../emulator/index.js');
  const seed = options.seed ? resolve(options.seed) : undefined;
  const emulator = await startEmulator({
    inMemory: true,
    port: 0,
    messagingPort: 0,
    seed,
    log: () => undefined,
  }).catch((error: Error) => {
    throw error instanceof SeedError
      ? new UserError(`invalid seed: ${error.message}`, EXIT.VALIDATION)
      : error;
  });
  try {
    let plugin: { id: string; webhookSecret: string } | undefined;
    if (manifest) {
      if (!emulator.token || !emulator.orgId)
        throw new UserError('--deploy needs a user token and an org in the seed', EXIT.VALIDATION);
      const { createClient } = await import('../../client/index.js');
      const { deployManifest } = await import('../../manifest/deploy.js');
      const client = createClient({
        baseUrl: emulator.url,
        messagingUrl: emulator.messagingUrl,
        token: emulator.token,
        adminToken: emulator.adminToken,
        userAgent: 'plugsmith-exec',
      });
      try {
        // A throwaway store: nothing recorded; the webhook is verified by the command once it listens.
        const outcome = await deployManifest(
          client,
          manifestPath,
          { identity: { storeId: emulator.storeId, baseUrl: emulator.url }, orgId: emulator.orgId },
          { allowDeletes: true, environment: process.env, manifest, record: false },
        );
        const deployed = await client.plugins.get(outcome.pluginId!);
        plugin = { id: outcome.pluginId!, webhookSecret: String(deployed.webhookSecret ?? '') };
        note(
          io,
          global,
          `deployed ${manifest.plugin.name} (${plugin.id}) into an in-memory emulator at ${emulator.url}`,
        );
      } finally {
        await client.close();
      }
    }
    const { execEnvironment, runCommand } = await import('../../dev/exec.js');
    const environment = execEnvironment(emulator, plugin);
    if (global.json) {
      const { stopped } = listenForStop();
      io.stdout.write(JSON.stringify(environment) + '\n');
      await stopped;
      return;
    }
    note(io, global, `emulator at ${emulator.url} (in memory); running: ${words.join(' ')}`);
    // PLUGSMITH_CLI: how the command can run this plugsmith (a project's tests run `scenario run` with it).
    const cli = [process.execPath, process.argv[1]].map(
      (word) => `'${word.replaceAll("'", `'\\''`)}'`,
    );
    const commandEnvironment = {
      PLUGSMITH_CLI: cli.join(' '),
      ...process.env,
      ...environment,
    };
    const code = await runCommand(words, commandEnvironment, options.grace * 1000);
    if (code !== 0) throw new ExitWith(code);
  } finally {
    await emulator.close();
  }
};

/**
 * The banner's word on logging in, the same as README's and doctor's: none is needed for the local
 * emulator; only a current profile of a remote platform (made by `plugsmith login`) is in the way.
 */
async function howToUse(): Promise<string> {
  const { loadConfig } = await import('../../config/profiles.js');
  const config = await loadConfig().catch(() => null);
  const current = config?.current ? config.profiles[config.current] : undefined;
  if (current && !current.local)
    return `Your current profile "${config?.current}" points at ${current.baseUrl}: run \`plugsmith login --local\` so that commands use this emulator.`;
  return 'No login needed: commands in another terminal use this emulator (`plugsmith login` is for a remote platform).';
}
