import { resolve, dirname } from 'node:path';
import type { RunCommand, CommandInput } from '../types.js';
import { orgOf, settingsFor } from '../context.js';
import { UserError, EXIT } from '../../errors.js';
import { note } from '../../ui/output.js';
import { styleFor } from '../../ui/style.js';
import { attemptLine } from '../../dev/delivery-view.js';
import { listenForStop } from '../stop-signal.js';
import type { DevFlags } from './options.js';

/** Runs a dev session until Ctrl+C: notes and the plugin's output on stderr, deliveries on stdout. */
const dev: RunCommand<DevFlags> = async (input) => {
  const o = input.options;
  const { io, global } = input;
  const { assertDistinctPorts } = await import('../../dev/local-emulator.js');
  assertDistinctPorts(o.emulatorPort, o.messagingPort, ['--emulator-port', '--messaging-port']);
  const { faultOptions } = await import('../../dev/faults.js');
  const faults = faultOptions(o.faults, o.faultsSeed);
  const manifestPath = resolve(o.manifest);
  const { loadManifest } = await import('../../manifest/load.js');
  // Fail at once on a missing or invalid manifest, before starting anything.
  const manifest = await loadManifest(
    manifestPath,
    // --plugin-port 0 is chosen when dev starts; the manifest is checked with its own default meanwhile.
    o.pluginPort ? { ...process.env, PORT: String(o.pluginPort) } : process.env,
  );
  // --cmd, else the manifest's dev.command (a plugin in another language), else the npm script.
  const command = o.cmd ?? manifest.dev?.command ?? 'npm run dev';
  const watch = o.cmd === undefined ? manifest.dev?.watch : undefined;
  const target =
    o.baseUrl !== undefined || o.messagingUrl !== undefined ? await targetOf(input) : undefined;
  // The project's emulator store: a link in its default path is refused (dev targeting another emulator starts none).
  const { dataDirFor } = await import('../../project/data-dir.js');
  const dataDir =
    target === undefined
      ? await dataDirFor(dirname(manifestPath), o.dataDir)
      : resolve(dirname(manifestPath), o.dataDir ?? '.plugsmith/emulator');
  const { DevSession } = await import('../../dev/session.js');
  const out = styleFor(io, global);
  const err = styleFor(io, global, 'stderr');
  const session = new DevSession(
    {
      manifestPath,
      command,
      watch,
      env: process.env,
      pluginPort: o.pluginPort,
      emulatorPort: o.emulatorPort,
      messagingPort: o.messagingPort,
      dataDir,
      verifyTimeoutMs: o.verifyTimeout * 1000,
      installs: o.installs,
      faults: o.faults === undefined ? undefined : faults,
      target,
    },
    {
      info: (m) => note(io, global, err.cyan('dev  ') + m),
      warn: (m) => note(io, global, err.yellow('dev  ') + m),
      delivery: (notice) =>
        io.stdout.write((global.json ? JSON.stringify(notice) : attemptLine(notice, out)) + '\n'),
      emulatorReady: async ({ url, messagingUrl, dashboardUrl }) => {
        // With --json the first line on stdout says where the emulator and its dashboard are; deliveries follow.
        if (global.json)
          io.stdout.write(JSON.stringify({ url, messagingUrl, dashboardUrl }) + '\n');
        else if (dashboardUrl) note(io, global, err.cyan('dev  ') + `Dashboard: ${dashboardUrl}`);
        else
          note(
            io,
            global,
            err.yellow('dev  ') +
              'no dashboard link: the admin token of this emulator is unknown (set PLUGSMITH_ADMIN_TOKEN)',
          );
        if (o.open && dashboardUrl) {
          const { openInBrowser } = await import('../../ui/open-browser.js');
          const problem = await openInBrowser(dashboardUrl);
          if (problem)
            note(
              io,
              global,
              err.yellow('dev  ') +
                `could not open a browser (${problem}): open the Dashboard link yourself, or set BROWSER`,
            );
        }
      },
      ready: (webhookUrl) =>
        note(
          io,
          global,
          err.green('dev  ') + `ready: the plugin answers its challenge at ${webhookUrl}`,
        ),
      // On stderr with --json too: stdout is the deliveries' JSON, and a CI log needs the plugin's crash trace.
      pluginOutput: (line) => {
        if (!global.quiet) io.stderr.write(err.dim('plugin  ') + line + '\n');
      },
      // The emulator's own reports (a failure inside it, a hold that expired) are never quieted.
      emulatorLog: (line) =>
        io.stderr.write(
          err.yellow('emulator  ') + line.replace(/^plugsmith emulator: /, '') + '\n',
        ),
    },
  );
  const { stopped } = listenForStop();
  try {
    await session.start();
    note(
      io,
      global,
      err.dim('dev  watching the manifest; deliveries appear below; Ctrl+C to stop'),
    );
    await stopped;
    note(io, global, 'dev  stopping…');
  } finally {
    await session.stop();
  }
};

/** The emulator named by --base-url/--messaging-url, with the credentials of the flags, environment and profile. */
async function targetOf(input: CommandInput<DevFlags>) {
  const settings = await settingsFor(input);
  if (!settings.baseUrl || !settings.messagingUrl)
    throw new UserError(
      'dev --base-url needs both URLs of the emulator: pass --base-url and --messaging-url (or set PLUGSMITH_BASE_URL and PLUGSMITH_MESSAGING_URL)',
      EXIT.USAGE,
    );
  const { adminTokenFor } = await import('../../config/admin-token.js');
  const { withEmulatorAdmin } = await import('../../dev/local-emulator.js');
  const adminToken = await adminTokenFor(settings.baseUrl);
  // A target that does not answer is said first (exit 7), before what the credentials lack.
  const health = await withEmulatorAdmin(settings.baseUrl, adminToken, (admin) =>
    admin.health(),
  ).catch((error: Error) => {
    throw new UserError(
      `no emulator answers at ${settings.baseUrl} (from --base-url): ${error.message}`,
      EXIT.NETWORK,
    );
  });
  const storeId = typeof health.storeId === 'string' ? health.storeId : null;
  if (!settings.token)
    throw new UserError(
      `no token for ${settings.baseUrl}: run \`plugsmith login --base-url ${settings.baseUrl}\` or set PLUGSMITH_TOKEN`,
      EXIT.AUTH,
    );
  const orgId = orgOf(settings);
  return {
    url: settings.baseUrl,
    messagingUrl: settings.messagingUrl,
    token: settings.token,
    apiKey: settings.apiKey ?? null,
    orgId,
    adminToken,
    storeId,
  };
}

export default dev;
