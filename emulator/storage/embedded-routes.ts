import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { sendError } from '../http.js';
import { attachment, isPublicKey, keyProblem } from './keys.js';
import { ObjectTooLargeError, type EmbeddedStorage } from './embedded.js';

/**
 * The embedded store's HTTP routes: `PUT /objects/*` (upload through a signed URL) and
 * `GET|HEAD /objects/*` (download through a signed URL, or unsigned for `public/` keys).
 * The emulator registers it on its management app under `storage.routePrefix` (`/_storage`).
 */
export function embeddedStorageRoutes(storage: EmbeddedStorage): FastifyPluginAsync {
  return async function storageRoutes(app: FastifyInstance) {
    // Upload bodies are streamed to disk by the handler, never parsed or buffered by fastify:
    // this encapsulated context drops the JSON and text parsers and hands every body over as is.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', (_request, _payload, done) => done(null));

    app.route({
      method: 'PUT',
      url: '/objects/*',
      // Not enforced for a pass-through parser; the handler counts bytes against the signed limit.
      bodyLimit: storage.maxBytes,
      handler: (request, reply) => upload(storage, request, reply),
    });
    app.route({
      method: ['GET', 'HEAD'],
      url: '/objects/*',
      exposeHeadRoute: false,
      handler: (request, reply) => download(storage, request, reply),
    });
  };
}

async function upload(storage: EmbeddedStorage, request: FastifyRequest, reply: FastifyReply) {
  const key = keyOf(request);
  const problem = keyProblem(key);
  // Refusals before the body is read close the connection, so the unread body is not drained.
  if (problem) return refuse(reply, 400, 'VALIDATION_ERROR', `Invalid object key: ${problem}`);
  const verdict = storage.verify('PUT', key, request.query as Record<string, unknown>);
  if (verdict.kind === 'unsigned') return refuse(reply, 403, 'FORBIDDEN', 'Uploads need a signed URL');
  if (verdict.kind === 'refused') return refuse(reply, 403, 'FORBIDDEN', verdict.reason);

  const limit = Math.min(verdict.grant.maxBytes ?? storage.maxBytes, storage.maxBytes);
  const declared = request.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) {
    return refuse(reply, 413, 'PAYLOAD_TOO_LARGE', `The upload is larger than ${limit} bytes`);
  }
  const contentType = request.headers['content-type'];
  try {
    // destroyOnReturn: false keeps the socket open when the count stops early, so the 413 can be sent.
    const body = request.raw.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>;
    const info = await storage.write(key, body, limit, contentType);
    return reply.status(200).send({ ok: true, data: { key, size: info.size } });
  } catch (error) {
    if (error instanceof ObjectTooLargeError) return refuse(reply, 413, 'PAYLOAD_TOO_LARGE', error.message);
    // The uploader went away mid-body: the partial file is gone and nobody is left to answer.
    if (request.raw.readableAborted || request.raw.destroyed) return refuse(reply, 400, 'VALIDATION_ERROR', 'The upload was interrupted');
    throw error;
  }
}

async function download(storage: EmbeddedStorage, request: FastifyRequest, reply: FastifyReply) {
  const key = keyOf(request);
  const problem = keyProblem(key);
  if (problem) return sendError(reply, 'VALIDATION_ERROR', `Invalid object key: ${problem}`);
  // A HEAD is allowed by the URL signed for GET, as on S3.
  const verdict = storage.verify('GET', key, request.query as Record<string, unknown>);
  if (verdict.kind === 'refused') return sendError(reply, 'FORBIDDEN', verdict.reason);
  if (verdict.kind === 'unsigned' && !isPublicKey(key)) {
    return sendError(reply, 'FORBIDDEN', 'This object is private: use a signed URL from /api/access/:fileId');
  }
  const opened = await storage.open(key);
  if (!opened) return sendError(reply, 'NOT_FOUND', 'Object not found');
  reply.header('content-type', opened.contentType ?? 'application/octet-stream');
  reply.header('content-length', String(opened.size));
  reply.header('cache-control', verdict.kind === 'valid' ? 'private, no-store' : 'public, max-age=60');
  if (verdict.kind === 'valid' && verdict.grant.fileName !== undefined) {
    reply.header('content-disposition', attachment(verdict.grant.fileName));
  }
  if (request.method === 'HEAD') {
    await opened.close();
    return reply.send();
  }
  return reply.send(opened.stream());
}

function keyOf(request: FastifyRequest): string {
  return (request.params as Record<string, string>)['*'] ?? '';
}

function refuse(reply: FastifyReply, status: 400 | 403 | 413, type: 'VALIDATION_ERROR' | 'FORBIDDEN' | 'PAYLOAD_TOO_LARGE', message: string) {
  reply.header('connection', 'close');
  return sendError(reply, type, message, undefined, status);
}
