import type { RepositoryFileAddedEvent, RepositoryFileRemovedEvent } from 'plugsmith/webhooks';
import type { PluginConfig } from './config.js';
import { installationHandlers } from './installations.js';
import { platformAs } from './platform.js';
import { startWebhookServer, type WebhookServer } from './server.js';
import { TokenStore } from './token-store.js';

/** A file of a repository this plugin provides data for, with the text it read. */
export interface Document {
  fileId: string;
  fileName: string;
  repositoryId: string;
  contentType: string;
  text: string;
  readAt: string;
}

/** The running data provider. */
export interface Plugin extends WebhookServer {
  tokens: TokenStore;
  /** What the plugin has read, by file id: replace this with your index, search engine, vector store… */
  documents: Map<string, Document>;
}

/** Files larger than this are listed but not read. */
const MAX_READ_BYTES = 5 * 1024 * 1024;

/**
 * A DATA_PROVIDER: installed on a repository, it is told of every file added to it
 * (REPOSITORY_FILE_ADDED), lists the repository's files and reads the new one with the
 * installation's token (scope REPOSITORY_FILES_READ), and forgets removed files.
 */
export async function startPlugin(config: PluginConfig): Promise<Plugin> {
  const tokens = new TokenStore(config.tokenFile);
  const documents = new Map<string, Document>();

  async function fileAdded(event: RepositoryFileAddedEvent): Promise<object> {
    const installation = await tokens.get(event.pluginInstanceId);
    // Unknown instance: answering 500 makes the platform retry once PLUGIN_INSTALLED has arrived.
    if (!installation) throw new Error(`no installation token for ${event.pluginInstanceId}`);
    const { repositoryId, file } = event.data;
    const platform = platformAs(config.platformUrl, installation.accessToken);
    // The repository's files, as the instance may see them (GET /api/repositories/:id/files).
    const files = await platform.repositories.files.listAll(repositoryId);
    const listed = files.find((f) => f.id === file.id);
    if (!listed) return { ok: true, skipped: 'the file is no longer in the repository' };
    if ((listed.fileSize ?? 0) > MAX_READ_BYTES) return { ok: true, skipped: 'too large to read' };
    // A short-lived URL to the file's bytes (GET /api/access/:fileId).
    const access = await platform.uploads.accessUrl(file.id);
    if (!access.url) throw new Error(`no access URL for ${file.id}`);
    const response = await fetch(access.url);
    if (!response.ok) throw new Error(`reading ${file.fileName} answered ${response.status}`);
    const text = await response.text();
    documents.set(file.id, {
      fileId: file.id,
      fileName: listed.fileName,
      repositoryId,
      contentType: listed.contentType ?? 'application/octet-stream',
      text,
      readAt: new Date().toISOString(),
    });
    return { ok: true, filesInRepository: files.length, bytesRead: Buffer.byteLength(text) };
  }

  function fileRemoved(event: RepositoryFileRemovedEvent): void {
    documents.delete(event.data.file.id);
  }

  const server = await startWebhookServer({
    port: config.port,
    host: config.host,
    secret: config.webhookSecret,
    log: config.log,
    eventShapes: config.eventShapes,
    on: {
      ...installationHandlers(tokens),
      REPOSITORY_FILE_ADDED: fileAdded,
      REPOSITORY_FILE_REMOVED: fileRemoved,
    },
  });
  return { ...server, tokens, documents };
}
