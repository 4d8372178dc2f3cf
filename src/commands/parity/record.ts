import { resolve } from 'node:path';
import type { CommandInput, RunCommand, TargetFlags } from '../types.js';
import { settingsFor, timeoutMsOf } from '../context.js';
import { UserError, EXIT } from '../../errors.js';
import { note, printResult } from '../../ui/output.js';
import { writeFileReplacingLink } from '../../shared/project-file.js';
import { VERSION } from '../../version.js';
import { recordParity, RecordingLeakError, type Recording } from '../../parity/record.js';
import { renderCreated } from '../../parity/render.js';
import { ProbeUnreachableError } from '../../parity/probe.js';

type RecordFlags = TargetFlags & { output: string; character?: string; otherOrg?: string };

/** `plugsmith parity record`: the probe journey on the target, its shapes written to a parity file. */
const run: RunCommand<RecordFlags> = async (input: CommandInput<RecordFlags>) => {
  const o = input.options;
  const settings = await settingsFor(input);
  if (!settings.baseUrl)
    throw new UserError(
      'no platform to record: pass --base-url URL (or set PLUGSMITH_BASE_URL, or `plugsmith login --base-url URL`)',
      EXIT.USAGE,
    );
  if (!settings.token)
    throw new UserError('no token: run `plugsmith login` or set PLUGSMITH_TOKEN', EXIT.AUTH);
  if (!settings.orgId)
    throw new UserError(
      'no org: pass --org ORG_ID, the org the probe creates its records in (or log in with `plugsmith login --org ORG_ID`)',
      EXIT.USAGE,
    );
  const messaging = Boolean(settings.messagingUrl && settings.apiKey);
  if (!messaging)
    note(
      input.io,
      input.global,
      'no messaging URL or API key (--messaging-url / PLUGSMITH_MESSAGING_URL, PLUGSMITH_API_KEY): the messaging steps are skipped',
    );
  else if (!o.character)
    note(input.io, input.global, 'no --character: the conversation and message steps are skipped');
  const log = (line: string) =>
    input.global.verbose ? note(input.io, input.global, line) : undefined;
  let recording: Recording;
  try {
    recording = await recordParity(
      {
        baseUrl: settings.baseUrl,
        messagingUrl: settings.messagingUrl,
        token: settings.token,
        apiKey: settings.apiKey,
        orgId: settings.orgId,
        characterId: o.character,
        otherOrgId: o.otherOrg,
      },
      settings.local ? 'emulator' : 'remote',
      { timeoutMs: timeoutMsOf(input), log, version: VERSION },
    );
  } catch (error) {
    if (error instanceof RecordingLeakError) throw new UserError(error.message, EXIT.UNEXPECTED);
    if (error instanceof ProbeUnreachableError)
      throw new UserError(
        `${error.url} failed: ${error.reason}; nothing was recorded (check --base-url, PLUGSMITH_BASE_URL or the profile)`,
        EXIT.NETWORK,
      );
    throw error;
  }
  const path = resolve(process.cwd(), o.output);
  await writeFileReplacingLink(path, `${JSON.stringify(recording.file, null, 2)}\n`);
  const exchanges = recording.file.exchanges;
  const skipped = exchanges.filter((e) => e.status === null);
  for (const line of renderCreated(recording.created)) note(input.io, input.global, line);
  printResult(
    input.io,
    input.global,
    {
      file: path,
      recorded: exchanges.length - skipped.length,
      skipped: skipped.map((e) => ({ step: e.step, why: e.skipped })),
      created: recording.created,
    },
    () =>
      `wrote ${o.output}: ${exchanges.length - skipped.length} requests recorded${skipped.length ? `, ${skipped.length} skipped (${skipped.map((e) => `${e.step}: ${e.skipped}`).join('; ')})` : ''}\n`,
  );
  const left = recording.created.filter(
    (c) => !c.removed && c.why !== undefined && !c.why.startsWith('the spec offers no way'),
  );
  if (left.length > 0)
    throw new UserError(
      `could not remove what the probe created; remove it yourself: ${left.map((c) => `${c.what} (${c.why})`).join('; ')}`,
      EXIT.UNEXPECTED,
    );
};

export default run;
