import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { sendClosing, sendError } from '../../http.js';
import type { OwnBodyGuardConfig } from '../../slow-body.js';
import type { ErrorType } from '#contract';
import { attachment, isPublicKey, keyProblem } from './keys.js';
import { ObjectTooLargeError, WriteRefusedError, type EmbeddedStorage } from './embedded.js';
import type { ObjectRecords } from './types.js';

/** A request for `/objects/*`: the key is the wildcard; the query (a signature, or none) is checked by `storage.verify`, not by a schema. */
interface ObjectRoute {
  Params: { '*'?: string };
  Querystring: Record<string, unknown>;
}
type ObjectRequest = FastifyRequest<ObjectRoute>;

/**
 * PUT `/objects/*` by signed URL; GET|HEAD by signed URL, or unsigned for `public/` keys; `records` give the served type and refuse
 * a PUT over an uploaded file. Objects are served inert (nosniff, sandboxing CSP, attachment) so an upload cannot script our origin.
 */
export function embeddedStorageRoutes(
  storage: EmbeddedStorage,
  records?: ObjectRecords,
): FastifyPluginAsync {
  return async function storageRoutes(app: FastifyInstance) {
    // Upload bodies are streamed to disk by the handler, never parsed or buffered by fastify.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', (_request, _payload, done) => done(null));

    // Hidden from the OpenAPI document: signed storage URLs (with S3 not the emulator's at all), not operations.
    app.route<ObjectRoute, OwnBodyGuardConfig>({
      method: 'PUT',
      url: '/objects/*',
      schema: { hide: true },
      // Not enforced for a pass-through parser; the handler counts bytes against the signed limit.
      bodyLimit: storage.maxBytes,
      // The signature is this route's credential, checked before the handler reads a byte (slow-body.ts: not a stranger's body).
      config: { guardsOwnBody: true },
      handler: (request, reply) => upload(storage, records, request, reply),
    });
    app.route<ObjectRoute>({
      method: ['GET', 'HEAD'],
      url: '/objects/*',
      schema: { hide: true },
      exposeHeadRoute: false,
      handler: (request, reply) => download(storage, records, request, reply),
    });
  };
}

async function upload(
  storage: EmbeddedStorage,
  records: ObjectRecords | undefined,
  request: ObjectRequest,
  reply: FastifyReply,
) {
  const key = keyOf(request);
  // The signature first (an unsigned caller learns nothing else); refusals before the body close the connection, undrained.
  const verdict = storage.verify('PUT', key, request.query);
  if (verdict.kind === 'unsigned') return refuse(reply, 'FORBIDDEN', 'Uploads need a signed URL');
  if (verdict.kind === 'refused') return refuse(reply, 'FORBIDDEN', verdict.reason);
  const problem = keyProblem(key);
  if (problem) return refuse(reply, 'VALIDATION_ERROR', `Invalid object key: ${problem}`);
  // An upload URL stays valid for its hour, but writes only a file still awaiting its object: checked now and once the body is in.
  const stillAwaited = () => {
    const refusal = records?.putRefusal(key);
    if (refusal) throw new WriteRefusedError(refusal.status, refusal.message);
  };
  try {
    stillAwaited();
    const limit = Math.min(verdict.grant.maxBytes ?? storage.maxBytes, storage.maxBytes);
    const declared = request.headers['content-length'];
    if (declared !== undefined && Number(declared) > limit) throw new ObjectTooLargeError(limit);
    // destroyOnReturn: false keeps the socket open when the count stops early, so the 413 can be sent.
    const body = request.raw.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>;
    const info = await storage.write(
      key,
      body,
      limit,
      request.headers['content-type'],
      stillAwaited,
    );
    return reply.status(200).send({ ok: true, data: { key, size: info.size } });
  } catch (error) {
    if (error instanceof ObjectTooLargeError)
      return refuse(reply, 'PAYLOAD_TOO_LARGE', error.message);
    if (error instanceof WriteRefusedError)
      return refuse(reply, error.status === 404 ? 'NOT_FOUND' : 'CONFLICT', error.message);
    // The uploader went away mid-body: the partial file is gone and nobody is left to answer.
    if (request.raw.readableAborted || request.raw.destroyed)
      return refuse(reply, 'VALIDATION_ERROR', 'The upload was interrupted');
    throw error;
  }
}

