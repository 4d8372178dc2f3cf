import { createElement } from 'react';
import { render } from 'ink';
import type { Io } from '../io.js';
import { rawStream } from '../terminal-text.js';
import { ChatApp, type ChatAppProps } from './ChatApp.js';

/** Runs the chat REPL until /quit or Ctrl+C, or rejects with a fatal error; imported dynamically, so only chat loads ink. */
export async function runChatApp({ io, ...props }: ChatAppProps & { io: Io }): Promise<void> {
  const app = render(createElement(ChatApp, props), {
    stdin: io.stdin as NodeJS.ReadStream,
    // ink draws the terminal itself: it gets the streams unfiltered, and the components escape what they show.
    stdout: rawStream(io.stdout) as NodeJS.WriteStream,
    stderr: rawStream(io.stderr) as NodeJS.WriteStream,
    // Ctrl+C is a key like the others: the app leaves through exit(), with exit code 0.
    exitOnCtrlC: false,
    patchConsole: false,
  });
  await app.waitUntilExit();
}
