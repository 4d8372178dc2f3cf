const PLACEHOLDER = /\{\{([A-Za-z][A-Za-z0-9]*)\}\}/g;

/** Fills `{{key}}` placeholders; an unknown key throws, so a typo in a template fails its tests, not a user's build. */
export function renderTemplate(
  text: string,
  values: Record<string, string>,
  file = 'template',
): string {
  return text.replace(PLACEHOLDER, (_match, key: string) => {
    if (!Object.hasOwn(values, key)) throw new Error(`${file}: unknown placeholder {{${key}}}`);
    return values[key];
  });
}

/** Files that npm would drop or rename inside a package are kept under another name. */
const RENAMED: Record<string, string> = { _gitignore: '.gitignore', _npmrc: '.npmrc' };

/** The name a template file is written under. */
export function outputPath(relativePath: string): string {
  return relativePath.replace(/[^/]+$/, (name) => RENAMED[name] ?? name);
}
