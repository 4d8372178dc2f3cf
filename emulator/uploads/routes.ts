import type { FastifyInstance, FastifyRequest } from 'fastify';
import { fromAjv, lazyValidator } from '../validation/json-schema.js';
import {
  FileAccessQuerySchema,
  FileAccessSchema,
  MAX_ACCESS_SECONDS,
  MAX_FILE_BYTES,
  MAX_FILE_NAME_LENGTH,
  MAX_FOLDER_LENGTH,
  FileSchema,
  FileStatusUpdateSchema,
  ListQuery,
  Ok,
  OkPage,
  UploadUrlRequestSchema,
  UploadUrlsSchema,
  errorResponses,
  type UploadUrlRequest,
} from '../../src/contract/index.js';
import { ok } from '../http.js';
import {
  ApiError,
  badRequest,
  detail,
  forbidden,
  found,
  notFound,
  type ErrorDetail,
} from '../errors.js';
import { newId, nowIso } from '../store/ids.js';
import { hasRole, requireRole, requireUser } from '../auth/guards.js';
import { roleIn } from '../auth/principal.js';
import { requireInstanceScope } from '../auth/scopes.js';
import { parseJsonBody } from '../json-body.js';
import { objectKey } from './storage/keys.js';
import type { FileRecord } from '../model.js';
import { assertMove } from './rules.js';
import { listed, params, typed, type RouteOptions } from '../api/common.js';
import { FILE_QUERY, presentFile } from './files.js';
import { createUploadRecords, setFileStatus } from './service.js';
import type { UploadDeps } from './service.js';

/** How long an upload URL stays valid. */
const UPLOAD_URL_SECONDS = 3600;
const MAX_GET_BODY = 1024 * 1024;

const generateBodyValidator = lazyValidator<UploadUrlRequest>(UploadUrlRequestSchema, {
  allErrors: true,
  verbose: true,
});

const errors = errorResponses(400, 401, 403, 404, 409, 413, 415);
const uploadUrlsResponse = (status: 200 | 201) => ({ [status]: Ok(UploadUrlsSchema), ...errors });

/** The file as the caller may see it; a 404 when they may not. */
function findVisibleFile(
  services: UploadDeps,
  request: FastifyRequest,
  fileId: string,
): FileRecord {
  const file = found(services.db.files.get(fileId), 'file', fileId);
  const principal = request.principal;
  if (principal?.kind === 'instance') {
    // A data provider reads only its repository's files: a 403 for any other, as for anything its scopes do not allow.
    const instance = services.db.instances.get(principal.instanceId);
    if (instance && instance.entityType !== 'REPOSITORY') {
      throw forbidden(
        `This installation access token acts on ${instance.entityType.toLowerCase()} ${instance.entityId}; only a repository's data provider reads files`,
      );
    }
    const repositoryId = instance?.entityId ?? '';
    requireInstanceScope(services.db, request, 'REPOSITORY_FILES_READ', {
      type: 'REPOSITORY',
      id: repositoryId,
    });
    if (
      !services.db.repositoryFiles
        .where('repositoryId', repositoryId)
        .some((link) => link.fileId === fileId)
    ) {
      throw forbidden(
        `This installation access token reads only the files of repository ${repositoryId}; file ${fileId} is not one of them`,
      );
    }
    return file;
  }
  requireUser(request);
  if (!hasRole(services.db, principal, file.orgId, 'VIEWER')) throw notFound('file', fileId);
  return file;
}

/** Which org owns an upload: the parent's, else `orgId`, else the token's org, else the user's only org. */
function owningOrg(services: UploadDeps, request: FastifyRequest, body: UploadUrlRequest): string {
  const { db } = services;
  const principal = requireUser(request);
  const given = body.orgId ?? principal.orgId ?? onlyOrg(services, principal.userId);
  // The schema gives parentId and parentType together or not at all.
  if (!body.parentType || !body.parentId) {
    if (!given) {
      throw badRequest('which org owns these files? give parentId and parentType, or orgId', [
        detail(
          ['orgId'],
          'invalid_type',
          'string',
          undefined,
          'orgId is required when there is no parent and you belong to several orgs',
        ),
      ]);
    }
    return given;
  }
  const id = body.parentId;
  // KNOWLEDGE is not stored: a file under it goes to the given org, as one without a parent.
  const orgId = {
    ORG: db.orgs.get(id)?.id,
    CHARACTER: db.characters.get(id)?.orgId,
    AGENT: db.agents.get(id)?.orgId,
    KNOWLEDGE: given,
  }[body.parentType];
  if (!orgId) throw notFound(body.parentType.toLowerCase(), id);
  if (body.orgId && body.orgId !== orgId) {
    throw badRequest(
      `orgId ${body.orgId} is not the org of ${body.parentType.toLowerCase()} ${id}`,
      [
        detail(
          ['orgId'],
          'invalid_value',
          orgId,
          body.orgId,
          "orgId must match the parent's org (or be omitted)",
        ),
      ],
    );
  }
  return orgId;
}

