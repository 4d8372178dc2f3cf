import type { ViewProps } from '../view-props.js';

/** Placeholder until the view is built. */
export function InstallView(_props: ViewProps) {
  return <p>Install: not built yet.</p>;
}
