import type { ViewProps } from '../view-props.js';

/** Placeholder until the view is built. */
export function ChatView(_props: ViewProps) {
  return <p>Chat: not built yet.</p>;
}
