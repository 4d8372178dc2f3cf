// `node start-loop.js <starts>`: imports the emulator, then starts and closes an in-memory emulator
// <starts> times in this one process (as a plugin's test file may, one per test), then does the same
// with a bare fastify app of one route, and prints both series of start times (ms) as JSON.
import Fastify from 'fastify';
import { startEmulator } from '../../dist/emulator/index.js';

const starts = Number(process.argv[2] ?? 10);
const ms = (since) => Number(process.hrtime.bigint() - since) / 1e6;

const emulator = [];
for (let i = 0; i < starts; i++) {
  const t0 = process.hrtime.bigint();
  const emu = await startEmulator();
  emulator.push(ms(t0));
  await emu.close();
}
const bare = [];
for (let i = 0; i < starts; i++) {
  const t0 = process.hrtime.bigint();
  const app = Fastify({ logger: false });
  app.get('/', async () => ({ ok: true }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  bare.push(ms(t0));
  await app.close();
}
console.log(JSON.stringify({ emulator, bare }));
