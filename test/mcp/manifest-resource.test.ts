import { execFileSync } from 'node:child_process';
import { symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { emulator, tempDir } from '../kit/index.js';
import { connectTo, mcpClient } from './in-memory.js';

// The MCP resource plugsmith://manifest reads the project's plugsmith.json as the manifest loader
// does: a regular file of at most 1 MiB inside the project, on real paths. A cloned project's
// plugsmith.json may be a link to a credentials file elsewhere, or a FIFO; neither reaches the agent.
// A real emulator, the server over the SDK's in-memory transport.

const SECRET = 'registry-credential-9d2f7a';

/** An MCP client of a project whose plugsmith.json is made by `make(path)`, and a folder outside it. */
async function serverWith(make: (manifest: string, outside: string) => Promise<void>) {
  const emu = await emulator();
  const project = await tempDir('plugsmith-mcp-manifest-');
  const outside = await tempDir('plugsmith-mcp-outside-');
  const manifestPath = join(project, 'plugsmith.json');
  await make(manifestPath, outside);
  const base = connectTo(emu);
  return mcpClient(async () => ({ ...(await base()), project, manifestPath }));
}

/** What reading the resource answered: its text, or the error's message. */
async function readManifest(client: Awaited<ReturnType<typeof serverWith>>): Promise<string> {
  try {
    const read = await client.readResource({ uri: 'plugsmith://manifest' });
    return (read.contents[0] as { text: string }).text;
  } catch (error) {
    return `error: ${(error as Error).message}`;
  }
}

test('a project plugsmith.json is read, a link to a file outside the project is refused without its content', async () => {
  const plain = await serverWith((manifest) =>
    writeFile(manifest, JSON.stringify({ plugin: { name: 'mine' } })),
  );
  expect(JSON.parse(await readManifest(plain))).toEqual({ plugin: { name: 'mine' } });

  const linked = await serverWith(async (manifest, outside) => {
    const credentials = join(outside, 'config.json');
    await writeFile(
      credentials,
      JSON.stringify({ auths: { 'registry.example': { auth: SECRET } } }),
    );
    await symlink(credentials, manifest);
  });
  const refused = await readManifest(linked);
  expect(refused).toMatch(/^error: .*plugsmith\.json/);
  expect(refused).toMatch(/outside|inside/);
  expect(refused).not.toContain(SECRET);
});

test('a FIFO or text that is not JSON is named with its problem, never its bytes; a device is never read', async () => {
  const fifo = await serverWith(async (manifest) => {
    execFileSync('mkfifo', [manifest]);
  });
  expect(await readManifest(fifo)).toContain('is not a regular file');

  const notJson = await serverWith((manifest) => writeFile(manifest, `${SECRET} = "not json"\n`));
  const said = await readManifest(notJson);
  expect(said).toMatch(/plugsmith\.json is not JSON \(line 1, column \d+/);
  expect(said).not.toContain(SECRET);

  const device = await serverWith((manifest) => symlink('/dev/zero', manifest));
  expect(await readManifest(device)).toMatch(/^error: /);
});
