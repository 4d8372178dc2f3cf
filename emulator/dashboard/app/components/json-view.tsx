import { useState } from 'react';
import { humanSize } from '../format.js';

/** A value as formatted JSON in a scrollable, selectable block. */
export function JsonView({
  value,
  label,
  collapseAbove,
}: {
  value: unknown;
  label?: string;
  /** Past this many lines the block starts collapsed to its first lines, with a button to show it all. */
  collapseAbove?: number;
}) {
  const text = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
  const [expanded, setExpanded] = useState(false);
  const lines = text.split('\n');
  const collapsible = collapseAbove !== undefined && lines.length > collapseAbove;
  const collapsed = collapsible && !expanded;
  const shown = collapsed ? `${lines.slice(0, collapseAbove).join('\n')}\n…` : text;
  const size = humanSize(new TextEncoder().encode(text).length);
  return (
    <>
      {/* biome-ignore lint/a11y/useSemanticElements lint/a11y/noNoninteractiveTabindex: a named group, not a <fieldset> of form fields; it takes focus so the keyboard can scroll it (axe: scrollable-region-focusable) */}
      <pre className="json" role="group" aria-label={label ?? 'JSON'} tabIndex={0}>
        {shown}
      </pre>
      {collapsible && (
        <button type="button" aria-expanded={expanded} onClick={() => setExpanded((e) => !e)}>
          {expanded
            ? `Show the first ${collapseAbove} lines only`
            : `Show all ${lines.length.toLocaleString('en')} lines (${size})`}
        </button>
      )}
    </>
  );
}
