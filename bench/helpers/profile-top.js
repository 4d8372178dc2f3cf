// `node bench/helpers/profile-top.js <file.cpuprofile> [n]`: the functions with the most self
// time in a V8 CPU profile (from BENCH_CPU_PROF), and the total per script, to see where time goes.
import { readFileSync } from 'node:fs';

const [file, n = '25'] = process.argv.slice(2);
const profile = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const self = new Map();
const dt = profile.timeDeltas;
for (let i = 0; i < profile.samples.length; i++) {
  const id = profile.samples[i];
  self.set(id, (self.get(id) ?? 0) + (dt[i] ?? 0));
}
const total = [...self.values()].reduce((a, b) => a + b, 0);
const fnTotals = new Map();
const scriptTotals = new Map();
for (const [id, us] of self) {
  const { functionName, url, lineNumber } = byId.get(id).callFrame;
  const short = url.replace(/^.*\/(node_modules\/)/, '$1').replace(/^file:\/\/.*\/main\//, '');
  const key = `${functionName || '(anonymous)'} ${short}:${lineNumber + 1}`;
  fnTotals.set(key, (fnTotals.get(key) ?? 0) + us);
  const script = short.startsWith('node_modules/')
    ? short
        .split('/')
        .slice(0, short.startsWith('node_modules/@') ? 3 : 2)
        .join('/')
    : short || `(${functionName})`;
  scriptTotals.set(script, (scriptTotals.get(script) ?? 0) + us);
}
const show = (map, count) =>
  [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .forEach(([k, us]) => {
      console.log(
        `${((us / total) * 100).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(7)} ms  ${k}`,
      );
    });
console.log(`total ${(total / 1000).toFixed(0)} ms sampled\n-- by function (self)`);
show(fnTotals, Number(n));
console.log('-- by script (self)');
show(scriptTotals, 15);
