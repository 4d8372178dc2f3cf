/** An OpenAPI link: from a create's answer to an operation on what it made. */
export interface OperationLink {
  operationId: string;
  parameters: Record<string, string>;
  description: string;
}

/** The id of what a create just made, in its answer (`{ ok, data: { id } }`). */
export const MADE_ID = '$response.body#/data/id';

/**
 * The links of a create route (its route option `links: { 201: linksTo(…) }`), one per operation on what it made.
 * `operations` maps each target operationId to what it does, `{made}` standing for "the <made> just made".
 */
export function linksTo(
  made: string,
  parameters: Record<string, string>,
  operations: Record<string, string>,
): Record<string, OperationLink> {
  return Object.fromEntries(
    Object.entries(operations).map(([operationId, template]) => [
      operationId,
      {
        operationId,
        parameters,
        description: template.replace('{made}', `the ${made} just made`),
      },
    ]),
  );
}
