import type { ViewProps } from '../view-props.js';

/** Placeholder until the view is built. */
export function OverviewView(_props: ViewProps) {
  return <p>Overview: not built yet.</p>;
}
