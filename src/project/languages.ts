/** The languages `plugsmith init` writes (`templates/`, `templates/python/`); its own module so `--help` loads just this list. */
export const LANGUAGES = ['typescript', 'python'] as const;
export type Language = (typeof LANGUAGES)[number];
