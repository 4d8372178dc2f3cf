// A small JSON client for the bench suites: calls the emulator over real HTTP (undici) and
// throws with the error envelope when a call does not answer 2xx.
import { request } from 'undici';

/** Returns `call(method, path, body?)` → the envelope's `data`, against `base` with `authorization`. */
export function apiClient(base, authorization, extraHeaders = {}) {
  return async function call(method, path, body) {
    const headers = authorization ? { authorization, ...extraHeaders } : { ...extraHeaders };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await request(base + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.body.text();
    if (res.statusCode < 200 || res.statusCode > 299)
      throw new Error(`${method} ${path} → ${res.statusCode}: ${text.slice(0, 500)}`);
    return text ? JSON.parse(text).data : undefined;
  };
}

/** A body of `size` bytes as an async iterable of reused 64 KiB chunks (no file, next to no memory). */
export async function* syntheticBody(size, chunkSize = 64 * 1024) {
  const chunk = Buffer.alloc(chunkSize, 0x61);
  let left = size;
  while (left > 0) {
    const n = Math.min(left, chunkSize);
    yield n === chunkSize ? chunk : chunk.subarray(0, n);
    left -= n;
  }
}

/** PUTs `size` synthetic bytes to a URL (streamed, with content-length); throws on a non-2xx. */
export async function putBytes(url, size, contentType = 'application/octet-stream') {
  const res = await request(url, {
    method: 'PUT',
    headers: { 'content-type': contentType, 'content-length': String(size) },
    body: syntheticBody(size),
  });
  const text = await res.body.text();
  if (res.statusCode < 200 || res.statusCode > 299)
    throw new Error(`PUT ${url.split('?')[0]} → ${res.statusCode}: ${text.slice(0, 300)}`);
}

/** The spec's upload flow on the emulator: generate-upload-url, PUT to the signed URL, PATCH status UPLOADED; resolves with the file id. */
export async function uploadFile(call, { orgId, fileName, size, contentType = 'text/plain' }) {
  const generated = await call('POST', '/api/generate-upload-url', {
    orgId,
    files: [{ fileName, contentType, fileSize: size }],
  });
  const { signedUrl, fileRecord } = generated.files[0];
  await putBytes(signedUrl, size, contentType);
  await call('PATCH', '/api/status', { fileId: fileRecord.id, status: 'UPLOADED' });
  return fileRecord.id;
}

/** Reads a child's memory sampler (servers/stats.js); `reset` starts a new window. */
export async function memoryStats(statsUrl, reset = false) {
  const res = await request(statsUrl, { method: reset ? 'POST' : 'GET' });
  return res.body.json();
}
