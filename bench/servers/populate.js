// Fills a data dir with N plugins (half public, tags from a pool of 20) straight through the store,
// then prints how long it took. Usage: node populate.js <dataDir> <count>
import { startEmulator } from '../../dist/emulator/index.js';
import { emulatorInternals } from '../../dist/emulator/internals.js';

const [dataDir, countArg] = process.argv.slice(2);
const count = Number(countArg);
const emu = await startEmulator({ dataDir });
const { db, store } = emulatorInternals(emu);
const now = Date.now();
const base = {
  description: 'A benchmark plugin that does nothing much',
  type: 'EVENT_HANDLER',
  events: ['AGENT_MESSAGE_RECEIVED'],
  scopes: [],
  inputsSchema: {},
  webhookUrl: 'http://127.0.0.1:9/hook',
  webhookUrlIsVerified: false,
  webhookSecret: 'whsec_MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=',
};
let pending = [];
for (let i = 0; i < count; i++) {
  const at = new Date(now - (count - i) * 1000).toISOString();
  pending.push(
    db.plugins.put({
      ...base,
      id: `plg_bench_${String(i).padStart(7, '0')}`,
      orgId: emu.orgId,
      name: `bench plugin ${i}`,
      isPublic: i % 2 === 0,
      tags: [`tag${(i >> 1) % 20}`, `tag${((i >> 1) * 7) % 20}`],
      createdAt: at,
      updatedAt: at,
    }),
  );
  if (pending.length >= 5000) {
    await Promise.all(pending);
    pending = [];
  }
}
await Promise.all(pending);
await store.compact();
await emu.close();
console.log(JSON.stringify({ populated: count, ms: Date.now() - now }));
