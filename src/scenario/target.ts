import { redactUrl } from '../client/redact.js';
import type { Expectation, Scenario } from './schema.js';
import type { ScenarioProblem } from './validate.js';

// Where a scenario runs: the emulator (every API, the admin API under /_emulator included), or a
// remote platform, played through its public APIs only (the management API with the user's token,
// the messaging API with an API key). On a remote, the steps that need the emulator are refused
// before anything runs, and the expectations only the emulator can observe are reported as not
// checkable there, never as passed. docs/scenarios.md ("Against a remote platform") tells the rules.

/** Which kind of platform a run played on. */
export type TargetKind = 'emulator' | 'remote';

/** The platform a run played on, as reports name it (credentials in the URL redacted). */
export interface RunTarget {
  kind: TargetKind;
  url: string;
}

export function runTarget(kind: TargetKind, baseUrl: string): RunTarget {
  return { kind, url: redactUrl(baseUrl) };
}

/** The target in words: `the remote platform at https://…` or `the emulator at http://127.0.0.1:4010`. */
export function describeTarget(target: RunTarget): string {
  return target.kind === 'remote'
    ? `the remote platform at ${target.url} (public APIs only)`
    : `the emulator at ${target.url}`;
}

/** An expectation a run did not check, and why. */
export interface UncheckedExpectation {
  expectation: string;
  reason: string;
}

const RUN_ON_EMULATOR = 'or run the scenario on the emulator (`plugsmith dev`, or `--start`)';

/** A whole-string reference to an earlier step's field: `${inst.id}` gives ['inst', 'id']. */
function wholeReference(value: string): [string, string] | null {
  const match = /^\$\{([A-Za-z][A-Za-z0-9_]*)\.([^}]+)\}$/.exec(value);
  return match ? [match[1], match[2]] : null;
}

/**
 * The steps of `scenario` that cannot run on a remote platform, each with its reason and a fix: a
 * `trigger` (a payload is injected by the emulator; without one, the instance is found and the
 * delivery awaited through its admin API), `faults`, a `conversation` that does not name its
 * character (an agent's characters are listed by the admin API only), an `uninstall` of an
 * instance the scenario did not install (its entity is found through the admin API), a `request`
 * to `/_emulator`.
 */
export function remoteProblems(scenario: Scenario): ScenarioProblem[] {
  const problems: ScenarioProblem[] = [];
  const installs = new Set<string>();
  scenario.steps.forEach((step, index) => {
    const at = `steps[${index}].${step.kind}`;
    switch (step.kind) {
      case 'trigger':
        problems.push(
          step.body.payload !== undefined
            ? {
                path: `${at}.payload`,
                message:
                  'a trigger with a payload needs the emulator: only it sends an event with the data a scenario gives',
                fix: `cause the event with the step that makes it (message, addFile, removeFile, install, uninstall), ${RUN_ON_EMULATOR}`,
              }
            : {
                path: at,
                message:
                  "a trigger needs the emulator: it finds the plugin's instance and waits for the delivery through the emulator's admin API (/_emulator)",
                fix: `cause the event with the step that makes it (message, addFile, removeFile, install, uninstall), ${RUN_ON_EMULATOR}`,
              },
        );
        break;
      case 'faults':
        problems.push({
          path: at,
          message: 'fault injection is the emulator’s: a remote platform has no fault profile',
          fix: `remove the step, ${RUN_ON_EMULATOR}`,
        });
        break;
      case 'conversation':
        if (step.body.character === undefined)
          problems.push({
            path: at,
            message:
              "finding the character of an agent needs the emulator's admin API: the platform's public APIs list no characters",
            fix: 'name the character: "conversation": { "character": "<its id on that platform>" }',
          });
        break;
      case 'install':
        if (step.id) installs.add(step.id);
        break;
      case 'uninstall': {
        const [stepId, field] = wholeReference(step.body.instance) ?? [];
        if (field !== 'id' || !installs.has(stepId ?? ''))
          problems.push({
            path: `${at}.instance`,
            message:
              "on a remote platform only an instance this scenario installed can be uninstalled: finding another's agent, repository or app needs the emulator's admin API",
            fix: 'install it in an earlier step with an id, and uninstall "${that.id}"',
          });
        break;
      }
    }
  });
  return problems;
}

/** Why an expectation cannot be checked on a remote platform, or null when its public APIs show it. */
export function uncheckableOnRemote(expectation: Expectation): string | null {
  if (expectation.kind === 'delivery')
    return "a delivery's attempts, status, timing and retries are kept by the emulator only: a remote platform shows no delivery log";
  return null;
}

/** A scenario that cannot run on the chosen target: each refused step, with its reason and a fix. Nothing was run. */
export class ScenarioRefused extends Error {
  constructor(
    readonly scenario: string,
    readonly problems: ScenarioProblem[],
  ) {
    super(
      `scenario "${scenario}" cannot run on a remote platform (nothing was run): ${problems.length} step${problems.length === 1 ? '' : 's'} need${problems.length === 1 ? 's' : ''} the emulator:\n${problems.map((p) => `  ${p.path}: ${p.message} (${p.fix})`).join('\n')}`,
    );
    this.name = 'ScenarioRefused';
  }
}
