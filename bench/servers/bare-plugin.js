// A bare fastify server answering GET /api/plugins/:id with the JSON given as its argument, parsed
// once and serialized per request as fastify does without a schema: what fastify alone pays for the
// emulator's answer (the same body, to a request with the same Authorization header), in its own process.
import Fastify from 'fastify';

const answer = JSON.parse(process.argv[2]);
const app = Fastify({ logger: false });
app.get('/api/plugins/:pluginId', async () => answer);
await app.listen({ port: 0, host: '127.0.0.1' });
console.log(JSON.stringify({ url: `http://127.0.0.1:${app.server.address().port}` }));
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
