import type { CommandHandler, TargetFlags } from '../types.js';
import { emulatorTarget } from './target.js';
import { note } from '../../ui/output.js';
import { openInBrowser } from '../../ui/open-browser.js';

/** Prints (and with --open opens) a fresh single-use login link of the running emulator's dashboard. */
const dashboard: CommandHandler<{ open?: boolean } & TargetFlags> = async (input) => {
  const { io, global } = input;
  // No emulator found is exit 4; one named that does not answer is a network error, 7, like every admin command.
  const { url, admin } = await emulatorTarget(input);
  const { dashboardUrl } = await admin.dashboardLink();
  if (global.json) io.stdout.write(JSON.stringify({ url, dashboardUrl }, null, 2) + '\n');
  else io.stdout.write(`Dashboard: ${dashboardUrl}\n`);
  if (input.options.open) {
    const problem = await openInBrowser(dashboardUrl);
    if (problem) note(io, global, `could not open a browser (${problem}): open the link above yourself, or set BROWSER`);
  }
  if (!global.json) note(io, global, 'The link works once: it signs this browser in (it keeps the session in its storage for this emulator until it stops). Run this command again for another browser.');
};

export default dashboard;
