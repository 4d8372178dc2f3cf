import { badRequest, detail, type ErrorDetail } from '../errors.js';
import { MAX_ERROR_DETAILS } from '#contract';

/** The longest id a stored record may have (the contract's Id). */
const MAX_ID_LENGTH = 200;

/**
 * A cheap first pass over an import body, before its schema: unknown collections, records that are not objects, ids missing or
 * not strings. The schema check reports every problem it meets (a detail per record), which for a 12 MB body of millions of
 * wrong records held the event loop for seconds; this pass stops collecting at MAX_ERROR_DETAILS and only counts the rest.
 * A body it lets through is checked by the schema as before.
 */
export function refuseWrongImportShape(body: unknown, collectionNames: readonly string[]): void {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return;
  const collections = (body as { collections?: unknown }).collections;
  if (typeof collections !== 'object' || collections === null || Array.isArray(collections)) return;
  const known = new Set(collectionNames);
  const problems: ErrorDetail[] = [];
  let count = 0;
  const problem = (
    path: string[],
    code: string,
    expected: string,
    received: unknown,
    what: string,
  ) => {
    count++;
    if (problems.length < MAX_ERROR_DETAILS)
      problems.push(detail(path, code, expected, received, `${path.join('.')} ${what}`));
  };
  for (const [name, records] of Object.entries(collections)) {
    if (!known.has(name)) {
      problem(['collections', name], 'additionalProperties', 'absent', name, 'is not allowed here');
      continue;
    }
    if (!Array.isArray(records)) continue;
    for (let i = 0; i < records.length; i++) {
      const record: unknown = records[i];
      const path = ['collections', name, String(i)];
      if (typeof record !== 'object' || record === null || Array.isArray(record)) {
        problem(path, 'type', 'object', record, 'must be object');
        continue;
      }
      const id = (record as { id?: unknown }).id;
      if (id === undefined)
        problem([...path, 'id'], 'required', 'present', undefined, 'is required');
      else if (typeof id !== 'string' || id.length === 0 || id.length > MAX_ID_LENGTH)
        problem(
          [...path, 'id'],
          'type',
          `a string of 1 to ${MAX_ID_LENGTH} characters`,
          id,
          `must be a string of 1 to ${MAX_ID_LENGTH} characters`,
        );
    }
  }
  if (count === 0) return;
  const more = count > 1 ? ` (and ${count - 1} more)` : '';
  throw badRequest(`Invalid request body: ${problems[0].message}${more}`, problems);
}
