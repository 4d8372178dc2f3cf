/** A value as formatted JSON in a scrollable, selectable block. */
export function JsonView({ value, label }: { value: unknown; label?: string }) {
  return (
    // biome-ignore lint/a11y/useSemanticElements lint/a11y/noNoninteractiveTabindex: a named group, not a <fieldset> of form fields; it takes focus so the keyboard can scroll it (axe: scrollable-region-focusable)
    <pre className="json" role="group" aria-label={label ?? 'JSON'} tabIndex={0}>
      {typeof value === 'string' ? value : JSON.stringify(value, null, 2)}
    </pre>
  );
}
