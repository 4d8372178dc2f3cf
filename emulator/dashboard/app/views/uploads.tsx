import type { ViewProps } from '../view-props.js';

/** Placeholder until the view is built. */
export function UploadsView(_props: ViewProps) {
  return <p>Uploads: not built yet.</p>;
}
