import { writeFileReplacingLink } from '../../shared/project-file.js';
import { request } from 'undici';
import type { RunCommand } from '../types.js';
import { note } from '../../ui/output.js';
import { UserError, EXIT } from '../../errors.js';

/** Prints (or writes) the OpenAPI 3.1 document of the three APIs; without --base-url from an in-memory emulator started for it. */
const openapiCommand: RunCommand<{ output?: string; baseUrl?: string }> = async (input) => {
  const baseUrl = input.options.baseUrl;
  const emulator = baseUrl
    ? null
    : await (await import('../../../emulator/index.js')).startEmulator({
        inMemory: true,
        port: 0,
        messagingPort: 0,
      });
  let text: string;
  try {
    const url = `${(baseUrl ?? emulator!.url).replace(/\/+$/, '')}/_emulator/openapi.json`;
    let answer: Awaited<ReturnType<typeof request>>;
    try {
      answer = await request(url);
    } catch (error) {
      throw new UserError(
        `cannot reach ${url}: ${(error as Error).message}; start it with \`plugsmith emulator start\` or leave out --base-url`,
        EXIT.NETWORK,
      );
    }
    const body = await answer.body.text();
    if (answer.statusCode !== 200)
      throw new UserError(
        `${url} answered ${answer.statusCode}: is it a plugsmith emulator?`,
        answer.statusCode === 404 ? EXIT.NOT_FOUND : EXIT.NETWORK,
      );
    text = JSON.stringify(JSON.parse(body), null, 2) + '\n';
    // The emulator started for the purpose listened on throwaway ports: the document names the default ones.
    if (emulator)
      text = text
        .replaceAll(JSON.stringify(emulator.url), JSON.stringify('http://127.0.0.1:4010'))
        .replaceAll(JSON.stringify(emulator.messagingUrl), JSON.stringify('http://127.0.0.1:4011'));
  } finally {
    await emulator?.close();
  }
  const output = input.options.output;
  if (!output) {
    input.io.stdout.write(text);
    return;
  }
  try {
    await writeFileReplacingLink(output, text);
  } catch (error) {
    throw new UserError(`cannot write ${output}: ${(error as Error).message}`, EXIT.USAGE);
  }
  if (input.global.json) input.io.stdout.write(JSON.stringify({ file: output }, null, 2) + '\n');
  else note(input.io, input.global, `Wrote the OpenAPI 3.1 document to ${output}.`);
};

export default openapiCommand;
