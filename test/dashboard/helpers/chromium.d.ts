/** Debian's Chromium (`apt-get install chromium`), used when it is installed. */
export declare const SYSTEM_CHROMIUM: string;

/** The flags every test browser runs with: headless, no sandbox, no traffic of its own. */
export declare const CHROMIUM_FLAGS: string[];

/** What `chromium.launch()` of playwright-core needs to start the test browser. */
export interface ChromiumLaunchOptions {
  executablePath: string;
  args: string[];
  /** The browser's environment, when it needs one of its own (the bundled browser's libraries and fonts). */
  env?: Record<string, string | undefined>;
  /** Which browser: 'PLUGSMITH_CHROMIUM', '/usr/bin/chromium' or '@sparticuz/chromium'. */
  source: string;
}

/**
 * How to launch the test browser: `PLUGSMITH_CHROMIUM`, else /usr/bin/chromium, else the Chromium
 * of the `@sparticuz/chromium` devDependency, unpacked once into the temporary directory.
 */
export declare function chromiumLaunchOptions(): Promise<ChromiumLaunchOptions>;
