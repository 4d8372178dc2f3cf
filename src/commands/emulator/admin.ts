import { lstat } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RunCommand, CommandInput, TargetFlags } from '../types.js';
import { confirmDeletion, readJson, timeoutMsOf } from '../context.js';
import type { EmulatorAdminResource } from '../../client/index.js';
import { adminTokenFor } from '../../config/admin-token.js';
import { env } from '../../config/env.js';
import {
  alive,
  chooseEmulator,
  listEmulators,
  namedEmulator,
  noEmulatorMessage,
} from '../../config/emulators.js';
import { writePrivateFile } from '../../shared/private-file.js';
import { resolveSettings } from '../../config/profiles.js';
import { withEmulatorAdmin } from '../../dev/local-emulator.js';
import { UserError, EXIT } from '../../errors.js';
import { note, printResult, table } from '../../ui/output.js';

/**
 * An admin command run with its emulator's URL and admin API (its admin credential, the command's timeout). The emulator comes
 * first, so a wrong PLUGSMITH_BASE_URL is a usage error whatever else is wrong: `--base-url`, else PLUGSMITH_BASE_URL, else the
 * running one chooseEmulator picks, else the profile's base URL; else an error naming the folder looked in (exit 4). One
 * named that does not answer is a network error (7).
 */
function onEmulator<F extends TargetFlags>(
  run: (input: CommandInput<F>, url: string, admin: EmulatorAdminResource) => Promise<void>,
): RunCommand<F> {
  return async (input) => {
    const url = await emulatorUrl(input);
    await withEmulatorAdmin(
      url,
      await adminTokenFor(url),
      (admin) => run(input, url, admin),
      timeoutMsOf(input),
    );
  };
}

async function emulatorUrl(input: CommandInput<TargetFlags>): Promise<string> {
  const given = input.options.baseUrl || env.baseUrl();
  if (given) return given;
  const choice = await chooseEmulator();
  if (choice.state) return choice.state.url;
  const settings = await resolveSettings({ profile: input.global.profile });
  if (settings.baseUrl) return settings.baseUrl;
  throw new UserError(`${noEmulatorMessage(choice)}; or pass --base-url`, EXIT.NOT_FOUND);
}

/** Prints (and with --open opens) a fresh single-use login link of the running emulator's dashboard. */
export const dashboard = onEmulator<{ open?: boolean } & TargetFlags>(async (input, url, admin) => {
  const { io, global } = input;
  const { dashboardUrl } = await admin.dashboardLink();
  printResult(io, global, { url, dashboardUrl }, () => `Dashboard: ${dashboardUrl}\n`);
  if (input.options.open) {
    const { openInBrowser } = await import('../../ui/open-browser.js');
    const problem = await openInBrowser(dashboardUrl);
    if (problem)
      note(
        io,
        global,
        `could not open a browser (${problem}): open the link above yourself, or set BROWSER`,
      );
  }
  if (!global.json)
    note(
      io,
      global,
      'The link works once: it signs this browser in (it keeps the session in its storage for this emulator until it stops). Run this command again for another browser.',
    );
});

/** The refusal of an export onto an existing file, without --force. */
function exists(file: string): UserError {
  return new UserError(
    `${file} exists: pass --force to overwrite it, or name another file`,
    EXIT.USAGE,
  );
}

/** Writes every record of the running emulator to a JSON file (owner-only: it holds webhook secrets). */
export const exportCommand = onEmulator<{ force?: boolean } & TargetFlags>(
  async (input, url, admin) => {
    const file = input.args[0];
    // An earlier backup is never replaced unasked; whatever stands at the name counts, a link too.
    if (!input.options.force && (await lstat(file).catch(() => null))) throw exists(file);
    const data = await admin.export();
    try {
      // Unasked, a file that appeared meanwhile (another export to the same name) is kept too.
      await writePrivateFile(file, JSON.stringify(data, null, 2) + '\n', {
        replace: input.options.force === true,
      });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw exists(file);
      throw new UserError(`cannot write ${file}: ${(error as Error).message}`, EXIT.USAGE);
    }
    const collections = (data.collections ?? {}) as Record<string, unknown[]>;
    const counts = Object.fromEntries(Object.entries(collections).map(([k, v]) => [k, v.length]));
    const total = Object.values(counts).reduce((a, b) => a + b, 0);
    printResult(
      input.io,
      input.global,
      { file, url, counts },
      () => `Exported ${total} records from ${url} to ${file}.\n`,
    );
    if (!input.global.json)
      note(
        input.io,
        input.global,
        'The file holds webhook secrets and token hashes: keep it private. Uploaded file contents are not included.',
      );
  },
);

