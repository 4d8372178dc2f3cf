import { checkedHttpUrl } from './url.js';

/** Every environment variable plugsmith reads, one typed accessor each: nothing else reads process.env. */
export const env = {
  /** User token; overrides the profile's. */
  token: () => process.env.PLUGSMITH_TOKEN || undefined,
  /** A plugin's webhook secret (`emulator exec --deploy` sets it): what `check` and `trigger --direct` sign with. */
  webhookSecret: () => process.env.PLUGSMITH_WEBHOOK_SECRET || undefined,
  /** The running emulator's admin credential (`x-plugsmith-admin`); overrides the one in its state file. */
  adminToken: () => process.env.PLUGSMITH_ADMIN_TOKEN || undefined,
  /** The org that org-scoped commands (and `dev`) use, like --org; overrides the profile's. */
  orgId: () => process.env.PLUGSMITH_ORG_ID || undefined,
  /** Messaging API key; overrides the profile's. */
  apiKey: () => process.env.PLUGSMITH_API_KEY || undefined,
  /** Management API base URL; overrides the profile's. */
  baseUrl: () => urlVariable('PLUGSMITH_BASE_URL'),
  /** Messaging API base URL; overrides the profile's. */
  messagingUrl: () => urlVariable('PLUGSMITH_MESSAGING_URL'),
  /** Seconds to wait for each answer of the platform (like --timeout); checked where it is used. */
  timeout: () => process.env.PLUGSMITH_TIMEOUT || undefined,
  /** Profile to use instead of the config file's current one. */
  profile: () => process.env.PLUGSMITH_PROFILE || undefined,
  /** The emulator to act on (a URL or a project/data folder), like the global --emulator option. */
  emulator: () => process.env.PLUGSMITH_EMULATOR || undefined,
  /** Folder of the config file and the emulators' state files (default: the user's config dir). */
  configDir: () => process.env.PLUGSMITH_CONFIG_DIR || undefined,
  /** XDG base directory for configuration. */
  xdgConfigHome: () => process.env.XDG_CONFIG_HOME || undefined,
  /** XDG base directory for caches (plugsmith keeps packed copies of itself there, for `init`). */
  xdgCacheHome: () => process.env.XDG_CACHE_HOME || undefined,
  /** Set by CI systems: never prompt. */
  ci: () => process.env.CI === 'true' || process.env.CI === '1',
  /** Disables colour (https://no-color.org). */
  noColor: () => process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== '',
  /** S3-compatible storage for the emulator's uploads (used when the endpoint is set). */
  s3Endpoint: () => process.env.PLUGSMITH_S3_ENDPOINT || undefined,
  s3AccessKey: () => process.env.PLUGSMITH_S3_ACCESS_KEY || undefined,
  s3SecretKey: () => process.env.PLUGSMITH_S3_SECRET_KEY || undefined,
  s3Bucket: () => process.env.PLUGSMITH_S3_BUCKET || undefined,
  s3Region: () => process.env.PLUGSMITH_S3_REGION || undefined,
  /** OpenAI-compatible chat-completions backend for characters with the `openai` engine. */
  llmBaseUrl: () => process.env.PLUGSMITH_LLM_BASE_URL || undefined,
  llmModel: () => process.env.PLUGSMITH_LLM_MODEL || undefined,
  llmApiKey: () => process.env.PLUGSMITH_LLM_API_KEY || undefined,
  /** The proxy for http:// URLs (http_proxy, else HTTP_PROXY); the client then loads undici's EnvHttpProxyAgent. */
  httpProxy: () => lowercaseFirst('http_proxy', 'HTTP_PROXY'),
  /** The proxy for https:// URLs (https_proxy, else HTTPS_PROXY; else the http one). */
  httpsProxy: () => lowercaseFirst('https_proxy', 'HTTPS_PROXY'),
  /** Hosts reached without the proxy (no_proxy, else NO_PROXY): comma-separated names, `.domain` suffixes, `*`. */
  noProxy: () => lowercaseFirst('no_proxy', 'NO_PROXY'),
  /** The browser `--open` runs with the dashboard's URL (a command, as in many Unix tools); default: the system's. */
  browser: () => process.env.BROWSER || undefined,
} as const;

/** A URL variable: unset, or an absolute http(s) URL (else a usage error naming the variable). */
function urlVariable(name: 'PLUGSMITH_BASE_URL' | 'PLUGSMITH_MESSAGING_URL'): string | undefined {
  const value = process.env[name];
  return value ? checkedHttpUrl(name, value) : undefined;
}

/** A variable spelled both ways, as curl and undici read proxies: the lowercase one when set, else the uppercase one. */
function lowercaseFirst(lower: string, upper: string): string | undefined {
  return process.env[lower] || process.env[upper] || undefined;
}
