import type { Api } from '../api.js';
import { segment as s, plainParams, serializeListQuery, type ListQuery } from '../query.js';
import { ApiError } from '../errors.js';
import type { CallOptions, Transport } from '../transport.js';
import type {
  FileAccess,
  FileRecord,
  FileStatusUpdate,
  ParentType,
  UploadUrlRequest,
  UploadUrls,
} from '../types.js';
import { uploadFile, type UploadFileOptions, type UploadSource } from '../upload-file.js';

/** Query of the file listing: the owning entity plus the shared query system. */
export interface FileListQuery extends ListQuery {
  parentId?: string;
  parentType?: ParentType;
}

/** The upload interface: signed URLs, file status, listings, access URLs, and the upload itself. */
export function uploadsResource(api: Api, transport: Transport) {
  return {
    /**
     * POST /api/generate-upload-url, which proxies and gateways pass on (many drop the body of a GET, or refuse it: Prism
     * answers 501); a platform that answers the POST 404 or 405 (it has only the spec's GET form) is asked again with
     * GET and the same JSON body. Neither is retried otherwise, as they create records; a 404 or 405 created none.
     */
    generateUploadUrls: async (body: UploadUrlRequest, options?: CallOptions) => {
      const path = '/api/generate-upload-url';
      try {
        return await api.data<UploadUrls>('POST', path, { body, options, idempotent: false });
      } catch (error) {
        const noPostForm =
          error instanceof ApiError && (error.status === 404 || error.status === 405);
        if (!noPostForm) throw error;
        return api.data<UploadUrls>('GET', path, { body, options, idempotent: false });
      }
    },
    /** PATCH /api/status: UPLOADED after the PUT succeeded, FAILED with an errorMessage otherwise. */
    setStatus: (body: FileStatusUpdate, options?: CallOptions) =>
      api.data<FileRecord>('PATCH', '/api/status', { body, options }),
    /** GET /api?parentId=&parentType=: the files of one parent entity. */
    list: (query: FileListQuery = {}, options?: CallOptions) => {
      const { parentId, parentType, ...rest } = query;
      return api.page<FileRecord>('GET', '/api', {
        query: [...plainParams({ parentId, parentType }), ...serializeListQuery(rest)],
        options,
      });
    },
    /** GET /api/access/:fileId: a signed URL (private file) or direct URL (public file). */
    accessUrl: (fileId: string, expiresIn?: number, options?: CallOptions) =>
      api.data<FileAccess>('GET', `/api/access/${s(fileId)}`, {
        query: plainParams({ expiresIn }),
        options,
      }),
    /** Streams a file (path or stream) to a signed URL with a plain PUT, reporting progress. */
    uploadFile: (signedUrl: string, source: UploadSource, options?: UploadFileOptions) =>
      uploadFile(transport, signedUrl, source, options),
  };
}

export type UploadsResource = ReturnType<typeof uploadsResource>;
