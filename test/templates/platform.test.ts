import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../emulator/index.js';
import { emulator } from '../kit/index.js';
import { createClient, paginate, type PlatformClient } from '../../src/client/index.js';

// The generated project's own platform module (templates/common/src/platform.ts: `fetch` with an
// installation token, in place of plugsmith/client at runtime) against the emulator: a DATA_PROVIDER
// installation lists a repository of more files than one page holds, gets an access URL, and its
// errors name the call and the status but never the token. Loaded by URL, as the project's code is
// not part of this package's build.

interface FileLike {
  id: string;
  fileName: string;
}
interface TemplatePlatform {
  platformAs(
    baseUrl: string,
    token: string,
  ): {
    agentMessages: {
      write(
        agentId: string,
        conversationId: string,
        message: { content: string; isStreaming: boolean },
      ): Promise<{ id: string }>;
    };
    repositories: { files: { listAll(repositoryId: string): Promise<FileLike[]> } };
    uploads: { accessUrl(fileId: string): Promise<{ url?: string }> };
  };
}

const MODULE = pathToFileURL(
  join(resolve(import.meta.dirname, '../..'), 'templates/common/src/platform.ts'),
).href;
const REPOSITORY = 'repo_docs';
/** More than the 100 files a page of `listAll` asks for. */
const FILES = 105;

let emu: Emulator;
let owner: PlatformClient;
let template: TemplatePlatform;
let token = '';
let close: () => Promise<void>;

beforeAll(async () => {
  template = (await import(MODULE)) as TemplatePlatform;
  emu = await emulator();
  owner = createClient({
    baseUrl: emu.url,
    messagingUrl: emu.messagingUrl,
    token: emu.token!,
    apiKey: emu.apiKey!,
  });
  // A webhook that answers the challenge and keeps the installation token PLUGIN_INSTALLED brings.
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const event = JSON.parse(body) as {
        type: string;
        data: { challenge?: string; accessToken?: string };
      };
      if (event.type === 'PLUGIN_INSTALLED') token = event.data.accessToken!;
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(
          JSON.stringify(
            event.type === 'WEBHOOK_CHALLENGE' ? { challenge: event.data.challenge } : { ok: true },
          ),
        );
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  close = () => new Promise((done) => server.close(() => done()));
  const plugin = await owner.plugins.createInOrg(emu.orgId!, {
    name: 'platform-module-test',
    type: 'DATA_PROVIDER',
    events: ['REPOSITORY_FILE_ADDED'],
    scopes: ['REPOSITORY_FILES_READ'],
    webhookUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook`,
  });
  expect((await owner.plugins.verifyWebhook(plugin.id)).verified).toBe(true);
  await owner.dataProviders.install(REPOSITORY, {
    name: 'docs',
    pluginId: plugin.id,
    events: ['REPOSITORY_FILE_ADDED'],
    scopes: ['REPOSITORY_FILES_READ'],
  });
  await emu.waitForDelivery({ type: 'PLUGIN_INSTALLED', pluginId: plugin.id });
  expect(token).not.toBe('');

  const existing = await countFiles();
  for (let i = existing; i < FILES; i++) {
    const body = Buffer.from(`file ${i}`);
    const { files } = await owner.uploads.generateUploadUrls({
      files: [{ fileName: `f${i}.txt`, contentType: 'text/plain', fileSize: body.length }],
    });
    await owner.uploads.uploadFile(files[0].signedUrl, Readable.from([body]), {
      size: body.length,
      contentType: 'text/plain',
    });
    await owner.uploads.setStatus({ fileId: files[0].fileRecord.id, status: 'UPLOADED' });
    await owner.repositories.files.add(REPOSITORY, files[0].fileRecord.id);
  }
}, 120_000);

afterAll(async () => {
  await owner?.close();
  await close?.();
});

async function countFiles(): Promise<number> {
  let n = 0;
  for await (const _ of paginate((q) => owner.repositories.files.list(REPOSITORY, q), {
    limit: 100,
  }))
    n++;
  return n;
}

describe("the generated project's platform module", () => {
  it('lists every file of a repository, page after page, with the installation token, and gets an access URL', async () => {
    const platform = template.platformAs(emu.url, token);
    const files = await platform.repositories.files.listAll(REPOSITORY);
    expect(files.length).toBeGreaterThanOrEqual(FILES);
    expect(files.length).toBe(await countFiles());
    expect(new Set(files.map((f) => f.id)).size).toBe(files.length);
    const access = await platform.uploads.accessUrl(files[files.length - 1].id);
    expect(access.url).toMatch(/^https?:\/\//);
    // A base URL with a trailing slash is the same platform.
    expect(
      (await template.platformAs(`${emu.url}/`, token).repositories.files.listAll(REPOSITORY))
        .length,
    ).toBe(files.length);
  });

  it('fails with the call and the status, never the token: an unknown token, a scope the installation lacks', async () => {
    const bogus = 'pit_not_a_real_token_1234567890';
    const unknown = await template
      .platformAs(emu.url, bogus)
      .repositories.files.listAll(REPOSITORY)
      .catch((e: Error) => e);
    expect(unknown).toBeInstanceOf(Error);
    expect((unknown as Error).message).toMatch(
      /^GET \/api\/repositories\/repo_docs\/files answered HTTP 401: /,
    );
    expect((unknown as Error).message).not.toContain(bogus);

    const unscoped = await template
      .platformAs(emu.url, token)
      .agentMessages.write('agent_nova', 'conv_x', { content: 'hi', isStreaming: false })
      .catch((e: Error) => e);
    expect((unscoped as Error).message).toMatch(
      /^POST \/api\/agents\/agent_nova\/conversations\/conv_x\/messages answered HTTP 40[34]: /,
    );
    expect((unscoped as Error).message).not.toContain(token);
  });
});
