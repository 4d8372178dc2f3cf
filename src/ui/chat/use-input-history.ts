import { useState } from 'react';

/** The lines typed at the prompt, and the Up/Down walk through them. */
export interface InputHistory {
  /** The lines so far, oldest first. */
  lines(): string[];
  /** The line before the one shown (Up); `current` is kept as the draft when the walk starts. */
  previous(current: string): string | undefined;
  /** The line after the one shown (Down); past the newest, the draft comes back. */
  next(): string | undefined;
  /** Adds a line sent (a repeat of the newest is not added again) and ends the walk. */
  push(line: string): void;
}

/** Input history made once per component: key handlers read it synchronously, and it never causes a render. */
export function useInputHistory(initial: string[] = []): InputHistory {
  const [history] = useState((): InputHistory => {
    const lines = [...initial];
    let position: number | undefined;
    let draft = '';
    return {
      lines: () => [...lines],
      previous(current) {
        if (lines.length === 0) return undefined;
        if (position === undefined) {
          draft = current;
          position = lines.length - 1;
        } else if (position > 0) position--;
        else return undefined;
        return lines[position];
      },
      next() {
        if (position === undefined) return undefined;
        if (position < lines.length - 1) return lines[++position];
        position = undefined;
        return draft;
      },
      push(line) {
        if (lines[lines.length - 1] !== line) lines.push(line);
        position = undefined;
        draft = '';
      },
    };
  });
  return history;
}
