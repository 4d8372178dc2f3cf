// Which Chromium the browser tests and the dashboard bench drive, and how it starts. Plain
// JavaScript (typed by chromium.d.ts beside it) so that bench/dashboard.js, which runs under
// plain node, uses the same code as test/kit/browser.ts.
//
// In order: the binary `PLUGSMITH_CHROMIUM` names; a system Chromium (/usr/bin/chromium, Debian's
// package); else the headless Chromium shipped inside the `@sparticuz/chromium` npm package (a
// devDependency, so it is in the lockfile and `npm ci` brings it), unpacked once into a folder of
// the system's temporary directory and reused by later runs.

import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Debian's Chromium (`apt-get install chromium`), used when it is installed. */
export const SYSTEM_CHROMIUM = '/usr/bin/chromium';

/**
 * The flags every test browser runs with: headless, no sandbox (tests may run as root), and no
 * traffic of its own (playwright-core already adds --disable-background-networking,
 * --disable-component-update, --disable-sync, --disable-default-apps, --disable-breakpad and
 * --no-first-run; they are repeated here so the list reads complete).
 */
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--disable-domain-reliability',
  '--disable-client-side-phishing-detection',
  '--no-pings',
];

/** The installed `@sparticuz/chromium` package: its folder and version. */
function bundledPackage() {
  const require = createRequire(import.meta.url);
  // The package's entry is build/index.js; its compressed browser is in bin/ beside build/.
  const entry = require.resolve('@sparticuz/chromium');
  const folder = dirname(dirname(entry));
  const { version } = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8'));
  return { entry, folder, version };
}

/**
 * Unpacks the package's browser into `staging`, to be renamed to `home`, with its own API: `executablePath()` writes the
 * browser, its fonts and SwiftShader into the temporary directory, and `inflate()` the NSS and
 * expat libraries it links against (built for Amazon Linux, they load on any glibc Linux), so it
 * runs on a machine that has none of them. It runs in a child process whose TMPDIR is `staging`,
 * as the package writes into the temporary directory's root.
 */
async function unpack(entry, folder, staging, home) {
  const script = [
    `const { default: Chromium, inflate } = await import(${JSON.stringify(pathToFileURL(entry).href)});`,
    'await Chromium.executablePath();',
    `await inflate(${JSON.stringify(join(folder, 'bin', 'al2023.tar.br'))});`,
  ].join('\n');
  await run(process.execPath, ['--input-type=module', '--eval', script], {
    env: { ...process.env, TMPDIR: staging },
  });
  // The package's fonts.conf names /tmp/fonts; this one names the folder the fonts are in, and
  // maps the generic families to them: without a match for sans-serif, the browser aborts on the
  // first form field ("SkFontMgr_FontConfigInterface.cpp: Not implemented").
  const generic = ['sans-serif', 'serif', 'monospace'].map(
    (family) =>
      `  <alias><family>${family}</family><prefer><family>Open Sans</family></prefer></alias>`,
  );
  const fontsConf = [
    '<?xml version="1.0"?>',
    '<!DOCTYPE fontconfig SYSTEM "fonts.dtd">',
    '<fontconfig>',
    `  <dir>${join(home, 'fonts', 'fonts')}</dir>`,
    `  <cachedir>${join(home, 'fonts-cache')}</cachedir>`,
    ...generic,
    '</fontconfig>',
    '',
  ].join('\n');
  await writeFile(join(staging, 'plugsmith-fonts.conf'), fontsConf);
}

/**
 * The folder holding the unpacked browser of the installed package version, unpacked on first
 * use. Test files in parallel workers may get here at once: each unpacks into a folder of its own
 * and renames it into place; a rename that finds the folder there already lost the race, and the
 * winner's copy is used.
 */
async function bundledChromiumFolder() {
  const { entry, folder, version } = bundledPackage();
  const target = join(tmpdir(), `plugsmith-chromium-${version}`);
  if (existsSync(join(target, 'plugsmith-fonts.conf'))) return target;
  const staging = await mkdtemp(join(tmpdir(), `plugsmith-chromium-${version}-unpacking-`));
  try {
    await unpack(entry, folder, staging, target);
    await rename(staging, target);
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    const racedAndLost = existsSync(join(target, 'plugsmith-fonts.conf'));
    if (!racedAndLost) throw error;
  }
  return target;
}

/**
 * How to launch the test browser with playwright-core: `chromium.launch({ ...options, headless: true })`.
 * `source` says which browser it is (for messages).
 */
export async function chromiumLaunchOptions() {
  const named = process.env.PLUGSMITH_CHROMIUM;
  if (named) {
    if (!existsSync(named))
      throw new Error(
        `PLUGSMITH_CHROMIUM names ${named}, which does not exist: point it at a Chromium binary, or unset it to use ${existsSync(SYSTEM_CHROMIUM) ? SYSTEM_CHROMIUM : 'the Chromium of the @sparticuz/chromium devDependency'}`,
      );
    return { executablePath: named, args: CHROMIUM_FLAGS, source: 'PLUGSMITH_CHROMIUM' };
  }
  if (existsSync(SYSTEM_CHROMIUM))
    return { executablePath: SYSTEM_CHROMIUM, args: CHROMIUM_FLAGS, source: SYSTEM_CHROMIUM };
  // The package ships a Linux x64 build only.
  if (process.platform !== 'linux' || process.arch !== 'x64')
    throw new Error(
      `No Chromium at ${SYSTEM_CHROMIUM}, and the one in @sparticuz/chromium runs on Linux x64 only (this is ${process.platform} ${process.arch}): set PLUGSMITH_CHROMIUM to a Chromium or Chrome binary`,
    );
  let folder;
  try {
    folder = await bundledChromiumFolder();
  } catch (error) {
    throw new Error(
      `No Chromium at ${SYSTEM_CHROMIUM}, and the one in @sparticuz/chromium could not be unpacked (${error.message}): run \`npm ci\`, or set PLUGSMITH_CHROMIUM to a Chromium binary`,
    );
  }
  // The package's own flags (Chromium.args) are left out on purpose: they switch off the
  // same-origin policy (--disable-web-security), allow mixed content and run one process, which
  // would weaken the browser the dashboard's security tests rely on.
  const env = {
    ...process.env,
    LD_LIBRARY_PATH: [join(folder, 'al2023', 'lib'), process.env.LD_LIBRARY_PATH]
      .filter(Boolean)
      .join(':'),
    FONTCONFIG_FILE: join(folder, 'plugsmith-fonts.conf'),
  };
  return {
    executablePath: join(folder, 'chromium'),
    args: CHROMIUM_FLAGS,
    env,
    source: '@sparticuz/chromium',
  };
}
