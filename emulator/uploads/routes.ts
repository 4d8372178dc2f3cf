import type { FastifyInstance, FastifyRequest } from 'fastify';
import { fromAjv, lazyValidator } from '../validation/json-schema.js';
import {
  FileAccessQuerySchema,
  FileAccessSchema,
  MAX_ACCESS_SECONDS,
  FileSchema,
  FileStatusUpdateSchema,
  ListQuery,
  Ok,
  OkPage,
  UploadUrlRequestSchema,
  UploadUrlsSchema,
  errorResponses,
  type UploadUrlRequest,
} from '#contract';
import { ok } from '../http.js';
import { HttpError, badRequest, detail } from '../errors.js';
import { requireRole, requireUser } from '../auth/guards.js';
import { roleIn } from '../auth/principal.js';
import { parseJsonBody } from '../json-body.js';
import { listed, params, typed, type RouteOptions } from '../api/common.js';
import { FILE_QUERY, presentFile } from './files.js';
import {
  changeFileStatus,
  checkUploadRequest,
  createUploads,
  fileAccess,
  uploadOrg,
} from './service.js';
import { findVisibleFile } from './access.js';
import type { UploadDeps } from './service.js';
import { linksTo } from '../openapi/links.js';

const MAX_GET_BODY = 1024 * 1024;

const generateBodyValidator = lazyValidator<UploadUrlRequest>(UploadUrlRequestSchema, {
  allErrors: true,
  verbose: true,
});

const errors = errorResponses(400, 401, 403, 404, 409, 413, 415);
const uploadUrlsResponse = (status: 200 | 201) => ({ [status]: Ok(UploadUrlsSchema), ...errors });

/** Reads a JSON body that a GET request carries (fastify does not parse GET bodies). */
async function readGetBody(request: FastifyRequest): Promise<unknown> {
  const type = request.headers['content-type'];
  const length = request.headers['content-length'];
  if (length === undefined && request.headers['transfer-encoding'] === undefined) return undefined;
  if (type !== undefined && !/^application\/json\b/i.test(type)) {
    throw new HttpError(
      'UNSUPPORTED_MEDIA_TYPE',
      `Unsupported Media Type: ${type}; send the JSON body with content-type: application/json`,
    );
  }
  const chunks: Buffer[] = [];
  let size = 0;
  // destroyOnReturn: false keeps the socket when the count stops early, so the 413 can be read.
  for await (const chunk of request.raw.iterator({ destroyOnReturn: false })) {
    size += (chunk as Buffer).length;
    if (size > MAX_GET_BODY) throw new HttpError('PAYLOAD_TOO_LARGE', 'Request body is too large');
    chunks.push(chunk as Buffer);
  }
  return parseJsonBody(Buffer.concat(chunks).toString('utf8'));
}

