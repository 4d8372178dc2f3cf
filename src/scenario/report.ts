import { relative } from 'node:path';
import type { PluginOutputLine } from '#contract/plugin-output';
import type { ScenarioResult, StepResult } from './results.js';
import { describeTarget, type RunTarget } from './target.js';
import { retriesSummary } from './retries.js';

// How a run is told: lines for people (a mark and a time per step; on a failure the expectation,
// what was expected, what came and the delivery), and a JUnit XML report for CI (one testcase per
// scenario).

/** Marks and colours; plain text when the output is not a terminal. */
export interface Marks {
  pass: string;
  fail: string;
  skip: string;
  /** An expectation the target cannot observe: neither passed nor failed. */
  unchecked: string;
  dim: (s: string) => string;
  red: (s: string) => string;
  green: (s: string) => string;
}

export const PLAIN_MARKS: Marks = {
  pass: '✓',
  fail: '✗',
  skip: '-',
  unchecked: '?',
  dim: (s) => s,
  red: (s) => s,
  green: (s) => s,
};

function ms(duration: number): string {
  return duration >= 1000 ? `${(duration / 1000).toFixed(1)} s` : `${Math.round(duration)} ms`;
}

/** The heading of a scenario, before its steps. */
export function scenarioHeading(name: string, file: string | undefined, cwd: string): string {
  return `${name}${file ? ` (${relative(cwd, file) || file})` : ''}\n`;
}

/** How a run's report is told, beyond its results. */
export interface ReportOptions {
  /** Said beside each failure's delivery when the emulator that holds it is gone (`--start` stops its own after the run). */
  deliveryNote?: string;
}

/** What `--start` says beside a failure's delivery: its emulator is gone, and with it the dashboard. */
export const STOPPED_EMULATOR_NOTE = '(in the emulator --start started, stopped with the run)';

/** One step's line, and under a failure what was expected and what came. */
export function stepLines(step: StepResult, marks: Marks, options: ReportOptions = {}): string {
  const mark = step.skipped
    ? marks.skip
    : step.ok
      ? marks.green(marks.pass)
      : marks.red(marks.fail);
  const name = step.id ? `${step.id}: ${step.label}` : step.label;
  const time = step.skipped ? marks.dim('skipped') : marks.dim(ms(step.durationMs));
  const lines = [`  ${mark} ${name}  ${time}`];
  if (step.error) lines.push(`      ${marks.red(`the step failed: ${step.error}`)}`);
  for (const failure of step.failures) {
    lines.push(`      expectation: ${failure.expectation}`);
    lines.push(`      expected:    ${failure.expected}`);
    lines.push(`      observed:    ${marks.red(failure.observed)}`);
    if (failure.deliveryId)
      lines.push(
        `      delivery:    ${failure.deliveryId}${failure.link ? `  ${failure.link}` : options.deliveryNote ? `  ${marks.dim(options.deliveryNote)}` : ''}`,
      );
    if (failure.pluginOutput?.length) {
      lines.push(`      the plugin wrote (untrusted):`);
      for (const line of failure.pluginOutput) lines.push(`        ${outputLine(line)}`);
    }
  }
  for (const unchecked of step.unchecked ?? [])
    lines.push(
      `      ${marks.unchecked} not checkable on this target: ${unchecked.expectation}`,
      `        ${marks.dim(unchecked.reason)}`,
    );
  return lines.join('\n') + '\n';
}

/** One line of the plugin's output as reports print it: its time, its stream, its text (already escaped and scrubbed). */
export function outputLine(line: PluginOutputLine): string {
  return `${line.at.slice(11, 23)} ${line.stream.padEnd(6)} ${line.text}`;
}

/** The line that opens a run: where it plays. */
export function targetLine(target: RunTarget, marks: Marks): string {
  return marks.dim(`running on ${describeTarget(target)}\n`);
}

/**
 * After a scenario's steps, the deliveries that needed a retry (the run makes it at once, so the
 * scenario can pass with them), each with its step and the plugin's answers; '' when none did.
 */
export function retriedLines(result: ScenarioResult, marks: Marks): string {
  const retried = result.retried ?? [];
  if (retried.length === 0) return '';
  const lines = [
    marks.dim(
      `  ${result.ok ? 'passed' : 'failed'}, ${retriesSummary(retried)} (made at once; "delivery": { "retried": false } fails on it):`,
    ),
  ];
  for (const r of retried) {
    const step =
      r.step === null
        ? ''
        : `step ${r.step + 1}${result.steps[r.step] ? ` (${result.steps[r.step].label})` : ''}: `;
    lines.push(marks.dim(`      ${step}${r.type} ${r.deliveryId}: ${r.answers.join(', then ')}`));
  }
  return `${lines.join('\n')}\n`;
}

/** The closing line of a run. */
export function summaryLine(results: ScenarioResult[], durationMs: number, marks: Marks): string {
  const passed = results.filter((r) => r.ok).length;
  const failed = results.length - passed;
  const unchecked = results.reduce(
    (n, r) => n + r.steps.reduce((m, s) => m + (s.unchecked?.length ?? 0), 0),
    0,
  );
  const notChecked = unchecked
    ? `; ${unchecked} expectation${unchecked === 1 ? '' : 's'} not checkable on this target`
    : '';
  const retries = retriesSummary(results.flatMap((r) => r.retried ?? []));
  const text = `${passed} passed${failed ? `, ${failed} failed` : ''}${notChecked} (${ms(durationMs)})${retries ? `; ${retries}` : ''}`;
  return `${failed ? marks.red(`${marks.fail} ${text}`) : marks.green(`${marks.pass} ${text}`)}\n`;
}

