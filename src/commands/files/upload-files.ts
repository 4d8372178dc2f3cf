import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { lookup } from 'mime-types';
import {
  isApiError,
  type FileRecord,
  type PlatformClient,
  type UploadFileSpec,
} from '../../client/index.js';
import { UserError, EXIT } from '../../errors.js';
import type { TransferProgress } from '../../ui/progress.js';

/** The spec's limit of files per upload-URL request. */
const BATCH_SIZE = 10;

/** What happened to one path. `fileId` is null when no record was created. */
export interface UploadOutcome {
  path: string;
  fileName: string;
  fileId: string | null;
  size: number | null;
  status: 'UPLOADED' | 'FAILED';
  error: string | null;
  /** For the exit code (not printed). */
  cause?: unknown;
}

interface UploadTarget {
  parentType: string;
  parentId: string;
  folder?: string;
  isPublic?: boolean;
  concurrency: number;
}

/** The error as one line, with the platform's details (they say which field was refused). */
function messageOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const details = (error as { details?: Array<{ message?: string }> }).details;
  const extra = Array.isArray(details) ? details.map((d) => d.message).filter(Boolean) : [];
  return extra.length ? `${error.message}: ${extra.join('; ')}` : error.message;
}

interface Candidate {
  /** In the paths given. */
  index: number;
  path: string;
  fileName: string;
  size: number;
  contentType: string;
}

/** Uploads every path (ten signed URLs at a time, streamed, then UPLOADED or FAILED); a failing file never stops the others. */
export async function uploadFiles(
  client: PlatformClient,
  paths: string[],
  target: UploadTarget,
  progress: TransferProgress,
): Promise<UploadOutcome[]> {
  // By position, so a path given twice is uploaded (and reported) twice.
  const outcomes: UploadOutcome[] = new Array(paths.length);

  for (let start = 0; start < paths.length; start += BATCH_SIZE) {
    // Sizes are read per batch, just before asking for URLs, so they match what is sent.
    const candidates: Candidate[] = [];
    for (let index = start; index < Math.min(paths.length, start + BATCH_SIZE); index++) {
      const path = paths[index];
      try {
        const info = await stat(path);
        if (!info.isFile()) throw new UserError(`${path} is not a file`, EXIT.USAGE);
        candidates.push({
          index,
          path,
          fileName: basename(path),
          size: info.size,
          contentType: lookup(path) || 'application/octet-stream',
        });
      } catch (error) {
        const cause =
          (error as NodeJS.ErrnoException).code === 'ENOENT'
            ? new UserError(`${path}: no such file`, EXIT.NOT_FOUND)
            : error;
        outcomes[index] = {
          path,
          fileName: basename(path),
          fileId: null,
          size: null,
          status: 'FAILED',
          error: messageOf(cause),
          cause,
        };
      }
    }
    if (candidates.length === 0) continue;
    progress.expect(
      candidates.length,
      candidates.reduce((sum, c) => sum + c.size, 0),
    );

    const signed = await requestUrls(client, candidates, target);
    const queue = candidates.map((candidate, i) => ({ candidate, signed: signed[i] }));
    const worker = async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        const { candidate, signed: answer } = next;
        const outcome =
          answer instanceof Error || answer === undefined
            ? {
                path: candidate.path,
                fileName: candidate.fileName,
                fileId: null,
                size: candidate.size,
                status: 'FAILED' as const,
                error: messageOf(answer ?? 'no upload URL returned'),
                cause: answer,
              }
            : await sendOne(client, candidate, answer, progress);
        progress.done(String(candidate.index), candidate.size);
        outcomes[candidate.index] = outcome;
      }
    };
    await Promise.all(Array.from({ length: Math.min(target.concurrency, queue.length) }, worker));
  }
  return outcomes;
}

type SignedFile = { signedUrl: string; fileRecord: FileRecord };

/** Asks for the batch's URLs; when the platform refuses the batch as invalid, each file is asked for alone, so only bad ones fail. */
async function requestUrls(
  client: PlatformClient,
  batch: Candidate[],
  target: UploadTarget,
): Promise<Array<SignedFile | Error>> {
  const ask = (files: Candidate[]) =>
    client.uploads.generateUploadUrls({
      files: files.map(
        (c): UploadFileSpec => ({
          fileName: c.fileName,
          contentType: c.contentType,
          fileSize: c.size,
          isPublic: Boolean(target.isPublic),
        }),
      ),
      parentType: target.parentType,
      parentId: target.parentId,
      ...(target.folder !== undefined ? { folder: target.folder } : {}),
    });
  try {
    const answer = await ask(batch);
    return batch.map(
      (_, i) =>
        answer.files[i] ??
        new Error('the platform returned fewer upload URLs than files asked for'),
    );
  } catch (error) {
    if (!(isApiError(error) && error.status === 400 && batch.length > 1))
      return batch.map(() => error as Error);
    const one: Array<SignedFile | Error> = [];
    for (const candidate of batch) {
      try {
        one.push((await ask([candidate])).files[0]);
      } catch (single) {
        one.push(single as Error);
      }
    }
    return one;
  }
}

async function sendOne(
  client: PlatformClient,
  candidate: Candidate,
  signed: SignedFile,
  progress: TransferProgress,
): Promise<UploadOutcome> {
  const fileId = signed.fileRecord.id;
  const base = { path: candidate.path, fileName: candidate.fileName, fileId, size: candidate.size };
  try {
    await client.uploads
      .uploadFile(signed.signedUrl, candidate.path, {
        size: candidate.size,
        contentType: candidate.contentType,
        onProgress: (sent) => progress.update(String(candidate.index), candidate.fileName, sent),
      })
      .catch(async (sendError: unknown) => {
        throw (await changedOnDisk(candidate)) ?? sendError;
      });
    await client.uploads.setStatus({ fileId, status: 'UPLOADED' });
    return { ...base, status: 'UPLOADED', error: null };
  } catch (error) {
    // The send failed, or the platform refused UPLOADED (e.g. the stored object does not match): record why.
    await markFailed(client, fileId, error);
    return { ...base, status: 'FAILED', error: messageOf(error), cause: error };
  }
}

/** After a failed send: a file removed or resized while read is the story to tell, not "content-length mismatch". */
async function changedOnDisk(candidate: Candidate): Promise<UserError | undefined> {
  const now = await stat(candidate.path).catch(() => null);
  if (now === null)
    return new UserError(`${candidate.path} was removed during the upload`, EXIT.UNEXPECTED);
  if (now.size !== candidate.size) {
    return new UserError(
      `${candidate.path} changed during the upload (${candidate.size} bytes when the upload started, ${now.size} now)`,
      EXIT.UNEXPECTED,
    );
  }
  return undefined;
}

/** Best effort: the record may already be FAILED (the platform marks size mismatches itself). */
async function markFailed(client: PlatformClient, fileId: string, error: unknown): Promise<void> {
  try {
    await client.uploads.setStatus({
      fileId,
      status: 'FAILED',
      errorMessage: messageOf(error).slice(0, 1000),
    });
  } catch {
    // The outcome already carries the original error.
  }
}
