import type { ParityReport } from './compare.js';
import type { Created } from './probe.js';

// The check's report as a person reads it: the differences as a table, then what is listed apart.

function columns(rows: string[][]): string {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  return rows
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column]))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** The report of `parity check`, as text. */
export function renderReport(report: ParityReport): string {
  const out: string[] = [];
  if (report.differences.length === 0) {
    const events = report.comparedEvents.length;
    const what = [
      ...(report.compared > 0 || events === 0
        ? [`${report.compared} recorded request${report.compared === 1 ? '' : 's'} answered`]
        : []),
      ...(events > 0 ? [`${events} recorded event type${events === 1 ? '' : 's'} sent`] : []),
    ];
    out.push(`no differences: ${what.join(', and ')} alike by the emulator`);
  } else {
    const count = report.differences.length;
    out.push(
      `${count} difference${count === 1 ? '' : 's'} between the recorded platform and the emulator:`,
    );
    out.push('');
    out.push(
      columns([
        ['STEP', 'REQUEST', 'WHAT', 'PLATFORM', 'EMULATOR'],
        ...report.differences.map((d) => [
          d.step,
          `${d.method} ${d.pathTemplate}`,
          d.path ? `${d.kind} ${d.path}` : d.kind,
          d.platform,
          d.emulator,
        ]),
      ]),
    );
  }
  if (report.extras.length > 0) {
    out.push('');
    out.push(`fields only the emulator answers with (not differences): ${report.extras.length}`);
    out.push(
      columns([['STEP', 'FIELD', 'TYPE'], ...report.extras.map((e) => [e.step, e.path, e.type])]),
    );
  }
  for (const [title, list] of [
    ['recorded but not replayed', report.notReplayed],
    ['not recorded (nothing compared)', report.notRecorded],
  ] as const) {
    if (list.length === 0) continue;
    out.push('');
    out.push(`${title}: ${list.length}`);
    for (const item of list) out.push(`  ${item.step}: ${item.why}`);
  }
  if (report.behaviours.length > 0) {
    out.push('');
    out.push('documented emulator behaviours this journey touched (docs/emulator-behaviour.md):');
    for (const b of report.behaviours) out.push(`  ${b.section}: ${b.steps.join(', ')}`);
  }
  return `${out.join('\n')}\n`;
}

/** What `parity record` created, and what it could not remove. */
export function renderCreated(created: Created[]): string[] {
  return created.map((c) =>
    c.removed
      ? `created and removed: ${c.what}`
      : `created and NOT removed: ${c.what} (${c.why ?? 'unknown'})`,
  );
}
