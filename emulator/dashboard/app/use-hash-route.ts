import { useEffect, useState } from 'react';

/** A path segment decoded; one that is not valid percent-encoding (a hand-made link) is taken as it is. */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** The hash route as path segments (`#/deliveries/dlv_1` gives ['deliveries', 'dlv_1']), following navigation. */
export function useHashRoute(): string[] {
  // A query after the path (`#/deliveries?status=failed`) is the view's own state: see hashQuery().
  const read = () =>
    location.hash
      .replace(/^#\/?/, '')
      .replace(/\?.*$/, '')
      .split('/')
      .filter((s) => s !== '')
      .map(decodeSegment);
  const [route, setRoute] = useState(read);
  // biome-ignore lint/correctness/useExhaustiveDependencies: read only reads location.hash: one listener for the component's life
  useEffect(() => {
    const onChange = () => setRoute(read());
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

/** The query of the hash route (`#/deliveries?status=failed` gives status=failed): a view's shareable state. */
export function hashQuery(): URLSearchParams {
  const at = location.hash.indexOf('?');
  return new URLSearchParams(at === -1 ? '' : location.hash.slice(at + 1));
}

/** Puts `query` in the hash route's query without a new history entry (a filter changed; reload and share keep it). */
export function replaceHashQuery(query: URLSearchParams): void {
  const path = location.hash.replace(/\?.*$/, '') || '#/';
  const next = query.size ? `${path}?${query}` : path;
  if (next !== location.hash)
    history.replaceState(history.state, '', `${location.pathname}${location.search}${next}`);
}

/** Goes to a dashboard page (`navigate('deliveries', id)`). */
export function navigate(...segments: string[]): void {
  location.hash = '#/' + segments.map(encodeURIComponent).join('/');
}
