import { useEffect, useState } from 'react';

/** The hash route as path segments (`#/deliveries/dlv_1` gives ['deliveries', 'dlv_1']), following navigation. */
export function useHashRoute(): string[] {
  const read = () => location.hash.replace(/^#\/?/, '').split('/').filter((s) => s !== '').map(decodeURIComponent);
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
