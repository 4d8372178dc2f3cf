// The delivery budget (issue 34): deliveries >= 500/s with a person's GET p99 < 50 ms while they
// drain; and, beside it, the time from an API call to its ASYNC event at a local webhook.
// The emulator runs in a child process; the receivers, the GETs and the event driver run here.
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { load, percentile, startServer } from './lib.js';
import { apiClient, uploadFile } from './helpers/api.js';
import { startReceiver } from './helpers/receiver.js';

const REPO = 'repo_docs';
const DELIVERIES_BUDGET = 500;
const GET_P99_BUDGET_MS = 50;
const FILE_EVENTS = ['REPOSITORY_FILE_ADDED', 'REPOSITORY_FILE_REMOVED'];

/** A DATA_PROVIDER plugin with a verified webhook at `webhookUrl`, installed on the repository. */
async function installProvider(call, orgId, webhookUrl, name) {
  const plugin = await call('POST', '/api/plugins', {
    orgId,
    name,
    type: 'DATA_PROVIDER',
    events: FILE_EVENTS,
    scopes: ['REPOSITORY_FILES_READ'],
    webhookUrl,
  });
  const verified = await call('POST', `/api/plugins/${plugin.id}/verify-webhook`);
  if (!verified.verified)
    throw new Error(`webhook of ${plugin.id} not verified: ${verified.reason}`);
  await call('POST', `/api/repositories/${REPO}/data-providers`, {
    name,
    pluginId: plugin.id,
    events: FILE_EVENTS,
    scopes: ['REPOSITORY_FILES_READ'],
    eventDispatchMode: 'ASYNC',
  });
  return plugin.id;
}

/** One add-or-remove call on a slot's file (each call emits one ASYNC event per installed provider). */
function toggle(call, slot) {
  const done = slot.inRepo
    ? call('DELETE', `/api/repositories/${REPO}/files/${slot.fileId}`)
    : call('POST', `/api/repositories/${REPO}/files`, { fileId: slot.fileId });
  return done.then(() => {
    slot.inRepo = !slot.inRepo;
  });
}

/**
 * Calls add/remove on the slots' files, at most one call per slot in flight, at `callsPerSec`
 * (Infinity: as fast as they are answered) until `durationMs` has passed; resolves with the calls made.
 */
async function drive(call, slots, callsPerSec, durationMs) {
  const start = performance.now();
  const end = start + durationMs;
  let started = 0;
  const free = [...slots];
  const inFlight = new Set();
  while (performance.now() < end) {
    const allowed =
      callsPerSec === Infinity
        ? Infinity
        : Math.floor(((performance.now() - start) / 1000) * callsPerSec) + 1;
    while (free.length > 0 && started < allowed) {
      const slot = free.pop();
      started++;
      const p = toggle(call, slot).then(() => {
        inFlight.delete(p);
        free.push(slot);
      });
      inFlight.add(p);
    }
    if (free.length === 0 || callsPerSec === Infinity) await Promise.race(inFlight);
    else await sleep(2);
  }
  await Promise.all(inFlight);
  return started;
}

/**
 * Runs `drive` and counts what the receiver got, until the backlog is drained (30 s at most).
 * `perSec` is deliveries received per second from the first call until the backlog is drained.
 */
async function sustained(call, sink, slots, fanout, callsPerSec, durationMs) {
  const counted = async () => (await (await request(`${sink.url}/_count`)).body.json()).counted;
  const before = await counted();
  const t0 = performance.now();
  const calls = await drive(call, slots, callsPerSec, durationMs);
  const t1 = performance.now();
  const expected = calls * fanout;
  let received = (await counted()) - before;
  while (received < expected && performance.now() - t1 < 30_000) {
    await sleep(20);
    received = (await counted()) - before;
  }
  const drainMs = performance.now() - t1;
  // Throughput over the whole run, drain included: a backlog left behind does not count as delivered.
  return { calls, expected, received, perSec: received / ((t1 - t0 + drainMs) / 1000), drainMs };
}

/** Deliveries still pending in the emulator's log (waiting for a retry), with the last error of one of them. */
async function pendingDeliveries(emu) {
  const res = await request(`${emu.url}/_emulator/deliveries?status=pending&@limit=1`, {
    headers: { 'x-plugsmith-admin': emu.adminToken },
  });
  const body = await res.body.json();
  const total = body.meta?.pagination?.total ?? body.pagination?.total ?? body.data.length;
  return { total, error: body.data[0]?.attempts.at(-1)?.error ?? null };
}

/** " — N still pending (last error: …)" when the backlog holds retries, else "". */
async function retryNote(emu) {
  const pending = await pendingDeliveries(emu);
  return pending.total > 0 ? ` — ${pending.total} pending retry, e.g. "${pending.error}"` : '';
}

