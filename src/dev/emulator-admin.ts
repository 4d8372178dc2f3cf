import { request } from 'undici';
import { unwrap } from '../client/envelope.js';
import { errorCode, NetworkError } from '../client/errors.js';
import type { Delivery, Loose, PluginInstance } from '../client/types.js';
import type { EventEmit, ImportResult, ResetResult } from '../contract/index.js';
import { ADMIN_HEADER } from '../client/client.js';

/** A failed request as the client reports it; undici's timeouts are ETIMEDOUT, as in the client. */
function networkError(error: unknown, method: string, url: string): NetworkError {
  const code = errorCode(error);
  return new NetworkError({ code: code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' ? 'ETIMEDOUT' : code, method, url, cause: error });
}

/** The emulator's admin routes that the typed client does not cover (export, import, reset, emit, instances, agents). */
export class EmulatorAdmin {
  /** `adminToken` is sent as `x-plugsmith-admin`; `timeoutMs` bounds each answer (default undici's 300 s; 0: none). */
  constructor(
    readonly url: string,
    private readonly options: { adminToken?: string; timeoutMs?: number } = {},
  ) {}

  private async call<T>(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown): Promise<T> {
    const url = this.url.replace(/\/+$/, '') + path;
    let response;
    try {
      response = await request(url, {
        method,
        headers: {
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(this.options.adminToken ? { [ADMIN_HEADER]: this.options.adminToken } : {}),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        headersTimeout: this.options.timeoutMs,
        bodyTimeout: this.options.timeoutMs,
      });
    } catch (error) {
      throw networkError(error, method, url);
    }
    let text: string;
    try {
      text = await response.body.text();
    } catch (error) {
      throw networkError(error, method, url);
    }
    return unwrap<T>({ status: response.statusCode, contentType: String(response.headers['content-type'] ?? ''), text, method, url }).data;
  }

  /** GET /_emulator/health */
  health(): Promise<Record<string, unknown>> {
    return this.call('GET', '/_emulator/health');
  }

  /** POST /_emulator/dashboard/login-links: a fresh single-use login link of the web dashboard. */
  dashboardLink(): Promise<{ dashboardUrl: string }> {
    return this.call('POST', '/_emulator/dashboard/login-links');
  }

  /** GET /_emulator/export: every record of every collection. */
  export(): Promise<Record<string, unknown>> {
    return this.call('GET', '/_emulator/export');
  }

  /** POST /_emulator/import: replaces the store with an export. */
  import(file: unknown): Promise<ImportResult> {
    return this.call('POST', '/_emulator/import', file);
  }

  /** POST /_emulator/reset: back to the seed. */
  reset(): Promise<ResetResult> {
    return this.call('POST', '/_emulator/reset', {});
  }

  /** POST /_emulator/events: emits an event with this payload (signed and logged like any delivery). */
  emit(body: Loose<EventEmit>): Promise<Delivery> {
    return this.call('POST', '/_emulator/events', body);
  }

  /** GET /_emulator/instances?pluginId=…: a plugin's instances on every kind of entity, newest first. */
  instancesOf(pluginId: string): Promise<PluginInstance[]> {
    return this.call('GET', `/_emulator/instances?pluginId=${encodeURIComponent(pluginId)}&@sortBy=createdAt&@sortOrder=desc&@limit=100`);
  }

  /** GET /_emulator/faults: the fault profile and seed in force. */
  faults(): Promise<{ on: boolean; profile: string; seed: string }> {
    return this.call('GET', '/_emulator/faults');
  }

  /** PUT /_emulator/faults: sets the fault profile ('off' turns it off) and seed (default: a random one). */
  setFaults(profile: string, seed?: string): Promise<{ on: boolean; profile: string; seed: string }> {
    return this.call('PUT', '/_emulator/faults', seed === undefined ? { profile } : { profile, seed });
  }

  /** GET /_emulator/agents?orgId=… */
  agentsOf(orgId: string): Promise<Array<{ id: string; name: string }>> {
    return this.call('GET', `/_emulator/agents?orgId=${encodeURIComponent(orgId)}&@limit=100`);
  }
}
