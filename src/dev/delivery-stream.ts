import type { DeliveryStreamFilters, PlatformClient } from '../client/index.js';
import type { DeliveryAttemptNotice } from '../contract/index.js';

/**
 * Reads `GET /_emulator/deliveries/stream` and calls `onAttempt` for every attempt until the signal
 * aborts or the stream ends (resolves) or fails (throws). `onOpen` says when the stream is open:
 * attempts made before that moment are not on it.
 */
export async function followDeliveries(
  client: PlatformClient,
  filters: DeliveryStreamFilters,
  onAttempt: (notice: DeliveryAttemptNotice) => void,
  options: { signal: AbortSignal; onOpen?: () => void },
): Promise<void> {
  for await (const event of client.emulator.deliveries.stream(filters, options)) {
    if (event.event === 'attempt' && typeof event.data === 'object' && event.data !== null) onAttempt(event.data as DeliveryAttemptNotice);
  }
}
