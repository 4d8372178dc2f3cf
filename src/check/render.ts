import { table } from '../ui/output.js';
import type { Style } from '../ui/style.js';
import type { CheckReport } from './types.js';

/** The report for people: a table of checks, then each failure's fix, then the summary. */
export function renderReport(report: CheckReport, style: Style, width = 0): string {
  const mark = (status: string) =>
    status === 'passed'
      ? style.green('pass')
      : status === 'failed'
        ? style.red('FAIL')
        : style.yellow('skip');
  let out = `${style.bold('plugsmith check')} ${report.url}${report.pluginId ? ` (plugin ${report.pluginId}, ${report.pluginType})` : ''}\n\n`;
  out += table(
    report.checks,
    [
      { header: 'result', value: (c) => mark(c.status) },
      { header: 'check', value: (c) => c.id },
      { header: 'sent', value: (c) => c.sent },
      { header: 'came back', value: (c) => c.received },
    ],
    { bold: style.bold, width },
  );
  const failures = report.checks.filter((c) => c.status === 'failed');
  // Skipped checks sharing a reason (no platform to watch, a webhook that never answered) are told it once.
  const skippedFor = new Map<string, string[]>();
  for (const c of report.checks.filter((check) => check.status === 'skipped')) {
    const reason = c.fix ?? '';
    skippedFor.set(reason, [...(skippedFor.get(reason) ?? []), c.id]);
  }
  if (failures.length + skippedFor.size > 0) out += '\n';
  for (const c of failures) {
    out += `${mark(c.status)} ${c.id}: ${c.title}\n  sent:      ${c.sent}\n  came back: ${c.received}\n  fix:       ${c.fix}\n`;
  }
  for (const [reason, ids] of skippedFor) {
    out += `${mark('skipped')} ${ids.join(', ')}\n  why:       ${reason}\n`;
  }
  const { passed, failed, skipped } = report.summary;
  const { p50Ms, p99Ms, requests } = report.latency;
  out += `\n${failed === 0 ? style.green('ready') : style.red('not ready')}: ${passed} passed, ${failed} failed, ${skipped} skipped in ${(report.durationMs / 1000).toFixed(1)} s; answer times over ${requests} requests: p50 ${p50Ms ?? '-'} ms, p99 ${p99Ms ?? '-'} ms\n`;
  return out;
}
