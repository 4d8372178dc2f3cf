import { describe, expect, it } from 'vitest';
import { attemptLine } from '../../src/dev/delivery-view.js';
import type { Delivery, DeliveryAttemptNotice } from '#contract';
import type { FaultMark } from '#contract';

const at = '2026-01-01T10:00:00.000Z';
const attempt = (number: number) => ({
  number,
  startedAt: at,
  url: 'http://127.0.0.1:9/hook',
  webhookTimestamp: '1767261600',
  durationMs: 12,
  responseStatus: 200,
  responseBody: '',
  error: null,
  nextAttemptAt: null,
});

function notice(faults: FaultMark[] | undefined, number: number): DeliveryAttemptNotice {
  const delivery: Delivery = {
    id: 'dlv_1',
    eventId: 'evt_1',
    type: 'AGENT_MESSAGE_RECEIVED',
    pluginId: 'plg_1',
    pluginInstanceId: 'pin_1',
    orgId: 'org_1',
    url: 'http://127.0.0.1:9/hook',
    event: {},
    status: 'delivered',
    mode: 'ASYNC',
    retries: true,
    attempts: [attempt(1), attempt(2)],
    nextAttemptAt: null,
    redeliveryOf: null,
    createdAt: at,
    updatedAt: at,
    ...(faults ? { faults } : {}),
  };
  return { delivery, attempt: attempt(number) };
}

describe('attemptLine', () => {
  it("shows the faults injected into the attempt, and only that attempt's", () => {
    const faults: FaultMark[] = [
      { kind: 'delay', attempt: 1, ms: 230 },
      { kind: 'duplicate', attempt: 2, of: 1 },
    ];
    expect(attemptLine(notice(faults, 1))).toContain('[fault: delay 230ms]');
    expect(attemptLine(notice(faults, 2))).toContain('[fault: duplicate]');
    expect(attemptLine(notice(undefined, 1))).not.toContain('fault');
  });
});
