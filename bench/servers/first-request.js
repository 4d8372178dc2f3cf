// `node first-request.js emulator` or `node first-request.js miniflare <miniflare module path>`:
// what a plugin's test file pays for a local server of its own, after the imports: start it,
// have one request answered, close it. Prints the time (ms) as JSON. The emulator's request is a
// management list (a route whose schemas compile on first use); Miniflare's a worker's fetch.
const [kind, modulePath] = process.argv.slice(2);
const ms = (since) => Number(process.hrtime.bigint() - since) / 1e6;

if (kind === 'emulator') {
  const { startEmulator } = await import('../../dist/emulator/index.js');
  const t0 = process.hrtime.bigint();
  const emu = await startEmulator();
  const res = await fetch(`${emu.url}/api/orgs/${emu.orgId}/plugins`, {
    headers: { authorization: emu.token },
  });
  if (res.status !== 200) throw new Error(`the emulator answered ${res.status}`);
  await res.json();
  await emu.close();
  console.log(JSON.stringify({ ms: ms(t0) }));
} else if (kind === 'miniflare') {
  const { Miniflare } = await import(modulePath);
  const t0 = process.hrtime.bigint();
  const mf = new Miniflare({
    modules: true,
    script: 'export default { fetch() { return Response.json({ data: [] }); } }',
  });
  const res = await mf.dispatchFetch('http://localhost/');
  if (res.status !== 200) throw new Error(`Miniflare answered ${res.status}`);
  await res.json();
  await mf.dispose();
  console.log(JSON.stringify({ ms: ms(t0) }));
} else {
  throw new Error(`unknown kind ${kind}: emulator or miniflare`);
}
