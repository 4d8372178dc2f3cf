/** Request headers as node:http, express and fastify give them, or a fetch `Headers`. */
export type WebhookRequestHeaders = Record<string, string | string[] | undefined> | Headers;

/** Every value of one header, found case-insensitively; empty when absent. */
export function headerValues(headers: WebhookRequestHeaders, name: string): string[] {
  const wanted = name.toLowerCase();
  if (
    typeof (headers as Headers).get === 'function' &&
    typeof (headers as Headers).has === 'function'
  ) {
    const value = (headers as Headers).get(wanted);
    return value === null ? [] : [value];
  }
  // Plain objects may carry any casing (a hand-built record, a test), so compare every key.
  return Object.entries(headers as Record<string, string | string[] | undefined>).flatMap(
    ([key, value]) => (key.toLowerCase() === wanted && value !== undefined ? [value].flat() : []),
  );
}
