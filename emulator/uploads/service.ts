import type { FastifyRequest } from 'fastify';
import {
  MAX_FILE_BYTES,
  MAX_FILE_NAME_LENGTH,
  MAX_FOLDER_LENGTH,
  type FileStatusUpdate,
  type UploadUrlRequest,
  type UploadUrls,
} from '#contract';
import { HttpError, badRequest, conflict, detail, notFound, type ErrorDetail } from '../errors.js';
import type { Db, FileRecord } from '../model.js';
import type { StoreDeps } from '../context.js';
import { newId, nowIso } from '../store/ids.js';
import { owningOrg } from '../api/owning-org.js';
import { hasRole } from '../auth/guards.js';
import type { ObjectStorage } from './storage/types.js';
import { objectKey } from './storage/keys.js';
import { assertMove } from './rules.js';
import { presentFile } from './files.js';

/** What the uploads feature needs: the store, and the object storage. */
export interface UploadDeps extends StoreDeps {
  storage: ObjectStorage;
}

/** How long an upload URL stays valid. */
const UPLOAD_URL_SECONDS = 3600;

/** A signed access URL to a file's content. */
export interface FileAccess {
  fileId: string;
  url: string;
  isPublic: boolean;
  expiresAt: string | null;
}

/** Refuses file names and a folder longer than the limits: the schema's maxLength counts code points, these limits UTF-16 units (an emoji counts 2). */
export function checkUploadRequest(body: UploadUrlRequest): void {
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
}

/** Which org owns an upload: the parent's (a 404 for an unknown parent), else the owning-org rule (orgId, the token's org, the caller's only org). */
export function uploadOrg(db: Db, request: FastifyRequest, body: UploadUrlRequest): string {
  return owningOrg(db, request, {
    fixed: parentOrg(db, request, body),
    of: `${body.parentType?.toLowerCase()} ${body.parentId}`,
    given: body.orgId,
    ask: 'which org owns these files? give parentId and parentType, or orgId',
  });
}

/**
 * The org of an upload's parent; null without a parent, or for KNOWLEDGE (not stored: its files go to the org chosen
 * as without a parent). An unknown parent is a 404, and so is a character or agent of an org the caller is not in.
 */
function parentOrg(db: Db, request: FastifyRequest, body: UploadUrlRequest): string | null {
  // The schema gives parentId and parentType together or not at all.
  if (!body.parentType || !body.parentId || body.parentType === 'KNOWLEDGE') return null;
  const id = body.parentId;
  const orgId = {
    ORG: db.orgs.get(id)?.id,
    CHARACTER: db.characters.get(id)?.orgId,
    AGENT: db.agents.get(id)?.orgId,
  }[body.parentType];
  if (!orgId) throw notFound(body.parentType.toLowerCase(), id);
  // Characters and agents are private to their org: a 403 naming the org would tell a non-member they exist, and where.
  // An org is not: anyone may learn it exists (a non-member gets the 403 of a missing role, as creating in it).
  if (body.parentType !== 'ORG' && !hasRole(db, request.principal, orgId, 'VIEWER'))
    throw notFound(body.parentType.toLowerCase(), id);
  return orgId;
}

/** Creates the records of new uploads in `orgId` (status null: awaiting upload), all in one journal line, each with a signed upload URL. */
export async function createUploads(
  services: UploadDeps,
  orgId: string,
  body: UploadUrlRequest,
): Promise<UploadUrls> {
  const now = nowIso();
  const folder = body.folder?.replace(/^\/+|\/+$/g, '') ?? null;
  const files: UploadUrls['files'] = [];
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
    const signedUrl = await services.storage.presignPut(record.storageKey, {
      expiresInSeconds: UPLOAD_URL_SECONDS,
      maxBytes: Math.min(MAX_FILE_BYTES, f.fileSize ?? MAX_FILE_BYTES),
    });
    files.push({ signedUrl, fileRecord: presentFile(record) });
  }
  await services.store.atomically(() => {
    for (const record of records) void services.db.files.put(record);
  });
  return { files, expiresIn: UPLOAD_URL_SECONDS };
}

/**
 * Changes a file's status along the status machine. UPLOADED checks the object: its size is recorded, and an object
 * over the declared size or the limit makes the file FAILED (and is deleted).
 */
export async function changeFileStatus(
  services: UploadDeps,
  file: FileRecord,
  change: FileStatusUpdate,
): Promise<FileRecord> {
  if (change.status === 'FAILED' && !change.errorMessage) {
    // Absent, or present and empty: the detail names what was received.
    const absent = change.errorMessage === undefined;
    throw badRequest('errorMessage is required when status is FAILED', [
      detail(
        ['errorMessage'],
        absent ? 'invalid_type' : 'too_small',
        absent ? 'string' : 'a non-empty string',
        change.errorMessage,
        absent
          ? 'errorMessage is required when status is FAILED'
          : 'errorMessage must not be empty when status is FAILED: say why the upload failed',
      ),
    ]);
  }
  assertMove(file.status, change.status);
  const next: FileRecord = {
    ...file,
    status: change.status,
    errorMessage: change.status === 'FAILED' ? change.errorMessage! : null,
    updatedAt: nowIso(),
  };
  if (change.status !== 'UPLOADED') return setFileStatus(services, file, next);
  const { storage } = services;
  // Stat and record in one step: an upload to the key commits before the read or after the record is written, never between.
  return storage.settle(file.storageKey, async (stat) => {
    if (!stat)
      throw new HttpError(
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
              ? `the uploaded object is ${stat.size} bytes, over the 100 MB (${MAX_FILE_BYTES} bytes) limit`
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
}

/** A URL to read a file's content: its public URL, or one signed for `expiresIn` seconds; a 409 while it has no content. */
export async function fileAccess(
  services: UploadDeps,
  file: FileRecord,
  expiresIn: number,
): Promise<FileAccess> {
  if (file.status === null || file.status === 'FAILED') {
    throw new HttpError(
      'CONFLICT',
      `file ${file.id} has no content to read (status ${file.status ?? 'null: awaiting upload'})`,
    );
  }
  const { storage } = services;
  if (file.isPublic)
    return {
      fileId: file.id,
      url: storage.publicUrl(file.storageKey),
      isPublic: true,
      expiresAt: null,
    };
  const url = await storage.presignGet(file.storageKey, {
    expiresInSeconds: expiresIn,
    fileName: file.fileName,
    ...(file.contentType ? { contentType: file.contentType } : {}),
  });
  return {
    fileId: file.id,
    url,
    isPublic: false,
    expiresAt: new Date(Date.now() + expiresIn * 1000).toISOString(),
  };
}

/** Writes a file's new status only if `observed` is still current (else a 409): a late UPLOADED never overwrites a COMPLETED. */
export async function setFileStatus(
  services: StoreDeps,
  observed: FileRecord,
  next: FileRecord,
): Promise<FileRecord> {
  const current = services.db.files.get(observed.id);
  if (!current) throw conflict(`file ${observed.id} was deleted meanwhile`);
  if (current.status !== observed.status || current.updatedAt !== observed.updatedAt) {
    throw conflict(
      `file ${observed.id} changed meanwhile (status ${observed.status ?? 'null'} became ${current.status ?? 'null'}); read it again and retry`,
    );
  }
  assertMove(current.status, next.status!);
  await services.db.files.put(next);
  return next;
}
