import { useRef } from 'react';

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

/** Input history kept in refs: key handlers read it synchronously, and it never causes a render. */
export function useInputHistory(initial: string[] = []): InputHistory {
  const lines = useRef<string[]>([...initial]);
  const position = useRef<number | undefined>(undefined);
  const draft = useRef('');
  const history = useRef<InputHistory | undefined>(undefined);
  history.current ??= {
    lines: () => [...lines.current],
    previous(current) {
      const all = lines.current;
      if (all.length === 0) return undefined;
      if (position.current === undefined) {
        draft.current = current;
        position.current = all.length - 1;
      } else if (position.current > 0) position.current--;
      else return undefined;
      return all[position.current];
    },
    next() {
      if (position.current === undefined) return undefined;
      if (position.current < lines.current.length - 1) return lines.current[++position.current];
      position.current = undefined;
      return draft.current;
    },
    push(line) {
      if (lines.current[lines.current.length - 1] !== line) lines.current.push(line);
      position.current = undefined;
      draft.current = '';
    },
  };
  return history.current;
}
