import { stat } from 'node:fs/promises';
import { dirname, basename, resolve } from 'node:path';
import type { CommandInput, RunCommand } from '../types.js';
import { jsonSyntaxText, settingsFor, timeoutMsOf } from '../context.js';
import { refusedPath, UserError, ExitWith, EXIT } from '../../errors.js';
import { printResult } from '../../ui/output.js';
import { readProjectFile } from '../../shared/project-file.js';
import { askedEmulator } from '../../config/emulators.js';
import { parityFileProblems, type ParityFile } from '../../parity/format.js';
import { runProbe, type ProbeTarget } from '../../parity/probe.js';
import { compareExchanges, type ParityReport } from '../../parity/compare.js';
import { renderReport } from '../../parity/render.js';
import {
  compareEventShapes,
  eventShapesProblems,
  withEvents,
  type EventShapesFile,
} from '../../parity/event-shapes.js';
import { finishWhenStdoutCloses } from '../../ui/closed-stdout.js';

type CheckFlags = { character?: string; otherOrg?: string; eventShapes?: string };

const MAX_FILE_BYTES = 8 * 1024 * 1024;

/** A JSON file of the check (the parity file, the event shapes), parsed; `missing` says how to make one. */
async function readJsonFile(given: string, label: string, missing: string): Promise<unknown> {
  const path = resolve(process.cwd(), given);
  const exists = await stat(path).then(
    () => true,
    (error: NodeJS.ErrnoException) => error.code !== 'ENOENT',
  );
  if (!exists) throw new UserError(`no ${label} ${given}: ${missing}`, EXIT.NOT_FOUND);
  const raw = await readProjectFile(dirname(path), basename(path), {
    maxBytes: MAX_FILE_BYTES,
    label: `the ${label}`,
  }).catch(refusedPath);
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch (error) {
    throw new UserError(
      `${given} is not valid JSON: ${jsonSyntaxText(raw.toString('utf8'), error)}`,
      EXIT.VALIDATION,
    );
  }
}

async function readParityFile(given: string): Promise<ParityFile> {
  const parsed = await readJsonFile(
    given,
    'parity file',
    `record one with \`plugsmith parity record -o ${given}\``,
  );
  const problems = parityFileProblems(parsed);
  if (problems.length > 0)
    throw new UserError(
      `${given} is not a parity file:\n  ${problems.join('\n  ')}\n(record one with \`plugsmith parity record\`)`,
      EXIT.VALIDATION,
    );
  return parsed as ParityFile;
}

const KEEP_SHAPES =
  'a generated plugin writes one when run with PLUGSMITH_EVENT_SHAPES=<file> (docs/parity.md, "Event payloads")';

async function readEventShapes(given: string): Promise<EventShapesFile> {
  const parsed = await readJsonFile(given, 'event-shapes file', KEEP_SHAPES);
  const problems = eventShapesProblems(parsed);
  if (problems.length > 0)
    throw new UserError(
      `${given} is not an event-shapes file:\n  ${problems.join('\n  ')}\n(${KEEP_SHAPES})`,
      EXIT.VALIDATION,
    );
  return parsed as EventShapesFile;
}

/** The running emulator `--emulator` names, as a probe target: its credentials from its state file. */
async function runningTarget(input: CommandInput<CheckFlags>): Promise<ProbeTarget> {
  const settings = await settingsFor({ ...input, options: {} });
  if (!settings.baseUrl || !settings.token || !settings.orgId)
    throw new UserError(
      settings.noEmulator ??
        'the emulator --emulator names has no URL, token or org in its state file',
      EXIT.NOT_FOUND,
    );
  let characterId = input.options.character;
  if (!characterId && settings.apiKey) {
    const { createClient } = await import('../../client/index.js');
    const { adminTokenFor } = await import('../../config/admin-token.js');
    const client = createClient({
      baseUrl: settings.baseUrl,
      adminToken: await adminTokenFor(settings.baseUrl),
      userAgent: 'plugsmith-parity',
    });
    try {
      const page = await client.emulator.characters.list({
        limit: 1,
        filters: { orgId: settings.orgId },
      });
      characterId = page.data[0]?.id;
    } finally {
      await client.close();
    }
  }
  return {
    baseUrl: settings.baseUrl,
    messagingUrl: settings.messagingUrl,
    token: settings.token,
    apiKey: settings.apiKey,
    orgId: settings.orgId,
    characterId,
    otherOrgId: input.options.otherOrg,
  };
}

/** `plugsmith parity check [file]`: the journey replayed on the emulator and compared with the file, and the event shapes with the emulator's event schemas. */
const run: RunCommand<CheckFlags> = async (input: CommandInput<CheckFlags>) => {
  // Its exit code is the verdict: `parity check | head` in CI still fails on a difference.
  finishWhenStdoutCloses();
  const given = input.args[0] === undefined ? undefined : String(input.args[0]);
  const shapesGiven = input.options.eventShapes;
  if (given === undefined && shapesGiven === undefined)
    throw new UserError(
      'nothing to check: give the parity file `parity record` wrote, --event-shapes <file> (the events a plugin received), or both',
      EXIT.USAGE,
    );
  const file = given === undefined ? undefined : await readParityFile(given);
  const shapes = shapesGiven === undefined ? undefined : await readEventShapes(shapesGiven);
  let report = file === undefined ? undefined : await checkRequests(input, file);
  if (shapes) report = withEvents(report, compareEventShapes(shapes));
  const done = report!;
  printResult(input.io, input.global, done, () => renderReport(done));
  if (!done.ok) throw new ExitWith(EXIT.UNEXPECTED);
};

/** The journey replayed on the emulator (an in-memory one, or the one --emulator names) and compared with the recording. */
async function checkRequests(
  input: CommandInput<CheckFlags>,
  file: ParityFile,
): Promise<ParityReport> {
  let target: ProbeTarget;
  let close: () => Promise<void> = async () => undefined;
  if (askedEmulator() !== undefined) {
    target = await runningTarget(input);
  } else {
    const { startParityEmulator } = await import('../../parity/local-emulator.js');
    const local = await startParityEmulator();
    target = local.target;
    close = local.close;
  }
  try {
    const replay = await runProbe(target, {
      timeoutMs: timeoutMsOf(input),
      replyTimeoutMs: 10_000,
    });
    return compareExchanges(file, replay.exchanges);
  } finally {
    await close();
  }
}

export default run;
