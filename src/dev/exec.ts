import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { constants } from 'node:os';
import { UserError, EXIT } from '../errors.js';

/** What `plugsmith emulator exec` puts in the command's environment: the emulator's (and with --deploy, the plugin's). */
export function execEnvironment(
  emulator: {
    url: string;
    messagingUrl: string;
    token: string | null;
    apiKey: string | null;
    orgId: string | null;
    adminToken: string;
  },
  plugin?: { id: string; webhookSecret: string },
): Record<string, string> {
  return {
    PLUGSMITH_BASE_URL: emulator.url,
    PLUGSMITH_MESSAGING_URL: emulator.messagingUrl,
    PLUGSMITH_TOKEN: emulator.token ?? '',
    PLUGSMITH_API_KEY: emulator.apiKey ?? '',
    PLUGSMITH_ORG_ID: emulator.orgId ?? '',
    PLUGSMITH_ADMIN_TOKEN: emulator.adminToken,
    ...(plugin
      ? { PLUGSMITH_PLUGIN_ID: plugin.id, PLUGSMITH_WEBHOOK_SECRET: plugin.webhookSecret }
      : {}),
  };
}

/**
 * Runs a shell command line (one word) or a program and its arguments on this terminal, passing SIGINT and SIGTERM on;
 * resolves with its exit code, or 128 + the number of the signal that ended it.
 */
export async function runCommand(words: string[], environment: NodeJS.ProcessEnv): Promise<number> {
  const child =
    words.length === 1
      ? spawn(words[0], { shell: true, stdio: 'inherit', env: environment })
      : spawn(words[0], words.slice(1), { stdio: 'inherit', env: environment });
  const forward = (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  };
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  try {
    const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
    return signal ? 128 + (constants.signals[signal] ?? 0) : (code ?? 1);
  } catch (error) {
    const { code } = error as NodeJS.ErrnoException;
    throw new UserError(
      `cannot run ${words[0]}: ${code === 'ENOENT' ? 'no such command' : (error as Error).message}`,
      code === 'ENOENT' ? 127 : EXIT.UNEXPECTED,
    );
  } finally {
    process.off('SIGINT', forward);
    process.off('SIGTERM', forward);
  }
}
