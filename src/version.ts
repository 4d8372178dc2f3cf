declare const __PLUGSMITH_VERSION__: string;

/** The package version, inlined at build time. */
export const VERSION =
  typeof __PLUGSMITH_VERSION__ === 'string' ? __PLUGSMITH_VERSION__ : '0.0.0-dev';