export default async function delivery({ duration, quick }) {
  const rows = [];
  const receiver = await startReceiver();
  let sink;
  const emu = await startServer('emulator-with.js', [JSON.stringify({})]);
  try {
    const call = apiClient(emu.url, emu.token);

    // (a) API call → webhook received, one provider, 300 sequential events (adds and removes).
    await installProvider(call, emu.orgId, `${receiver.url}/hook/latency`, 'latency provider');
    const fileId = await uploadFile(call, { orgId: emu.orgId, fileName: 'bench.txt', size: 1024 });
    const samples = [];
    const apiSamples = [];
    const count = quick ? 100 : 300;
    const warmup = 50;
    let inRepo = false;
    for (let i = 0; i < warmup + count; i++) {
      const type = inRepo ? 'REPOSITORY_FILE_REMOVED' : 'REPOSITORY_FILE_ADDED';
      const arrived = receiver.next((e) => e.type === type && e.data.file?.id === fileId);
      const t0 = performance.now();
      const res = inRepo
        ? request(`${emu.url}/api/repositories/${REPO}/files/${fileId}`, {
            method: 'DELETE',
            headers: { authorization: emu.token },
          })
        : request(`${emu.url}/api/repositories/${REPO}/files`, {
            method: 'POST',
            headers: { authorization: emu.token, 'content-type': 'application/json' },
            body: JSON.stringify({ fileId }),
          });
      const answered = res.then(async (r) => {
        await r.body.dump();
        if (r.statusCode >= 300)
          throw new Error(`file ${inRepo ? 'remove' : 'add'} → ${r.statusCode}`);
        return performance.now();
      });
      const [{ at }, answeredAt] = await Promise.all([arrived, answered]);
      if (i >= warmup) {
        samples.push(at - t0);
        apiSamples.push(answeredAt - t0);
      }
      inRepo = !inRepo;
    }
    if (inRepo) await call('DELETE', `/api/repositories/${REPO}/files/${fileId}`);
    rows.push({
      name: `API answer (add/remove repo file), n=${count}`,
      p50: percentile(apiSamples, 50),
      p99: percentile(apiSamples, 99),
    });
    rows.push({
      name: `API call → webhook received (ASYNC), n=${count}`,
      p50: percentile(samples, 50),
      p99: percentile(samples, 99),
    });

    // (b) The budget: deliveries drain at >= 500/s while a person's GETs (one connection, back to
    // back) keep p99 < 50 ms. 20 providers on the repository (each call fans out to 20 deliveries
    // to one receiver in its own process); 32 files toggled in and out at 30 calls/s, so 600
    // deliveries/s are offered (the budget and a margin: over the window and its drain, an emulator
    // that keeps up delivers just under what is offered); the GETs run for the same window.
    sink = await startServer('receiver.js');
    const fanout = 20;
    await call(
      'DELETE',
      `/api/repositories/${REPO}/data-providers/${(await call('GET', `/api/repositories/${REPO}/data-providers`))[0].id}`,
    );
    for (let i = 0; i < fanout; i++)
      await installProvider(call, emu.orgId, `${sink.url}/count/${i}`, `sustained provider ${i}`);
    const slots = [];
    for (let i = 0; i < 32; i++)
      slots.push({
        fileId: await uploadFile(call, { orgId: emu.orgId, fileName: `f${i}.txt`, size: 64 }),
        inRepo: false,
      });
    const durationMs = duration * 1000;
    const pluginUrl = `${emu.url}/api/plugins/${(await call('GET', `/api/orgs/${emu.orgId}/plugins?@limit=1`))[0].id}`;
    const person = {
      url: pluginUrl,
      headers: { authorization: emu.token },
      connections: 1,
      duration,
    };

    const idle = await load(person);
    rows.push({ name: "a person's GET /api/plugins/:id, no deliveries (for comparison)", ...idle });

    const offered = 600;
    const [drained, during] = await Promise.all([
      sustained(call, sink, slots, fanout, offered / fanout, durationMs),
      load(person),
    ]);
    rows.push({
      name: `deliveries/s at ${offered}/s offered, GETs meanwhile (fan-out ${fanout}; ${drained.received}/${drained.expected} received, ${drained.drainMs.toFixed(0)} ms to drain${await retryNote(emu)})`,
      rps: drained.perSec,
      budget: `>= ${DELIVERIES_BUDGET}/s`,
      met: drained.perSec >= DELIVERIES_BUDGET && drained.received === drained.expected,
    });
    rows.push({
      name: "a person's GET /api/plugins/:id while they drain",
      ...during,
      budget: `p99 < ${GET_P99_BUDGET_MS} ms`,
      met: during.p99 < GET_P99_BUDGET_MS && during.failures === 0,
    });

    // Headroom: calls as fast as they are answered, no GETs.
    const capacity = await sustained(call, sink, slots, fanout, Infinity, durationMs);
    rows.push({
      name: `deliveries/s, calls as fast as answered (capacity; ${capacity.received}/${capacity.expected} received, ${capacity.drainMs.toFixed(0)} ms to drain${await retryNote(emu)})`,
      rps: capacity.perSec,
    });
  } finally {
    await emu.stop();
    await sink?.stop();
    await receiver.close();
  }
  return rows;
}