async function download(
  storage: EmbeddedStorage,
  records: ObjectRecords | undefined,
  request: ObjectRequest,
  reply: FastifyReply,
) {
  const key = keyOf(request);
  // A HEAD is allowed by the URL signed for GET, as on S3.
  const verdict = storage.verify('GET', key, request.query);
  if (verdict.kind === 'refused') return sendError(reply, 'FORBIDDEN', verdict.reason);
  const problem = keyProblem(key);
  if (problem) return sendError(reply, 'VALIDATION_ERROR', `Invalid object key: ${problem}`);
  if (verdict.kind === 'unsigned' && !isPublicKey(key)) {
    return sendError(
      reply,
      'FORBIDDEN',
      'This object is private: use a signed URL from /api/access/:fileId',
    );
  }
  const opened = await storage.open(key);
  if (!opened) return sendError(reply, 'NOT_FOUND', 'Object not found');
  const record = records?.served(key) ?? null;
  // The record's declared type wins over the uploader's header; a malformed one is served as bytes.
  const contentType = servedType(record ? record.contentType : opened.contentType);
  reply.header('content-type', contentType);
  reply.header('content-length', String(opened.size));
  reply.header(
    'cache-control',
    verdict.kind === 'valid' ? 'private, no-store' : 'public, max-age=60',
  );
  reply.header('x-content-type-options', 'nosniff');
  reply.header('content-security-policy', INERT_POLICY);
  const fileName = verdict.kind === 'valid' ? verdict.grant.fileName : undefined;
  if (fileName !== undefined) reply.header('content-disposition', attachment(fileName));
  else if (isActive(contentType))
    reply.header(
      'content-disposition',
      attachment(record?.fileName ?? key.slice(key.lastIndexOf('/') + 1)),
    );
  if (request.method === 'HEAD') {
    await opened.close();
    return reply.send();
  }
  return reply.send(opened.stream());
}

function keyOf(request: ObjectRequest): string {
  return request.params['*'] ?? '';
}

/** A served document may not script, submit, navigate or load anything: it stays inert even as HTML (GitHub's raw files use the same). */
const INERT_POLICY = "default-src 'none'; style-src 'unsafe-inline'; sandbox";

/** A media type `type/subtype` with optional parameters, as a header may carry it. */
const MEDIA_TYPE =
  /^[\w!#$&^.+-]{1,127}\/[\w!#$&^.+-]{1,127}(?:\s*;\s*[\w!#$&^.+-]+=(?:"[^"\r\n]*"|[\w!#$&^.+-]+))*$/;

function servedType(declared: string | null | undefined): string {
  return declared && declared.length <= 255 && MEDIA_TYPE.test(declared)
    ? declared
    : 'application/octet-stream';
}

/** Types a browser would render and run scripts in when opened directly. */
function isActive(contentType: string): boolean {
  const essence = contentType.split(';')[0].trim().toLowerCase();
  return /html|xml|svg|javascript|ecmascript|^text\/(?:css|vtt)$|^application\/(?:pdf|wasm)$|^multipart\//.test(
    essence,
  );
}

/** Refuses a storage request in the error envelope, with the contract's status of `type`, and closes the connection. */
function refuse(reply: FastifyReply, type: ErrorType, message: string) {
  // A too-large upload is read (bounded) before its 413, so the uploader can read the answer.
  if (type === 'PAYLOAD_TOO_LARGE') return sendClosing(reply.request, reply, type, message);
  reply.header('connection', 'close');
  return sendError(reply, type, message);
}
