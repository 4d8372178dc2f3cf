import { PARITY_VERSION, type ParityFile } from './format.js';
import { runProbe, type Created, type ProbeOptions, type ProbeTarget } from './probe.js';

/** A recording, and what the run created on the platform. */
export interface Recording {
  file: ParityFile;
  created: Created[];
}

/** A recording would hold a value the run saw (an id, a credential, a name or a text): it is not written. */
export class RecordingLeakError extends Error {}

/** Runs the probe journey and builds the parity file; refuses (RecordingLeakError) if any value the run saw would be written. */
export async function recordParity(
  target: ProbeTarget,
  kind: ParityFile['target']['kind'],
  options: ProbeOptions & { version?: string } = {},
): Promise<Recording> {
  const result = await runProbe(target, options);
  const file: ParityFile = {
    version: PARITY_VERSION,
    recordedAt: new Date().toISOString(),
    target: { kind },
    ...(options.version ? { plugsmith: options.version } : {}),
    exchanges: result.exchanges,
  };
  const text = JSON.stringify(file);
  const leaked = [...result.secrets].filter(
    (secret) => secret.length >= 4 && text.includes(secret),
  );
  if (leaked.length > 0)
    throw new RecordingLeakError(
      `the recording would hold ${leaked.length} value${leaked.length === 1 ? '' : 's'} the platform answered with (an id, a credential or a text); nothing was written. Please report this with the step names: ${stepsHolding(file, leaked).join(', ')}`,
    );
  return { file, created: result.created };
}

function stepsHolding(file: ParityFile, leaked: string[]): string[] {
  return file.exchanges
    .filter((exchange) => {
      const text = JSON.stringify(exchange);
      return leaked.some((secret) => text.includes(secret));
    })
    .map((exchange) => exchange.step);
}
