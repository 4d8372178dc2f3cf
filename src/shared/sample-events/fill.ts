// Pure (no Node built-ins): the dashboard's Trigger fills the same fixtures in the browser.

/** Fills `{{name}}` placeholders: a string that is only one takes the value as it is; values are filled too (a few levels). */
export function fill(template: unknown, context: Record<string, unknown>, depth = 0): unknown {
  if (depth > 5) return template;
  if (typeof template === 'string') {
    const whole = /^\{\{(\w+)\}\}$/.exec(template);
    if (whole) return whole[1] in context ? fill(context[whole[1]], context, depth + 1) : null;
    return template.replace(/\{\{(\w+)\}\}/g, (m, name: string) =>
      name in context ? String(fill(context[name], context, depth + 1)) : m,
    );
  }
  if (Array.isArray(template)) return template.map((v) => fill(v, context, depth));
  if (template && typeof template === 'object') {
    return Object.fromEntries(
      Object.entries(template).map(([k, v]) => [k, fill(v, context, depth)]),
    );
  }
  return template;
}
