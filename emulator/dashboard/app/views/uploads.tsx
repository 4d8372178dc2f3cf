import { useEffect, useState } from 'react';
import { ApiFailure, call, currentWorkspace } from '../api.js';
import { ErrorBox } from '../components/error-box.js';
import type { ViewProps } from '../view-props.js';
import type { File as FileRecord, Repository, UploadUrls } from '#contract/resources';
import { MAX_FILES_PER_REQUEST } from '#contract/requests';
import { fileNameProblem, folderProblem } from '../file-names.js';
import { humanSize, isolated } from '../format.js';
import './data-views.css';

/** One file of the page's uploads, from the drop to its last step. */
interface UploadRow {
  key: string;
  name: string;
  size: number;
  loaded: number;
  step: 'waiting' | 'signing' | 'uploading' | 'marking' | 'attaching' | 'done' | 'failed';
  record: FileRecord | null;
  error: unknown;
}

/** PUTs the bytes to the signed URL with XMLHttpRequest, whose upload events give the progress fetch cannot. */
function putWithProgress(
  url: string,
  file: File,
  contentType: string,
  onProgress: (loaded: number) => void,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('PUT', url);
    xhr.setRequestHeader('content-type', contentType);
    xhr.upload.onprogress = (event) => onProgress(event.loaded);
    xhr.onload = () =>
      xhr.status >= 200 && xhr.status < 300
        ? resolve()
        : reject(new Error(`storage answered ${xhr.status}: ${xhr.responseText.slice(0, 300)}`));
    xhr.onerror = () =>
      reject(
        new Error(
          'the upload could not reach storage (network error, or the Content-Security-Policy refused the storage origin)',
        ),
      );
    xhr.send(file);
  });
}

/**
 * The Uploads page: files dropped (or picked) go through the same signed-URL flow as
 * `plugsmith files upload`: `POST /api/generate-upload-url` (ten files at a time), a PUT of each
 * file to its signed URL (with progress), `PATCH /api/status` UPLOADED (or FAILED with the reason),
 * and, when a repository is picked, `POST /api/repositories/:id/files`.
 */
