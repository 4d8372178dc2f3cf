// `node first-request.js emulator` or `node first-request.js miniflare <miniflare module path>`:
// what a plugin's test file pays for a local server of its own, after the imports: start it,
// have one request answered, close it. Prints the time (ms) as JSON. The emulator's request is a
// management list (a route whose schemas compile on first use); Miniflare's a worker's fetch.
//
// The HTTP client is warmed before the timing starts, the same way for both kinds: one request to
// a throwaway local `http` server. A test file's client is the test's, not the server's: Node 20's
// global `fetch` loads its undici and compiles the llhttp parser on first use (~60 ms in a fresh
// process), and Miniflare's `dispatchFetch` goes through Miniflare's own copy of undici, whose
// parser is compiled on its first connection too. So the emulator's kind warms Node's `fetch`
// (what it is then called with), and Miniflare's kind warms Node's `fetch` and Miniflare's
// exported `fetch` (the undici `dispatchFetch` uses). The rest of what each server's first
// request costs is inside the timing.
import { createServer } from 'node:http';

const [kind, modulePath] = process.argv.slice(2);
const ms = (since) => Number(process.hrtime.bigint() - since) / 1e6;

/** Has `client` fetch from a throwaway local server once, so that its first-use set-up is done. */
async function warmUp(client) {
  const server = createServer((_req, res) => res.end('ok'));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const res = await client(`http://127.0.0.1:${server.address().port}/`);
  await res.text();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
}

if (kind === 'emulator') {
  const { startEmulator } = await import('../../dist/emulator/index.js');
  await warmUp(fetch);
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
  const { Miniflare, fetch: miniflareFetch } = await import(modulePath);
  await warmUp(fetch);
  await warmUp(miniflareFetch);
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