/** The upload interface: upload URLs, status, listing and access URLs (the spec's /api/… paths). */
export default async function uploadRoutes(
  fastify: FastifyInstance,
  { services }: RouteOptions<UploadDeps>,
): Promise<void> {
  const app = typed(fastify);
  const { db } = services;

  async function generate(request: FastifyRequest, body: UploadUrlRequest) {
    checkUploadRequest(body);
    requireUser(request);
    const orgId = uploadOrg(db, request, body);
    requireRole(db, request, orgId, 'MEMBER', 'upload files');
    return ok(await createUploads(services, orgId, body));
  }

  // fastify neither parses nor validates GET bodies: the handler checks this one against POST's schema (documented there).
  app.get(
    '/generate-upload-url',
    {
      schema: {
        operationId: 'generateUploadUrlWithGet',
        tags: ['files'],
        summary: 'Get signed upload URLs (the request as a JSON body on GET)',
        description:
          "The spec's form of the request, with the JSON body on a GET: the same as the POST form (which proxies pass on; many drop a GET body). A MEMBER or OWNER of the owning org creates one file record per file and gets a signed upload URL for each.",
        response: uploadUrlsResponse(200),
      },
    },
    async (request) => {
      const body = await readGetBody(request);
      if (body === undefined)
        throw badRequest('send the upload request as a JSON body (GET with a body, or POST)', [
          detail(['files'], 'invalid_type', 'array', undefined, 'files is required'),
        ]);
      const validateGenerateBody = generateBodyValidator();
      if (!validateGenerateBody(body)) {
        const details = (validateGenerateBody.errors ?? []).map((e) => fromAjv(e, []));
        throw badRequest(
          `Invalid request body: ${details[0]?.message ?? 'validation failed'}`,
          details,
        );
      }
      return generate(request, body);
    },
  );
  app.post(
    '/generate-upload-url',
    {
      links: {
        201: linksTo(
          'upload',
          { fileId: '$response.body#/data/files/0/fileRecord/id' },
          { getFileAccessUrl: 'Get a URL to read the first file of {made}' },
        ),
      },
      schema: {
        operationId: 'generateUploadUrl',
        tags: ['files'],
        summary: 'Get signed upload URLs',
        description:
          "A MEMBER or OWNER of the owning org (the parent's, else `orgId`, else the token's) creates one file record per file (status null) and gets a signed PUT URL for each, valid an hour.",
        body: UploadUrlRequestSchema,
        response: uploadUrlsResponse(201),
      },
    },
    async (request, reply) => {
      return reply.status(201).send(await generate(request, request.body));
    },
  );

  app.patch(
    '/status',
    {
      schema: {
        operationId: 'updateFileStatus',
        tags: ['files'],
        summary: "Set a file's status",
        description:
          "A MEMBER or OWNER of the file's org reports an upload: UPLOADED once its object is stored, FAILED with an `errorMessage`, then PROCESSING or COMPLETED; any other change is a 409.",
        body: FileStatusUpdateSchema,
        response: { 200: Ok(FileSchema), ...errors },
      },
    },
    async (request) => {
      const body = request.body;
      requireUser(request);
      const file = findVisibleFile(services, request, body.fileId);
      requireRole(db, request, file.orgId, 'MEMBER', 'change file status');
      return ok(presentFile(await changeFileStatus(services, file, body)));
    },
  );

  app.get(
    '/',
    {
      schema: {
        operationId: 'listFiles',
        tags: ['files'],
        summary: 'List files',
        description:
          "A member of the files' orgs lists the files it may read (filter by `parentId` and `parentType` for one parent), with the query system.",
        querystring: ListQuery(FILE_QUERY),
        response: { 200: OkPage(FileSchema), ...errors },
      },
    },
    async (request) => {
      const principal = requireUser(request);
      const where: Array<[string, unknown]> = principal.orgId ? [['orgId', principal.orgId]] : [];
      return listed(
        db.files,
        request.query,
        FILE_QUERY,
        { where, visible: (f) => roleIn(db, principal, f.orgId) !== null },
        presentFile,
      );
    },
  );

  const accessSchema = {
    params: params('fileId'),
    querystring: FileAccessQuerySchema,
    response: { 200: Ok(FileAccessSchema), ...errors },
  };
  app.get(
    '/access/:fileId',
    {
      schema: {
        operationId: 'getFileAccessUrl',
        tags: ['files'],
        summary: "Get a URL to read a file's content",
        description:
          "A member of the file's org, or the data provider of a repository that holds it (REPOSITORY_FILES_READ), gets a URL to read it: signed for `expiresIn` seconds for a private file, direct for a public one.",
        ...accessSchema,
      },
    },
    async (request) => {
      const { fileId } = request.params;
      // FileAccessQuerySchema, read here: expiresIn once, decimal digits, 1 to 7 days; nothing else.
      const unknown = Object.keys(request.query).find((key) => key !== 'expiresIn');
      if (unknown !== undefined)
        throw new HttpError('VALIDATION_ERROR', 'Invalid query parameters', [
          detail(
            [unknown],
            'unrecognized_keys',
            'expiresIn',
            unknown,
            `unknown query parameter ${unknown}`,
          ),
        ]);
      const raw = request.query.expiresIn;
      if (raw !== undefined && (typeof raw !== 'string' || !/^\d+$/.test(raw))) {
        throw new HttpError('VALIDATION_ERROR', 'Invalid query parameters', [
          detail(
            ['expiresIn'],
            'invalid_type',
            'integer',
            raw,
            'expiresIn must be a whole number of seconds, given once',
          ),
        ]);
      }
      const expiresIn = raw === undefined ? 3600 : Number(raw);
      if (expiresIn < 1 || expiresIn > MAX_ACCESS_SECONDS) {
        throw new HttpError('VALIDATION_ERROR', 'Invalid query parameters', [
          detail(
            ['expiresIn'],
            expiresIn < 1 ? 'too_small' : 'too_big',
            `integer from 1 to ${MAX_ACCESS_SECONDS}`,
            raw,
            `expiresIn must be from 1 to ${MAX_ACCESS_SECONDS} seconds`,
          ),
        ]);
      }
      const file = findVisibleFile(services, request, fileId);
      return ok(await fileAccess(services, file, expiresIn));
    },
  );
}
