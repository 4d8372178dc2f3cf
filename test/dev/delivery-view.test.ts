import { describe, expect, it } from 'vitest';
import { attemptLine, type AttemptNotice } from '../../src/dev/delivery-view.js';

const attempt = (number: number) => ({ number, startedAt: '2026-01-01T10:00:00.000Z', durationMs: 12, responseStatus: 200, error: null, nextAttemptAt: null });

function notice(faults: unknown, number: number): AttemptNotice {
  return {
    delivery: { id: 'dlv_1', type: 'AGENT_MESSAGE_RECEIVED', pluginId: 'plg_1', status: 'delivered', attempts: [attempt(1), attempt(2)], createdAt: '2026-01-01T10:00:00.000Z', faults },
    attempt: attempt(number),
  };
}

describe('attemptLine', () => {
  it("shows the faults injected into the attempt, and only that attempt's", () => {
    const faults = [
      { kind: 'delay', attempt: 1, ms: 230 },
      { kind: 'duplicate', attempt: 2, of: 1 },
    ];
    expect(attemptLine(notice(faults, 1))).toContain('[fault: delay 230ms]');
    expect(attemptLine(notice(faults, 2))).toContain('[fault: duplicate]');
    expect(attemptLine(notice(undefined, 1))).not.toContain('fault');
  });
});
