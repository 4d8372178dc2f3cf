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
  const read = () => location.hash.replace(/^#\/?/, '').split('/').filter((s) => s !== '').map(decodeSegment);
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const onChange = () => setRoute(read());
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

/** Goes to a dashboard page (`navigate('deliveries', id)`). */
export function navigate(...segments: string[]): void {
  location.hash = '#/' + segments.map(encodeURIComponent).join('/');
}
