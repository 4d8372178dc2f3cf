import { stat } from 'node:fs/promises';
import { dirname, basename, resolve } from 'node:path';
import type { CommandInput, RunCommand } from '../types.js';
import { settingsFor, timeoutMsOf } from '../context.js';
import { UserError, ExitWith, EXIT } from '../../errors.js';
import { printResult } from '../../ui/output.js';
import { ProjectPathError, readProjectFile } from '../../shared/project-file.js';
import { askedEmulator } from '../../config/emulators.js';
import { parityFileProblems, type ParityFile } from '../../parity/format.js';
import { runProbe, type ProbeTarget } from '../../parity/probe.js';
import { compareExchanges, type ParityReport } from '../../parity/compare.js';
import { renderReport } from '../../parity/render.js';

type CheckFlags = { character?: string; otherOrg?: string };

const MAX_FILE_BYTES = 8 * 1024 * 1024;

async function readParityFile(given: string): Promise<ParityFile> {
  const path = resolve(process.cwd(), given);
  let raw: Buffer;
  const exists = await stat(path).then(
    () => true,
    (error: NodeJS.ErrnoException) => error.code !== 'ENOENT',
  );
  if (!exists)
    throw new UserError(
      `no parity file ${given}: record one with \`plugsmith parity record -o ${given}\``,
      EXIT.NOT_FOUND,
    );
  try {
    raw = await readProjectFile(dirname(path), basename(path), {
      maxBytes: MAX_FILE_BYTES,
      label: 'the parity file',
    });
  } catch (error) {
    if (error instanceof ProjectPathError)
      throw new UserError(`${error.message}: ${error.fix}`, EXIT.USAGE);
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch (error) {
    throw new UserError(`${given} is not valid JSON: ${(error as Error).message}`, EXIT.VALIDATION);
  }
  const problems = parityFileProblems(parsed);
  if (problems.length > 0)
    throw new UserError(
      `${given} is not a parity file:\n  ${problems.join('\n  ')}\n(record one with \`plugsmith parity record\`)`,
      EXIT.VALIDATION,
    );
  return parsed as ParityFile;
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

/** `plugsmith parity check <file>`: the journey replayed on the emulator and compared with the file. */
const run: RunCommand<CheckFlags> = async (input: CommandInput<CheckFlags>) => {
  const file = await readParityFile(String(input.args[0]));
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
  let report: ParityReport;
  try {
    const replay = await runProbe(target, {
      timeoutMs: timeoutMsOf(input),
      replyTimeoutMs: 10_000,
    });
    report = compareExchanges(file, replay.exchanges);
  } finally {
    await close();
  }
  printResult(input.io, input.global, report, () => renderReport(report));
  if (!report.ok) throw new ExitWith(EXIT.UNEXPECTED);
};

export default run;
