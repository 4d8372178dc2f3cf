import type { ApiKind, RequestSpec, Transport } from './transport.js';
import type { Page } from './types.js';

type CallInit = Pick<RequestSpec, 'query' | 'body' | 'options' | 'idempotent' | 'accept'>;

/** One API (management or messaging) of one client: base URL, credentials, envelope handling. */
export class Api {
  constructor(
    private readonly transport: Transport,
    readonly kind: ApiKind,
    private readonly baseUrl: string | undefined,
    private readonly authorization: () => string | undefined,
    /** Headers every call of this API carries (the admin credential on `/_emulator`). */
    private readonly headers?: () => Record<string, string> | undefined,
  ) {}

  /** Sends a request and returns the envelope's `data`. */
  async data<T>(method: string, path: string, init: CallInit = {}): Promise<T> {
    const { data } = await this.transport.json<T>(this.spec(method, path, init));
    return data;
  }

  /** Sends a list request and returns `{ data, pagination, meta }`. */
  async page<T>(method: string, path: string, init: CallInit = {}): Promise<Page<T>> {
    const { data, meta } = await this.transport.json<T[]>(this.spec(method, path, init));
    return { data: Array.isArray(data) ? data : [], pagination: meta?.pagination, meta };
  }

  /** Sends a request and returns the envelope's `data` and `meta` with the HTTP status. */
  call<T>(method: string, path: string, init: CallInit = {}) {
    return this.transport.call<T>(this.spec(method, path, init));
  }

  /** Opens a streaming GET (server-sent events). */
  stream(path: string, init: CallInit = {}) {
    return this.transport.stream(this.spec('GET', path, init));
  }

  /** The absolute URL of a path of this API. */
  url(path: string): string {
    if (this.baseUrl === undefined) {
      throw new Error(
        `no ${this.kind} URL configured: pass ${this.kind === 'messaging' ? 'messagingUrl' : 'baseUrl'} to createClient`,
      );
    }
    return this.baseUrl + path;
  }

  private spec(method: string, path: string, init: CallInit): RequestSpec {
    return {
      ...init,
      api: this.kind,
      method,
      url: this.url(path),
      authorization: this.authorization(),
      headers: this.headers?.(),
    };
  }
}
