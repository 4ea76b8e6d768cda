import { randomBytes } from 'node:crypto';
import Fastify from 'fastify';

/**
 * The yardstick: a bare Fastify server with one JSON route, in its own process. Its POST route is
 * a reference, not the yardstick: what the HTTP layer alone costs for a consent's request shape (a
 * JSON body parsed, 201 with an id and a time), with no validation, no database and no durability.
 */
const app = Fastify({ logger: false });
app.get('/', async () => ({ hello: 'world' }));
let sequence = 0;
app.post('/consents', async (request, reply) => {
  const { consent } = request.body as { consent: { session_id: string } };
  return reply.code(201).send({ data: { id: `${consent.session_id}-${++sequence}`, created_at: new Date().toISOString() } });
});
// A body of the size asked for, as a static script route sends it: what the bytes alone cost. Random,
// like compressed bytes: the load generator reads them as text, much slower than repeated ASCII.
const bodies = new Map<number, Buffer>();
app.get('/bytes/:size', (request, reply) => {
  const size = Math.min(Number((request.params as { size: string }).size) || 0, 1 << 20);
  if (!bodies.has(size)) bodies.set(size, randomBytes(size));
  reply.header('content-type', 'text/javascript; charset=utf-8').send(bodies.get(size));
});
const address = await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
process.stdout.write(`listening ${address}\n`);
