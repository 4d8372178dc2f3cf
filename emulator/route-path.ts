/**
 * The path a request URL names, spelled the way the router reads it, or more loosely: no scheme
 * and authority (the absolute form `http://host/api/…`), no query or fragment, every valid
 * percent-escape decoded (`/%61pi`), lower case and without repeated slashes.
 *
 * Guards decide by the route that matched (a hook in the plugin that owns a prefix, or
 * `request.routeOptions`), never by this. It serves only where no route matched (the router
 * refused the URL before any hook ran), to answer as the guard of the prefix the URL meant would.
 */
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
  path = path.replace(/%([0-9a-fA-F]{2})/g, (_escape, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return path.toLowerCase().replace(/\/{2,}/g, '/');
}

/** Whether a URL, however spelled, may name a path under `prefix` (lower case, e.g. `/api`); see loosePath. */
export function isUnderPrefix(url: string, prefix: string): boolean {
  const path = loosePath(url);
  return path === prefix || path.startsWith(prefix + '/');
}
