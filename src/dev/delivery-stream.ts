import type { DeliveryStreamFilters, PlatformClient } from '../client/index.js';
import type { DeliveryAttemptNotice } from '#contract';

/** Calls `onAttempt` for each attempt on the delivery stream until aborted, ended or failed; attempts before `onOpen` are not on it. */
export async function followDeliveries(
  client: PlatformClient,
  filters: DeliveryStreamFilters,
  onAttempt: (notice: DeliveryAttemptNotice) => void,
  options: { signal: AbortSignal; onOpen?: () => void },
): Promise<void> {
  for await (const event of client.emulator.deliveries.stream(filters, options)) {
    if (event.event === 'attempt' && typeof event.data === 'object' && event.data !== null)
      onAttempt(event.data as DeliveryAttemptNotice);
  }
}
