import type { ViewProps } from '../view-props.js';

/** Placeholder until the view is built. */
export function DeliveriesView(_props: ViewProps) {
  return <p>Deliveries: not built yet.</p>;
}
