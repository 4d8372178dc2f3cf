/**
 * axe-core in a dashboard page: the serious and critical violations of the page as it is now.
 *
 * axe is injected as a script, which the dashboard's CSP (rightly) refuses: open the page in a
 * context made with `bypassCSP: true` (`axeContext`).
 */
import { createRequire } from 'node:module';
import type { BrowserContext, Page } from 'playwright-core';
import { onTestFinished } from 'vitest';
import { newContext } from '../../kit/browser.js';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

/** A browser context axe can be injected into, at this viewport; closed when the test finishes. */
export async function axeContext(viewport: {
  width: number;
  height: number;
}): Promise<BrowserContext> {
  const browser = (await newContext()).browser()!;
  const context = await browser.newContext({ bypassCSP: true, viewport });
  onTestFinished(() => context.close());
  return context;
}

/** axe's serious and critical violations in the page, one line each: rule, impact, help and where. */
export async function seriousFindings(page: Page): Promise<string[]> {
  if (!(await page.evaluate('typeof window.axe !== "undefined"')))
    await page.addScriptTag({ path: AXE });
  const result = (await page.evaluate('axe.run(document, { resultTypes: ["violations"] })')) as {
    violations: Array<{
      id: string;
      impact: string | null;
      help: string;
      nodes: Array<{ target: string[] }>;
    }>;
  };
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
    );
}

/** The findings in light and in dark, each line prefixed with `state` and the scheme; the page is left light. */
export async function findingsInBothSchemes(page: Page, state: string): Promise<string[]> {
  const findings: string[] = [];
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const f of await seriousFindings(page)) findings.push(`${state} ${scheme}: ${f}`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
  return findings;
}
