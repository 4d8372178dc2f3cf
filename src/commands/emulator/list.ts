import type { CommandHandler } from '../types.js';
import { listEmulators } from '../../config/emulators.js';
import { printResult, table } from '../../ui/output.js';

/** "3m 12s", "2h 5m": how long an emulator has run. */
function uptime(startedAt: string): string {
  const s = Math.max(0, Math.round((Date.now() - Date.parse(startedAt)) / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s`;
  return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
}

/** Lists the running emulators (one per project), most recently started first; no credentials are printed. */
const list: CommandHandler<object> = async ({ io, global }) => {
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
          { header: 'UPTIME', value: (r) => uptime(r.startedAt) },
        ]) + '\n',
  );
};

export default list;
