import { expect, it } from 'vitest';
import { emulatorInternals } from '../../../emulator/internals.js';
import { api, emulator, receiver } from '../../kit/index.js';

// A listener of delivery attempts (the delivery stream's, say) that throws must neither fail the delivery
// nor vanish: the attempt is logged as it went, the other listeners still hear of it, and the emulator's
// log tells of the throw with its stack. It used to be swallowed without a word.

it('a listener of attempts that throws is told in the log with its stack, and the delivery and the other listeners go on', async () => {
  const lines: string[] = [];
  const emu = await emulator({ log: (line) => lines.push(line) });
  const webhook = await receiver();
  const { dispatcher } = emulatorInternals(emu);
  dispatcher.onAttempt(() => {
    throw new TypeError('a bug in a listener');
  });
  const heard: string[] = [];
  dispatcher.onAttempt((notice) => heard.push(notice.delivery.id));

  const management = api(emu);
  const plugin = await management.data('POST', '/api/plugins', {
    orgId: emu.orgId,
    name: 'listened to',
    type: 'EVENT_HANDLER',
    webhookUrl: webhook.webhookUrl,
  });
  const verification = await management.data('POST', `/api/plugins/${plugin.id}/verify-webhook`);

  expect(verification.verified).toBe(true);
  expect(emu.deliveries.get(verification.deliveryId)?.status).toBe('delivered');
  expect(heard).toEqual([verification.deliveryId]);
  const report = lines.find((line) => line.includes(verification.deliveryId));
  expect(report).toMatch(
    /a listener of delivery dlv_\w+'s attempts failed inside the emulator \(please report this\): TypeError: a bug in a listener\n.*listener-failure\.test\.ts/s,
  );
});
