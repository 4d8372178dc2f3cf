// What a command does when the reader of its output goes away (`plugsmith … | head`). By default it ends there, quietly,
// with exit code 0: the reader has what it wanted, and a command that follows a stream (`logs --follow`, `dev`) would
// otherwise run on unseen. A command whose exit code is its verdict (a scenario run, a check) finishes instead: what it
// writes to files (a JUnit report) is written and its exit code stands, so a CI step that pipes it into `head` still
// fails when it failed. Only src/cli.ts handles the stream's error; commands only say which kind they are.

let finishing = false;

/** The running command reports a verdict in its exit code: a closed stdout ends its output, not the command. */
export function finishWhenStdoutCloses(): void {
  finishing = true;
}

/** Whether a closed stdout should leave the command running (src/cli.ts). */
export function finishesWhenStdoutCloses(): boolean {
  return finishing;
}
