/**
 * The languages `plugsmith init` writes a plugin in: TypeScript (`templates/`) or Python
 * (`templates/python/`). Apart from the scaffolder so that the command's declaration (`--lang`'s
 * choices, read by every `--help`) loads no more than this list.
 */
export const LANGUAGES = ['typescript', 'python'] as const;
export type Language = (typeof LANGUAGES)[number];
