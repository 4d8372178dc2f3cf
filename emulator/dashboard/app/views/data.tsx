import type { ViewProps } from '../view-props.js';

/** Placeholder until the view is built. */
export function DataView(_props: ViewProps) {
  return <p>Data: not built yet.</p>;
}
