// The baseline: a bare fastify server answering a small JSON, in its own process.
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.get('/', async () => ({ ok: true, data: { id: 'plg_1', name: 'baseline' } }));
await app.listen({ port: 0, host: '127.0.0.1' });
console.log(JSON.stringify({ url: `http://127.0.0.1:${app.server.address().port}` }));
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
