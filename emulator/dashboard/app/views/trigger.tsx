import type { ViewProps } from '../view-props.js';

/** Placeholder until the view is built. */
export function TriggerView(_props: ViewProps) {
  return <p>Trigger: not built yet.</p>;
}
