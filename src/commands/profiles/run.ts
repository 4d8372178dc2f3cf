import type { RunCommand } from '../types.js';
import { loadConfig, saveConfig } from '../../config/profiles.js';
import { UserError, EXIT } from '../../errors.js';
import { printResult, table } from '../../ui/output.js';

/** Lists profiles without their secrets. */
export const list: RunCommand<object> = async ({ global, io }) => {
  const config = await loadConfig();
  const rows = Object.entries(config.profiles).map(([name, p]) => ({
    name,
    current: name === config.current,
    baseUrl: p.baseUrl,
    messagingUrl: p.messagingUrl ?? null,
    orgId: p.orgId ?? null,
    local: Boolean(p.local),
  }));
  printResult(io, global, rows, () =>
    rows.length === 0
      ? 'no profiles: run `plugsmith login --local` or `plugsmith login --base-url URL`\n'
      : table(rows, [
          { header: '', value: (r) => (r.current ? '*' : ' ') },
          { header: 'NAME', value: (r) => r.name },
          { header: 'BASE URL', value: (r) => r.baseUrl },
          { header: 'MESSAGING URL', value: (r) => r.messagingUrl },
          { header: 'ORG', value: (r) => r.orgId },
        ]),
  );
};

/** Makes a profile current. */
export const use: RunCommand<object> = async ({ args, global, io }) => {
  const name = args[0];
  const config = await loadConfig();
  if (!config.profiles[name]) {
    const known = Object.keys(config.profiles);
    throw new UserError(
      `no profile named "${name}"${known.length ? ` (profiles: ${known.join(', ')})` : ''}`,
      EXIT.NOT_FOUND,
    );
  }
  config.current = name;
  await saveConfig(config);
  printResult(io, global, { current: name }, () => `now using profile ${name}\n`);
};

/** Deletes a profile (and un-sets it as current). */
export const remove: RunCommand<object> = async ({ args, global, io }) => {
  const name = args[0];
  const config = await loadConfig();
  if (!config.profiles[name]) throw new UserError(`no profile named "${name}"`, EXIT.NOT_FOUND);
  delete config.profiles[name];
  if (config.current === name) config.current = undefined;
  await saveConfig(config);
  printResult(io, global, { removed: name }, () => `removed profile ${name}\n`);
};
