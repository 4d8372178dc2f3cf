/** A URL's path read at least as loosely as the router (escapes decoded, lower case, single slashes), for where no route matched. */
export function loosePath(url: string): string {
  let path = url;
  if (!path.startsWith('/')) {
    const scheme = path.indexOf('://');
    if (scheme !== -1) {
      const slash = path.indexOf('/', scheme + 3);
      path = slash === -1 ? '/' : path.slice(slash);
    }
  }
  const end = path.search(/[?#]/);
  if (end !== -1) path = path.slice(0, end);
  path = path.replace(/%([0-9a-fA-F]{2})/g, (_escape, hex: string) =>
    String.fromCharCode(parseInt(hex, 16)),
  );
  return path.toLowerCase().replace(/\/{2,}/g, '/');
}

/** Whether a URL, however spelled, may name a path under `prefix` (lower case, e.g. `/api`); see loosePath. */
export function isUnderPrefix(url: string, prefix: string): boolean {
  const path = loosePath(url);
  return path === prefix || path.startsWith(prefix + '/');
}
