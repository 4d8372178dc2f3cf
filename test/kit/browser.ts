/**
 * The browser harness of the dashboard tests: a real Chromium driven by playwright-core against a
 * real emulator. The browser is `PLUGSMITH_CHROMIUM`, else Debian's (/usr/bin/chromium), else the
 * one in the `@sparticuz/chromium` devDependency (test/dashboard/helpers/chromium.js, which the dashboard
 * bench shares).
 *
 * Use:
 * ```ts
 * import { emulator } from '../kit/index.js';
 * import { openDashboard, screenshot, expectNoConsoleErrors } from '../kit/browser.js';
 *
 * const emu = await emulator();
 * const { page, consoleErrors } = await openDashboard(emu, 'deliveries'); // signed in, at #/deliveries
 * await page.getByRole('button', { name: 'Resend' }).click();          // locate by role and label
 * await screenshot(page, 'deliveries-resend');   // artifacts/screenshots/deliveries-resend.png, with PLUGSMITH_TEST_SCREENSHOTS=1
 * expectNoConsoleErrors(consoleErrors);                                  // console errors and page errors
 * ```
 * One browser is shared by the tests of a file (launched on first use, closed after the file);
 * each `openDashboard` gets its own context (own storage, where the session is kept), closed when the test finishes.
 * A Chromium that cannot start fails the test with what to do; it never skips.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { expect, onTestFinished } from 'vitest';
import { chromiumLaunchOptions } from '../dashboard/helpers/chromium.js';
import { ownForFile } from './scope.js';

let shared: Promise<Browser> | undefined;

/** Closes the file's browser, if one was launched; the next file launches its own. */
async function closeShared(): Promise<void> {
  const browser = await shared?.catch(() => undefined);
  shared = undefined;
  await browser?.close();
}

/**
 * The file's browser. playwright-core gives every launch a fresh temporary user-data-dir (and
 * removes it on close), so no profile of a previous run leaks in; tests get isolated contexts on top.
 */
async function launch(): Promise<Browser> {
  if (!shared) {
    shared = chromiumLaunchOptions().then(({ executablePath, args, env }) =>
      chromium.launch({ executablePath, args, env, headless: true }),
    );
    // Closed after the file's last test (test files share their worker process).
    ownForFile(closeShared);
  }
  return shared;
}

/** A fresh browser context (own cookies and storage), closed when the current test finishes. */
export async function newContext(): Promise<BrowserContext> {
  const browser = await launch();
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  onTestFinished(() => context.close());
  return context;
}

/** What went wrong in a page: console messages of type error, and uncaught exceptions. */
export function collectErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error')
      errors.push(
        `console: ${message.text()}${message.location().url ? ` (${message.location().url})` : ''}`,
      );
  });
  page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
  return errors;
}

/** The emulator as the harness needs it (what the kit's `emulator()` returns). */
export interface DashboardEmulator {
  dashboardLink(): string;
}

/** A signed-in dashboard page and the errors it logs. */
export interface OpenDashboard {
  page: Page;
  context: BrowserContext;
  /** Console errors and page errors so far (the array keeps filling); assert with `expectNoConsoleErrors`. */
  consoleErrors: string[];
}

/**
 * Opens the dashboard of `emu` signed in (through a fresh login link, as a person would) and waits
 * for the shell; with `view` (`'deliveries'`, `'data/plugins'`…) it then goes to `#/<view>`.
 */
export async function openDashboard(
  emu: DashboardEmulator,
  view?: string,
  context?: BrowserContext,
): Promise<OpenDashboard> {
  const ctx = context ?? (await newContext());
  const page = await ctx.newPage();
  const consoleErrors = collectErrors(page);
  // Before the context closes (finish hooks run last registered first): a failing test leaves its page's picture.
  onTestFinished(async ({ task }) => {
    if (task.result?.state !== 'fail') return;
    const name = `failed-${task.name.replace(/[^\w-]+/g, '_').slice(0, 80)}`;
    await save(page, name, true).catch(() => undefined);
  });
  await page.goto(emu.dashboardLink());
  await page.getByRole('navigation', { name: 'Dashboard pages' }).waitFor();
  if (view !== undefined) {
    // A same-document navigation: the session stays, the hash router shows the view.
    await page.goto(new URL(`#/${view}`, page.url()).href);
  }
  return { page, context: ctx, consoleErrors };
}

/** Fails with the collected errors listed, if there are any. */
export function expectNoConsoleErrors(errors: string[]): void {
  expect(errors, 'the page logged errors').toEqual([]);
}

/** Whether every `screenshot()` is saved (`PLUGSMITH_TEST_SCREENSHOTS=1`), to look at the pages by eye. */
const EVERY_SCREENSHOT = process.env.PLUGSMITH_TEST_SCREENSHOTS === '1';

/**
 * Saves a screenshot of the page as `artifacts/screenshots/<name>.png` (gitignored) when the run asks for every one
 * (`PLUGSMITH_TEST_SCREENSHOTS=1`); null otherwise. A failing test's page is saved whatever the setting (openDashboard).
 * Some 40 screenshots, full pages among them, took several seconds of a run that keeps none of them.
 */
export async function screenshot(
  page: Page,
  name: string,
  options: { fullPage?: boolean } = {},
): Promise<string | null> {
  if (!EVERY_SCREENSHOT) return null;
  return save(page, name, options.fullPage ?? false);
}

async function save(page: Page, name: string, fullPage: boolean): Promise<string> {
  const dir = join(process.cwd(), 'artifacts', 'screenshots');
  await mkdir(dir, { recursive: true });
  const path = join(dir, `${name}.png`);
  await page.screenshot({ path, fullPage });
  return path;
}