function onlyOrg(services: UploadDeps, userId: string): string | undefined {
  const orgs = services.db.memberships.where('userId', userId);
  return orgs.length === 1 ? orgs[0].orgId : undefined;
}

/** Reads a JSON body that a GET request carries (fastify does not parse GET bodies). */
async function readGetBody(request: FastifyRequest): Promise<unknown> {
  const type = request.headers['content-type'];
  const length = request.headers['content-length'];
  if (length === undefined && request.headers['transfer-encoding'] === undefined) return undefined;
  if (type !== undefined && !/^application\/json\b/i.test(type)) {
    throw new ApiError(
      'UNSUPPORTED_MEDIA_TYPE',
      `Unsupported Media Type: ${type}; send the JSON body with content-type: application/json`,
    );
  }
  const chunks: Buffer[] = [];
  let size = 0;
  // destroyOnReturn: false keeps the socket when the count stops early, so the 413 can be read.
  for await (const chunk of request.raw.iterator({ destroyOnReturn: false })) {
    size += (chunk as Buffer).length;
    if (size > MAX_GET_BODY) throw new ApiError('PAYLOAD_TOO_LARGE', 'Request body is too large');
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
  const { db, storage } = services;

  async function generate(request: FastifyRequest, body: UploadUrlRequest) {
    // The schema checks the characters; its maxLength counts code points, these limits UTF-16 units (an emoji counts 2).
    const problems: ErrorDetail[] = [];
    body.files.forEach((f, i) => {
      if (f.fileName.length > MAX_FILE_NAME_LENGTH)
        problems.push(
          detail(
            ['files', String(i), 'fileName'],
            'invalid_string',
            'a file name',
            f.fileName,
            `fileName must be at most ${MAX_FILE_NAME_LENGTH} characters`,
          ),
        );
    });
    if (body.folder !== undefined && body.folder.length > MAX_FOLDER_LENGTH) {
      problems.push(
        detail(
          ['folder'],
          'invalid_string',
          'a folder',
          body.folder,
          `folder must be at most ${MAX_FOLDER_LENGTH} characters`,
        ),
      );
    }
    if (problems.length) throw badRequest('Invalid upload request', problems);
    const orgId = owningOrg(services, request, body);
    requireRole(db, request, orgId, 'MEMBER', 'upload files');

    const now = nowIso();
    const folder = body.folder?.replace(/^\/+|\/+$/g, '') ?? null;
    const out = [];
    const records: FileRecord[] = [];
    for (const f of body.files) {
      const id = newId('file');
      const isPublic = f.isPublic ?? false;
      const record: FileRecord = {
        id,
        fileName: f.fileName,
        contentType: f.contentType ?? null,
        fileSize: f.fileSize ?? null,
        isPublic,
        status: null,
        errorMessage: null,
        parentId: body.parentId ?? null,
        parentType: body.parentType ?? null,
        folder,
        orgId,
        storageKey: objectKey(id, f.fileName, isPublic),
        createdAt: now,
        updatedAt: now,
      };
      records.push(record);
      const signedUrl = await storage.presignPut(record.storageKey, {
        expiresInSeconds: UPLOAD_URL_SECONDS,
        maxBytes: Math.min(MAX_FILE_BYTES, f.fileSize ?? MAX_FILE_BYTES),
      });
      out.push({ signedUrl, fileRecord: presentFile(record) });
    }
    await createUploadRecords(services, records);
    return ok({ files: out, expiresIn: UPLOAD_URL_SECONDS });
  }

  // fastify neither parses nor validates GET bodies: the handler checks this one against POST's schema (documented there).
  app.get(
    '/generate-upload-url',
    { schema: { response: uploadUrlsResponse(200) } },
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
    { schema: { body: UploadUrlRequestSchema, response: uploadUrlsResponse(201) } },
    async (request, reply) => {
      return reply.status(201).send(await generate(request, request.body));
    },
  );

  app.patch(
    '/status',
    { schema: { body: FileStatusUpdateSchema, response: { 200: Ok(FileSchema), ...errors } } },
    async (request) => {
      const body = request.body;
      requireUser(request);
      const file = findVisibleFile(services, request, body.fileId);
      requireRole(db, request, file.orgId, 'MEMBER', 'change file status');
      if (body.status === 'FAILED' && !body.errorMessage) {
        throw badRequest('errorMessage is required when status is FAILED', [
          detail(
            ['errorMessage'],
            'invalid_type',
            'string',
            undefined,
            'errorMessage is required when status is FAILED',
          ),
        ]);
      }
      assertMove(file.status, body.status);
      const next: FileRecord = {
        ...file,
        status: body.status,
        errorMessage: body.status === 'FAILED' ? body.errorMessage! : null,
        updatedAt: nowIso(),
      };
      if (body.status !== 'UPLOADED') {
        await setFileStatus(services, file, next);
        return ok(presentFile(next));
      }
      // Stat and record in one step: an upload to the key commits before the read or after the record is written, never between.
      const written = await storage.settle(file.storageKey, async (stat) => {
        if (!stat)
          throw new ApiError(
            'CONFLICT',
            `file ${file.id} has no uploaded object yet: PUT it to its signedUrl first`,
          );
        const limit = Math.min(MAX_FILE_BYTES, file.fileSize ?? MAX_FILE_BYTES);
        const tooLarge = stat.size > limit;
        const described: FileRecord = tooLarge
          ? {
              ...next,
              status: 'FAILED',
              errorMessage:
                stat.size > MAX_FILE_BYTES
                  ? `the uploaded object is ${stat.size} bytes, over the 100 MiB (${MAX_FILE_BYTES} bytes) limit`
                  : `the uploaded object is ${stat.size} bytes, more than the declared fileSize ${file.fileSize}`,
            }
          : {
              ...next,
              fileSize: stat.size,
              contentType: file.contentType ?? stat.contentType ?? null,
            };
        const written = await setFileStatus(services, file, described);
        // Deleted after the FAILED record is written (a stale request deletes nothing), before a retry may upload anew.
        if (tooLarge) await storage.delete(file.storageKey);
        return written;
      });
      return ok(presentFile(written));
    },
  );

  app.get(
    '/',
    {
      schema: {
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
  app.get('/access/:fileId', { schema: accessSchema }, async (request) => {
    const { fileId } = request.params;
    // FileAccessQuerySchema, read here: expiresIn once, decimal digits, 1 to 7 days; nothing else.
    const unknown = Object.keys(request.query).find((key) => key !== 'expiresIn');
    if (unknown !== undefined)
      throw new ApiError('VALIDATION_ERROR', 'Invalid query parameters', [
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
      throw new ApiError('VALIDATION_ERROR', 'Invalid query parameters', [
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
      throw new ApiError('VALIDATION_ERROR', 'Invalid query parameters', [
        detail(
          ['expiresIn'],
          'too_big',
          `integer from 1 to ${MAX_ACCESS_SECONDS}`,
          raw,
          `expiresIn must be from 1 to ${MAX_ACCESS_SECONDS} seconds`,
        ),
      ]);
    }
    const file = findVisibleFile(services, request, fileId);
    if (file.status === null || file.status === 'FAILED') {
      throw new ApiError(
        'CONFLICT',
        `file ${fileId} has no content to read (status ${file.status ?? 'null: awaiting upload'})`,
      );
    }
    if (file.isPublic)
      return ok({
        fileId,
        url: storage.publicUrl(file.storageKey),
        isPublic: true,
        expiresAt: null,
      });
    const url = await storage.presignGet(file.storageKey, {
      expiresInSeconds: expiresIn,
      fileName: file.fileName,
      ...(file.contentType ? { contentType: file.contentType } : {}),
    });
    return ok({
      fileId,
      url,
      isPublic: false,
      expiresAt: new Date(Date.now() + expiresIn * 1000).toISOString(),
    });
  });
}
