import { describe, expect, it } from 'vitest';
import { axeContext, findingsInBothSchemes } from './helpers/axe.js';
import { expectNoConsoleErrors, openDashboard, screenshot } from '../kit/browser.js';
import { emulator } from '../kit/index.js';

// axe at a phone's width (390 px) on the states the all-views sweep (a11y-layout.test.ts) does not
// reach: an emulator with no delivery yet, and a filter that matches none (issue 45).

const PHONE = { width: 390, height: 844 };

describe('dashboard at 390 px: axe on the empty Deliveries table', () => {
  it('finds nothing serious with no delivery at all and with a filter that matches none, and the page does not scroll sideways', async () => {
    const emu = await emulator({ inMemory: true });
    expect(emu.deliveries.list()).toEqual([]);
    const { page, consoleErrors } = await openDashboard(emu, 'deliveries', await axeContext(PHONE));
    const findings: string[] = [];

    await page.getByText('No deliveries yet').waitFor();
    await page.getByRole('table', { name: 'Deliveries' }).waitFor();
    findings.push(...(await findingsInBothSchemes(page, 'no deliveries')));
    await screenshot(page, 'deliveries-empty-390', { fullPage: true });

    await page.getByLabel('Search', { exact: true }).fill('no-such-delivery');
    await page.getByText('No deliveries match these filters').waitFor();
    findings.push(...(await findingsInBothSchemes(page, 'filtered to none')));

    const [pageWidth, viewport] = (await page.evaluate(
      '[document.scrollingElement.scrollWidth, window.innerWidth]',
    )) as [number, number];
    expect(pageWidth).toBeLessThanOrEqual(viewport);
    expect(findings).toEqual([]);
    expectNoConsoleErrors(consoleErrors);
  });
});