export function UploadsView(_props: ViewProps) {
  const workspace = currentWorkspace();
  const [repositories, setRepositories] = useState<Repository[]>([]);
  const [repositoryId, setRepositoryId] = useState('');
  const [folder, setFolder] = useState('');
  const [isPublic, setIsPublic] = useState(false);
  const [rows, setRows] = useState<UploadRow[]>([]);
  const [over, setOver] = useState(false);
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    if (!workspace.orgId) return;
    call<Repository[]>(
      'api',
      'GET',
      `/orgs/${encodeURIComponent(workspace.orgId)}/repositories?@sortBy=name&@sortOrder=asc&@limit=100`,
    ).then((a) => setRepositories(a.data), setError);
  }, [workspace.orgId]);

  const update = (key: string, patch: Partial<UploadRow>) =>
    setRows((current) => current.map((r) => (r.key === key ? { ...r, ...patch } : r)));

  async function uploadOne(
    row: UploadRow,
    file: File,
    signedUrl: string,
    record: FileRecord,
    target: string,
  ) {
    update(row.key, { step: 'uploading', record });
    try {
      await putWithProgress(
        signedUrl,
        file,
        record.contentType ?? 'application/octet-stream',
        (loaded) => update(row.key, { loaded }),
      );
    } catch (failure) {
      update(row.key, { step: 'failed', error: failure });
      // As the CLI does: the record says why the upload failed.
      await call('api', 'PATCH', '/status', {
        fileId: record.id,
        status: 'FAILED',
        errorMessage: (failure as Error).message.slice(0, 2000),
      }).catch(() => undefined);
      return;
    }
    try {
      update(row.key, { step: 'marking', loaded: file.size });
      const marked = await call<FileRecord>('api', 'PATCH', '/status', {
        fileId: record.id,
        status: 'UPLOADED',
      });
      update(row.key, { record: marked.data });
      if (marked.data.status !== 'UPLOADED')
        throw new Error(marked.data.errorMessage ?? `status ${marked.data.status}`);
      if (target !== '') {
        update(row.key, { step: 'attaching' });
        await call('api', 'POST', `/repositories/${encodeURIComponent(target)}/files`, {
          fileId: record.id,
        });
      }
      update(row.key, { step: 'done' });
    } catch (failure) {
      update(row.key, { step: 'failed', error: failure });
    }
  }

  async function upload(chosen: File[]) {
    if (chosen.length === 0 || !workspace.orgId) return;
    const target = repositoryId;
    const folderRefused = folderProblem(folder.trim());
    if (folderRefused) {
      setError(new Error(`Nothing was uploaded: ${folderRefused}.`));
      return;
    }
    setError(null);
    const made = Date.now();
    const rowOf = (f: File, i: number): UploadRow => ({
      key: `${made}-${i}-${f.name}`,
      name: f.name,
      size: f.size,
      loaded: 0,
      step: 'waiting',
      record: null,
      error: null,
    });
    // A name the emulator would refuse fails that file alone, here, with a sentence; the others go.
    const refused: UploadRow[] = [];
    const files: File[] = [];
    const batchRows: UploadRow[] = [];
    chosen.forEach((f, i) => {
      const problem = fileNameProblem(f.name);
      if (problem === null) {
        files.push(f);
        batchRows.push(rowOf(f, i));
        return;
      }
      refused.push({
        ...rowOf(f, i),
        step: 'failed',
        error: new Error(`Not uploaded: ${problem}.`),
      });
    });
    setRows((current) => [...refused, ...batchRows, ...current]);
    for (let start = 0; start < files.length; start += MAX_FILES_PER_REQUEST) {
      const batch = files.slice(start, start + MAX_FILES_PER_REQUEST);
      const keys = batchRows.slice(start, start + MAX_FILES_PER_REQUEST);
      for (const row of keys) update(row.key, { step: 'signing' });
      let signed: UploadUrls;
      try {
        const body = {
          files: batch.map((f) => ({
            fileName: f.name,
            contentType: f.type || 'application/octet-stream',
            fileSize: f.size,
            isPublic,
          })),
          parentType: 'ORG',
          parentId: workspace.orgId,
          ...(folder.trim() !== '' ? { folder: folder.trim() } : {}),
        };
        signed = (await call<UploadUrls>('api', 'POST', '/generate-upload-url', body)).data;
      } catch (failure) {
        for (const row of keys) update(row.key, { step: 'failed', error: failure });
        continue;
      }
      await Promise.all(
        batch.map((file, i) =>
          uploadOne(keys[i], file, signed.files[i].signedUrl, signed.files[i].fileRecord, target),
        ),
      );
    }
  }

  if (!workspace.orgId) return <p className="muted">The workspace has no org to upload into.</p>;
  return (
    <div>
      <h1 className="visually-hidden">Uploads</h1>
      <div className="toolbar">
        <label>
          Upload into
          <select value={repositoryId} onChange={(e) => setRepositoryId(e.target.value)}>
            <option value="">the org {workspace.orgId} (no repository)</option>
            {repositories.map((r) => (
              <option key={r.id} value={r.id}>
                repository {isolated(r.name)} ({r.id})
              </option>
            ))}
          </select>
        </label>
        <label>
          Folder (optional)
          <input
            value={folder}
            onChange={(e) => setFolder(e.target.value)}
            placeholder="docs/2026"
          />
        </label>
        <label className="check" style={{ flexDirection: 'row', alignItems: 'center', gap: 6 }}>
          <input
            type="checkbox"
            checked={isPublic}
            onChange={(e) => setIsPublic(e.target.checked)}
          />
          Public files
        </label>
      </div>
      <ErrorBox error={error} />
      <section
        className={over ? 'dropzone over' : 'dropzone'}
        aria-label="Drop files here to upload them"
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={(e) => {
          e.preventDefault();
          setOver(false);
          void upload([...e.dataTransfer.files]);
        }}
      >
        <p>Drop files here, or</p>
        <label className="button-like">
          Choose files to upload
          <input
            type="file"
            multiple
            onChange={(e) => {
              const files = [...(e.target.files ?? [])];
              e.target.value = '';
              void upload(files);
            }}
          />
        </label>
      </section>
      {rows.length === 0 ? (
        <p className="muted">
          Nothing uploaded from this page yet: drop files above, or run{' '}
          <code>
            plugsmith files upload ./guide.pdf --parent-type ORG --parent-id {workspace.orgId}
          </code>
          . Every uploaded file, from here or elsewhere, is in{' '}
          <a href="#/data/uploads">Data → Uploads</a>.
        </p>
      ) : (
        <table>
          <caption className="visually-hidden">Uploads of this page</caption>
          <thead>
            <tr>
              <th scope="col">File</th>
              <th scope="col">Bytes</th>
              <th scope="col">Progress</th>
              <th scope="col">Step</th>
              <th scope="col">Status</th>
              <th scope="col">File id</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.key} aria-label={`Upload of ${isolated(r.name)}`}>
                <td>
                  <bdi>{r.name}</bdi>
                </td>
                <td title={`${r.size} bytes`}>{humanSize(r.size)}</td>
                <td>
                  <progress
                    max={Math.max(r.size, 1)}
                    value={r.step === 'done' ? Math.max(r.size, 1) : r.loaded}
                    aria-label={`Progress of ${isolated(r.name)}`}
                  />
                </td>
                <td>{r.step}</td>
                <td
                  className={
                    r.record?.status === 'UPLOADED'
                      ? 'status-ok'
                      : r.step === 'failed'
                        ? 'status-bad'
                        : undefined
                  }
                >
                  {r.record?.status ?? (r.step === 'failed' ? 'FAILED' : '—')}
                  {r.step === 'failed' &&
                    (r.error instanceof ApiFailure || r.error instanceof Error) && (
                      <ErrorBox error={r.error} />
                    )}
                </td>
                <td>
                  <code>{r.record?.id ?? ''}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
