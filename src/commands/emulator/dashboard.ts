import type { CommandHandler, TargetFlags } from '../types.js';
import { emulatorUrl } from '../../dev/emulator-target.js';
import { EmulatorAdmin } from '../../dev/emulator-admin.js';
import { adminTokenFor } from '../../config/admin-token.js';
import { timeoutMsOf } from '../context.js';
import { note } from '../../ui/output.js';
import { openInBrowser } from '../../ui/open-browser.js';

/** Prints (and with --open opens) a fresh single-use login link of the running emulator's dashboard. */
const dashboard: CommandHandler<{ open?: boolean } & TargetFlags> = async (input) => {
  const { io, global } = input;
  const url = await emulatorUrl({ url: input.options.baseUrl, profile: global.profile });
  // No emulator found is exit 4 (from emulatorUrl); one named that does not answer is a network error, 7, like every admin command.
  const { dashboardUrl } = await new EmulatorAdmin(url, { adminToken: await adminTokenFor(url), timeoutMs: timeoutMsOf(input) }).dashboardLink();
  if (global.json) io.stdout.write(JSON.stringify({ url, dashboardUrl }, null, 2) + '\n');
  else io.stdout.write(`Dashboard: ${dashboardUrl}\n`);
  if (input.options.open) {
    const problem = await openInBrowser(dashboardUrl);
    if (problem) note(io, global, `could not open a browser (${problem}): open the link above yourself, or set BROWSER`);
  }
  if (!global.json) note(io, global, 'The link works once: it signs this browser in (it keeps the session in its storage for this emulator until it stops). Run this command again for another browser.');
};

export default dashboard;
