// Issue 4's speed targets: a 100 MB upload through the embedded store (generate-upload-url →
// PUT to the signed URL, streamed → PATCH status) against a plain node:http server that streams
// a PUT body to disk, both in child processes; and the emulator's peak RSS growth meanwhile.
import { performance } from 'node:perf_hooks';
import { median, startServer } from './lib.js';
import { apiClient, memoryStats, putBytes, uploadFile } from './helpers/api.js';

const MB = 1024 * 1024;

export default async function uploads({ quick }) {
  const size = 100 * MB;
  const rounds = quick ? 3 : 7;
  const rows = [];
  const emu = await startServer('emulator-with.js', [JSON.stringify({})]);
  const sink = await startServer('disk-sink.js');
  try {
    const call = apiClient(emu.url, emu.token);
    // Warm both paths (JIT, first file creation) with a small upload each.
    await uploadFile(call, {
      orgId: emu.orgId,
      fileName: 'warm.bin',
      size: MB,
      contentType: 'application/octet-stream',
    });
    await putBytes(`${sink.url}/warm`, MB);

    const emuRates = [];
    const sinkRates = [];
    const ratios = [];
    const emuGrowth = [];
    const sinkGrowth = [];
    const emuCpu = [];
    const sinkCpu = [];
    const viaSink = async (i) => {
      const before = await memoryStats(sink.statsUrl, true);
      const t0 = performance.now();
      await putBytes(`${sink.url}/object-${i}`, size);
      const s = await memoryStats(sink.statsUrl);
      sinkGrowth.push((s.peak - s.base) / MB);
      sinkCpu.push(s.cpuMs - before.cpuMs);
      return size / MB / ((performance.now() - t0) / 1000);
    };
    const viaEmulator = async (i) => {
      const before = await memoryStats(emu.statsUrl, true);
      const t0 = performance.now();
      await uploadFile(call, {
        orgId: emu.orgId,
        fileName: `big-${i}.bin`,
        size,
        contentType: 'application/octet-stream',
      });
      const e = await memoryStats(emu.statsUrl);
      emuGrowth.push((e.peak - e.base) / MB);
      emuCpu.push(e.cpuMs - before.cpuMs);
      return size / MB / ((performance.now() - t0) / 1000);
    };
    // Paired rounds, alternating which goes first, so both see the same machine load; the
    // ratio is the median of the rounds' ratios.
    for (let i = 0; i < rounds; i++) {
      let b, e;
      if (i % 2 === 0) {
        b = await viaSink(i);
        e = await viaEmulator(i);
      } else {
        e = await viaEmulator(i);
        b = await viaSink(i);
      }
      sinkRates.push(b);
      emuRates.push(e);
      ratios.push(e / b);
    }
    const spread = `${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}x`;
    rows.push({
      name: `node:http PUT → disk, 100 MB, MB/s (baseline, median of ${rounds})`,
      rps: median(sinkRates),
      ratio: 1,
    });
    rows.push({
      name: `embedded store upload, 100 MB, MB/s (median; ratio: median of paired rounds, ${spread})`,
      rps: median(emuRates),
      ratio: median(ratios),
      target: '>= 0.7x',
    });
    // CPU time of the receiving process per upload: less sensitive to the machine's other load than MB/s.
    rows.push({ name: 'node:http sink CPU ms per 100 MB (median)', ms: median(sinkCpu), ratio: 1 });
    rows.push({
      name: 'emulator CPU ms per 100 MB upload flow (median)',
      ms: median(emuCpu),
      ratio: median(emuCpu) / median(sinkCpu),
    });
    rows.push({
      name: `node:http sink peak RSS growth, MB (max of ${rounds})`,
      ms: Math.max(...sinkGrowth),
    });
    rows.push({
      name: `emulator peak RSS growth during upload, MB (max of ${rounds})`,
      ms: Math.max(...emuGrowth),
      target: '< 64 MB',
    });
  } finally {
    await emu.stop();
    await sink.stop();
  }
  return rows;
}
