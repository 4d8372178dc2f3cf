import type { CommandHandler } from '../types.js';
import { loadConfig } from '../../config/profiles.js';
import { printResult, table } from '../../ui/output.js';

/** Lists profiles without their secrets. */
const list: CommandHandler<object> = async ({ global, io }) => {
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

export default list;
