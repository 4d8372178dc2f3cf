// Run by embedded-memory.test.ts in a child `node --expose-gc` (bundled by esbuild): the embedded
// store on a real port, a streamed upload past the 100 MB default paused halfway, the memory the
// process holds then, and the answer. Prints one line of JSON. In its own process so that the flag
// (and a full collection before each reading) stays out of the test files' shared worker.
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import Fastify from 'fastify';
import { request } from 'undici';
import { MAX_FILE_BYTES } from '#contract';
import { installErrorHandling } from '../../../../emulator/http.js';
import { EmbeddedStorage } from '../../../../emulator/uploads/storage/embedded.js';
import { embeddedStorageRoutes } from '../../../../emulator/uploads/storage/embedded-routes.js';
import { objectKey } from '../../../../emulator/uploads/storage/keys.js';
import { generated } from './generated-body.js';

/** What the child prints. */
export interface MemoryReading {
  status: number;
  body: unknown;
  /** Whether the store kept an object under the key. */
  stored: boolean;
  /** Temporary upload files left once the request was answered. */
  leftovers: string[];
  /** The least array-buffer memory above the baseline over four readings while the upload was paused halfway. */
  held: number;
}

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

const rootDir = await mkdtemp(join(tmpdir(), 'plugsmith-embedded-memory-'));
const storage = new EmbeddedStorage({
  rootDir,
  baseUrl: () => baseUrl,
  secret: 'test-secret-of-sixteen-bytes-or-more',
});
await storage.init();
const app = Fastify({ logger: false, bodyLimit: 1024 * 1024, forceCloseConnections: true });
installErrorHandling(app);
await app.register(embeddedStorageRoutes(storage), { prefix: '/_storage' });
await app.listen({ port: 0, host: '127.0.0.1' });
const baseUrl = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;

const temporary = () => readdir(join(rootDir, 'tmp'));
async function temporaryBytes(): Promise<number> {
  let total = 0;
  for (const name of await temporary())
    total += (await stat(join(rootDir, 'tmp', name)).catch(() => ({ size: 0 }))).size;
  return total;
}

try {
  const key = objectKey('file_23', 'too-big.bin', false);
  const url = await storage.presignPut(key, { expiresInSeconds: 60 });
  const half = 48 * 1024 * 1024;
  let resume!: () => void;
  const paused = new Promise<void>((resolve) => (resume = resolve));
  const body = Readable.from(
    (async function* () {
      yield* generated(half);
      await paused;
      yield* generated(MAX_FILE_BYTES + 1 - half);
    })(),
  );
  gc();
  const baseline = process.memoryUsage().arrayBuffers;
  const answer = request(url, { method: 'PUT', body });
  // Once the first half is on disk, the client waits; what the process holds then is what it retains.
  const deadline = Date.now() + 30_000;
  while ((await temporaryBytes()) < half) {
    if (Date.now() > deadline) throw new Error('the first half was not on disk within 30 s');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  // Buffers of the last writes linger a few milliseconds; a retained body would show in every reading.
  let held = Number.POSITIVE_INFINITY;
  for (let reading = 0; reading < 4; reading++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    gc();
    held = Math.min(held, process.memoryUsage().arrayBuffers - baseline);
  }
  resume();
  const response = await answer;
  const text = await response.body.text();
  const reading: MemoryReading = {
    status: response.statusCode,
    body: JSON.parse(text),
    stored: (await storage.stat(key)) !== null,
    leftovers: await temporary(),
    held,
  };
  process.stdout.write(`${JSON.stringify(reading)}\n`);
} finally {
  await app.close();
  await storage.close();
  await rm(rootDir, { recursive: true, force: true });
}
