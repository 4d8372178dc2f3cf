/** JSON text of an object nested `depth` levels deep: {"a":{"a":…{"leaf":true}…}} (built as text: JSON.stringify would overflow). */
export function deepJson(depth: number): string {
  return '{"a":'.repeat(depth - 1) + '{"leaf":true}' + '}'.repeat(depth - 1);
}
