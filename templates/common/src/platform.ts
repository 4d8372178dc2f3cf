// Types only (the platform's records, from plugsmith, a devDependency): they vanish at build.
import type {
  AgentMessageWrite,
  FileAccess,
  FileRecord,
  Message,
  Pagination,
} from 'plugsmith/client';

/** How long one call to the platform may take. */
const TIMEOUT_MS = 10_000;

/**
 * The platform's management API as one installation of the plugin: every call carries the
 * installation token (from PLUGIN_INSTALLED), so it may do what the instance's scopes allow.
 * Only the calls this plugin makes, on the built-in `fetch`; add the ones you need the same way
 * (the paths are in the platform's API reference). The token never appears in an error message.
 */
export function platformAs(baseUrl: string, token: string) {
  async function call<T>(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ data: T; pagination?: Pagination }> {
    const url = new URL(path.replace(/^\//, ''), baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
    const response = await fetch(url, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    const text = await response.text();
    let parsed:
      | { ok?: boolean; data?: T; meta?: { pagination?: Pagination }; error?: { message?: string } }
      | undefined;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: described below
    }
    if (!response.ok || parsed?.ok === false) {
      throw new Error(
        `${method} ${url.pathname} answered HTTP ${response.status}: ${parsed?.error?.message ?? (text.slice(0, 200) || 'no body')}`,
      );
    }
    if (parsed === undefined)
      throw new Error(
        `${method} ${url.pathname} answered HTTP ${response.status} without JSON: is PLUGSMITH_BASE_URL the platform's management API?`,
      );
    return { data: parsed.data as T, pagination: parsed.meta?.pagination };
  }

  const segment = encodeURIComponent;

  return {
    agentMessages: {
      /** Writes a character's message into an agent's conversation (scope AGENT_MESSAGE_WRITE). */
      write: async (
        agentId: string,
        conversationId: string,
        message: AgentMessageWrite,
      ): Promise<Message> =>
        (
          await call<Message>(
            'POST',
            `/api/agents/${segment(agentId)}/conversations/${segment(conversationId)}/messages`,
            message,
          )
        ).data,
    },
    repositories: {
      files: {
        /** Every file of a repository, page after page (scope REPOSITORY_FILES_READ). */
        listAll: async (repositoryId: string): Promise<FileRecord[]> => {
          const files: FileRecord[] = [];
          let query = '@limit=100';
          // Bounded, and stopped by an empty page, so that a confused server cannot keep it looping.
          for (let pages = 0; pages < 1000; pages++) {
            const { data, pagination } = await call<FileRecord[]>(
              'GET',
              `/api/repositories/${segment(repositoryId)}/files?${query}`,
            );
            files.push(...data);
            if (!pagination?.hasNext || data.length === 0) break;
            if (pagination.type === 'cursor') {
              if (!pagination.nextCursor) break;
              query = `@limit=100&@cursor=${segment(pagination.nextCursor)}`;
            } else {
              query = `@limit=100&@page=${pagination.page + 1}`;
            }
          }
          return files;
        },
      },
    },
    uploads: {
      /** A short-lived URL to a file's bytes (GET /api/access/:fileId). */
      accessUrl: async (fileId: string): Promise<FileAccess> =>
        (await call<FileAccess>('GET', `/api/access/${segment(fileId)}`)).data,
    },
  };
}

/** The platform as one installation sees it. */
export type Platform = ReturnType<typeof platformAs>;