/**
 * What XML 1.0 forbids: control characters but tab, newline and carriage return, U+FFFE and U+FFFF, and a surrogate that is
 * not half of a pair (a reply cut mid-character). Plugin text reaches the report, and one such character makes it unreadable.
 */
const NOT_XML =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: they are what is removed
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function xml(text: string): string {
  return text
    .replace(NOT_XML, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

/** A JUnit XML report: one testsuite, one testcase per scenario (a failure names its failed step and what came). */
export function junitReport(
  results: ScenarioResult[],
  cwd: string,
  options: ReportOptions = {},
): string {
  const target = results[0]?.target;
  const failures = results.filter((r) => !r.ok).length;
  const total = results.reduce((sum, r) => sum + r.durationMs, 0);
  const cases = results.map((result) => {
    const classname = result.file ? relative(cwd, result.file) : 'scenarios';
    const open = `  <testcase name="${xml(result.name)}" classname="${xml(classname)}" time="${(result.durationMs / 1000).toFixed(3)}"`;
    // What the plugin wrote during the scenario, where CI shows a test's own output.
    const systemErr = result.pluginOutput?.length
      ? `\n    <system-err>${xml(result.pluginOutput.map(outputLine).join('\n'))}</system-err>`
      : '';
    // Which target ran, and what it could not check: neither a pass nor a failure.
    const unchecked = result.steps.flatMap((s) =>
      (s.unchecked ?? []).map(
        (u) =>
          `step ${s.index + 1} (${s.label}): ${u.expectation}: not checkable on this target (${u.reason})`,
      ),
    );
    // The deliveries that needed a retry: a passing scenario says so here as on the console.
    const retried = retriedLines(result, PLAIN_MARKS).trimEnd();
    const notes = [...unchecked, ...(retried ? [retried.trimStart()] : [])];
    const systemOut = notes.length ? `\n    <system-out>${xml(notes.join('\n'))}</system-out>` : '';
    const inside = `${systemOut}${systemErr}`;
    if (result.ok) return inside ? `${open}>${inside}\n  </testcase>` : `${open}/>`;
    const failed = result.steps.find((s) => !s.ok && !s.skipped);
    const message = failed
      ? failed.error
        ? `step ${failed.index + 1} (${failed.label}) failed: ${failed.error}`
        : `step ${failed.index + 1} (${failed.label}): ${failed.failures[0]?.expectation ?? 'failed'}`
      : 'failed';
    const detail = result.steps
      .map((s) => stepLines(s, PLAIN_MARKS, options))
      .join('')
      .trimEnd();
    return `${open}>\n    <failure message="${xml(message)}" type="ScenarioFailure">${xml(detail)}</failure>${systemOut}${systemErr}\n  </testcase>`;
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="plugsmith scenarios" tests="${results.length}" failures="${failures}" time="${(total / 1000).toFixed(3)}">`,
    `<testsuite name="plugsmith scenarios" tests="${results.length}" failures="${failures}" errors="0" skipped="0" time="${(total / 1000).toFixed(3)}">`,
    // Which target ran (the emulator, or a remote platform through its public APIs only).
    ...(target
      ? [
          '  <properties>',
          `    <property name="plugsmith.target" value="${xml(target.kind)}"/>`,
          `    <property name="plugsmith.target.url" value="${xml(target.url)}"/>`,
          '  </properties>',
        ]
      : []),
    ...cases,
    '</testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

/** What a JUnit report of a run whose plugin did not start needs: why, the full message, and what the plugin wrote. */
export interface StartFailure {
  reason: string;
  message: string;
  pluginOutput: PluginOutputLine[];
}

/**
 * The JUnit report of a run whose plugin did not start (`--start`): each scenario a testcase in error (none ran), the error
 * naming why, and the plugin's output in system-err, where CI shows a test's own output.
 */
export function junitStartError(
  scenarios: { name: string; file?: string }[],
  failure: StartFailure,
  durationMs: number,
  cwd: string,
): string {
  const time = (durationMs / 1000).toFixed(3);
  const systemErr = failure.pluginOutput.length
    ? `\n    <system-err>${xml(failure.pluginOutput.map(outputLine).join('\n'))}</system-err>`
    : '';
  const cases = scenarios.map((scenario) => {
    const classname = scenario.file ? relative(cwd, scenario.file) : 'scenarios';
    return [
      `  <testcase name="${xml(scenario.name)}" classname="${xml(classname)}" time="0.000">`,
      `    <error message="${xml(`the plugin did not start: ${failure.reason}`)}" type="PluginStartError">${xml(failure.message)}</error>${systemErr}`,
      '  </testcase>',
    ].join('\n');
  });
  const count = scenarios.length;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="plugsmith scenarios" tests="${count}" failures="0" errors="${count}" time="${time}">`,
    `<testsuite name="plugsmith scenarios" tests="${count}" failures="0" errors="${count}" skipped="0" time="${time}">`,
    ...cases,
    '</testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
