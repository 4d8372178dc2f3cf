import type { PlatformClient, TraceEvent } from '../client/index.js';
import { resolveSettings, type Settings } from '../config/profiles.js';
import { UserError, EXIT } from '../errors.js';
import type { CommandInput } from './types.js';

/** Flags that pick the target and credentials; every API command accepts them through its profile. */
export interface TargetFlags {
  baseUrl?: string;
  messagingUrl?: string;
  org?: string;
}

/** The merged settings for a command (flags > environment > profile). */
export function settingsFor(input: CommandInput): Promise<Settings> {
  const o = input.options as TargetFlags;
  return resolveSettings({ profile: input.global.profile, baseUrl: o.baseUrl, messagingUrl: o.messagingUrl, org: o.org });
}

/**
 * A client for the command's target. `needs` says which credentials the command cannot do
 * without; a missing one is an authentication error naming how to provide it.
 */
export async function clientFor(
  input: CommandInput,
  needs: { token?: boolean; apiKey?: boolean; messaging?: boolean } = { token: true },
): Promise<{ client: PlatformClient; settings: Settings }> {
  const settings = await settingsFor(input);
  if (!settings.baseUrl) {
    throw new UserError('no platform to talk to: run `plugsmith login --local` (emulator) or `plugsmith login --base-url URL`, or set PLUGSMITH_BASE_URL', EXIT.AUTH);
  }
  if (needs.token && !settings.token) {
    throw new UserError('no token: run `plugsmith login` or set PLUGSMITH_TOKEN', EXIT.AUTH);
  }
  if (needs.apiKey && !settings.apiKey) {
    throw new UserError('no messaging API key: run `plugsmith login --api-key -` or set PLUGSMITH_API_KEY', EXIT.AUTH);
  }
  if (needs.messaging && !settings.messagingUrl) {
    throw new UserError('no messaging URL: run `plugsmith login --messaging-url URL` or set PLUGSMITH_MESSAGING_URL', EXIT.AUTH);
  }
  const { createClient } = await import('../client/index.js');
  const trace = input.global.verbose ? (e: TraceEvent) => input.io.stderr.write(formatTrace(e) + '\n') : undefined;
  const client = createClient({
    baseUrl: settings.baseUrl,
    messagingUrl: settings.messagingUrl,
    token: settings.token,
    apiKey: settings.apiKey,
    userAgent: 'plugsmith-cli',
    onTrace: trace,
  });
  return { client, settings };
}

function formatTrace(e: TraceEvent): string {
  const t = e as unknown as Record<string, unknown>;
  const status = t.status ?? t.error ?? '';
  const ms = typeof t.durationMs === 'number' ? ` ${Math.round(t.durationMs)}ms` : '';
  return `> ${t.method} ${t.url} ${status}${ms}`;
}

/** The org a command acts in: --org, else the profile's, else a usage error. */
export function orgOf(settings: Settings): string {
  if (!settings.orgId) throw new UserError('no org: pass --org ORG_ID (or log in with `plugsmith login --org ORG_ID`)', EXIT.USAGE);
  return settings.orgId;
}