/** Replaces the running emulator's records with an export file (checked here, then by the emulator). */
export const importCommand = onEmulator<{ yes?: boolean } & TargetFlags>(
  async (input, url, admin) => {
    const file = input.args[0];
    const parsed = await readJson(file);
    const doc = parsed as { format?: unknown; collections?: unknown };
    if (
      typeof doc !== 'object' ||
      doc === null ||
      doc.format !== 'plugsmith-emulator-export' ||
      typeof doc.collections !== 'object'
    ) {
      throw new UserError(
        `${file} is not an emulator export (no "format": "plugsmith-emulator-export"): make one with \`plugsmith emulator export FILE\``,
        EXIT.VALIDATION,
      );
    }
    await confirmDeletion(input, `every record of the emulator at ${url} (replaced by ${file})`);
    const result = await admin.import(parsed);
    const total = Object.values(result.counts).reduce((a, b) => a + b, 0);
    printResult(
      input.io,
      input.global,
      { file, url, ...result },
      () => `Imported ${total} records from ${file} into ${url}; everything else was removed.\n`,
    );
  },
);

/** Empties the running emulator and loads its seed again (the seed's credentials keep working). */
export const reset = onEmulator<{ yes?: boolean } & TargetFlags>(async (input, url, admin) => {
  await confirmDeletion(input, `every record of the emulator at ${url} (back to its seed)`);
  await admin.reset();
  printResult(
    input.io,
    input.global,
    { url, reset: true },
    () => `Reset the emulator at ${url} to its seed.\n`,
  );
});

/** "3m 12s", "2h 5m": how long an emulator has run. */
function uptime(s: number): string {
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s`;
  return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
}

/** Lists the running emulators (one per project), most recently started first; no credentials are printed. */
export const list: RunCommand<object> = async ({ io, global }) => {
  const rows = (await listEmulators()).map((s) => ({
    project: s.project ?? null,
    dataDir: s.dataDir,
    url: s.url,
    messagingUrl: s.messagingUrl,
    pid: s.pid,
    startedAt: s.startedAt,
    uptimeSeconds: Math.max(0, Math.round((Date.now() - Date.parse(s.startedAt)) / 1000)),
    storeId: s.storeId ?? null,
  }));
  printResult(io, global, rows, () =>
    rows.length === 0
      ? 'no emulator is running (start one with `plugsmith dev` or `plugsmith emulator start` in a project)\n'
      : table(rows, [
          { header: 'PROJECT', value: (r) => r.project ?? `(${r.dataDir ?? 'in memory'})` },
          { header: 'URL', value: (r) => r.url },
          { header: 'MESSAGING', value: (r) => r.messagingUrl },
          { header: 'PID', value: (r) => r.pid },
          { header: 'UPTIME', value: (r) => uptime(r.uptimeSeconds) },
        ]) + '\n',
  );
};

/** Stops the emulator of [project], else this command's; SIGTERM only once its health names its state file's pid (never a reused pid). */
export const stop: RunCommand<{ wait: number }> = async ({ args, options, io, global }) => {
  const asked = args[0];
  const choice =
    asked === undefined
      ? await chooseEmulator()
      : { state: await namedEmulator(asked), project: null };
  const state = choice.state;
  if (!state) throw new UserError(noEmulatorMessage(choice), EXIT.NOT_FOUND);
  let health: Record<string, unknown>;
  try {
    health = await withEmulatorAdmin(state.url, state.adminToken, (admin) => admin.health(), 5000);
  } catch (error) {
    throw new UserError(
      `the emulator of ${state.project ?? state.dataDir ?? 'an in-memory store'} (pid ${state.pid}) does not answer at ${state.url} (${(error as Error).message}): not signalling a process that may not be it`,
      EXIT.NETWORK,
    );
  }
  if (health.pid !== state.pid) {
    throw new UserError(
      `${state.url} is answered by pid ${String(health.pid)}, not the pid ${state.pid} its state file names: not stopping it`,
      EXIT.CONFLICT,
    );
  }
  process.kill(state.pid, 'SIGTERM');
  const deadline = Date.now() + options.wait * 1000;
  while (alive(state.pid) && Date.now() < deadline) await sleep(100);
  if (alive(state.pid))
    throw new UserError(
      `sent SIGTERM to the emulator (pid ${state.pid}), but it still runs after ${options.wait}s`,
      EXIT.UNEXPECTED,
    );
  const stopped = {
    project: state.project ?? null,
    dataDir: state.dataDir,
    url: state.url,
    pid: state.pid,
    stopped: true,
  };
  printResult(
    io,
    global,
    stopped,
    () =>
      `stopped the emulator of ${state.project ?? state.dataDir ?? 'an in-memory store'} (${state.url}, pid ${state.pid})\n`,
  );
};
