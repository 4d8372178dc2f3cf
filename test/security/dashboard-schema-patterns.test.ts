import { call, emulator } from '../kit/index.js';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../emulator/index.js';
import { answerProperly, WebhookServer } from '../kit/webhook-server.js';
import { ROLES_SEED, TOKENS } from '../kit/roles-seed.js';
import { expectNoConsoleErrors, openDashboard, screenshot } from '../kit/browser.js';

// A MEMBER writes the payloadSchema of an external event; the OWNER's dashboard reads it. The
// Trigger view checks payloads against it in the page, so the schema's patterns must run on the
// same linear engine as the emulator's (RE2): `^(a+)+$` with an example of 27 `a`s and a `!` kept
// Chromium's backtracking RegExp busy for some 17 s (twice as long for each `a` more), and a
// `patternProperties` key valid for RE2 but not for JavaScript (`k\z`) threw while the view
// rendered, which left a blank page. Now the view answers at once and shows each as a message.
// Likewise a hand-made link whose path is not valid percent-encoding no longer blanks the page.

let emu: Emulator;
let hook: WebhookServer;
let pluginId: string;

const EVIL = 'a'.repeat(27) + '!';

beforeAll(async () => {
  emu = await emulator({ seed: ROLES_SEED });
  hook = await WebhookServer.start((event, received) =>
    event.type === 'WEBHOOK_CHALLENGE'
      ? answerProperly(event, received)
      : { status: 200, body: {} },
  );
  const created = await call(emu.url, 'POST', '/api/orgs/org_acme/plugins', {
    bearer: TOKENS.member,
    body: {
      name: 'Hostile schemas',
      type: 'EVENT_HANDLER',
      events: [],
      scopes: [],
      webhookUrl: hook.url,
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  pluginId = created.body.data.id;
  const events = [
    {
      name: 'redos',
      title: 'Backtracking pattern',
      payloadSchema: {
        type: 'object',
        properties: { code: { type: 'string', pattern: '^(a+)+$', examples: [EVIL] } },
      },
    },
    {
      name: 're2_only',
      title: 'RE2-only key pattern',
      payloadSchema: {
        type: 'object',
        properties: {
          attrs: { type: 'object', patternProperties: { 'k\\z': { type: 'number' } } },
        },
      },
    },
  ];
  for (const event of events) {
    const answer = await call(emu.url, 'POST', `/api/plugins/${pluginId}/external-events`, {
      bearer: TOKENS.member,
      body: event,
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  }
});
afterAll(async () => {
  await hook?.close();
});

/** What the page answers to a trivial evaluate within `ms`, or 'no answer' when its main thread is busy that long. */
async function answersWithin(page: Page, ms: number): Promise<string> {
  const timer = new Promise<string>((resolve) =>
    setTimeout(() => resolve('no answer'), ms).unref(),
  );
  return Promise.race([page.evaluate(() => 'answered'), timer]);
}

/** The Trigger view with the plugin and one of its external events chosen. */
async function triggerWith(eventLabel: string) {
  const opened = await openDashboard(emu, 'trigger');
  const { page } = opened;
  // A frozen page fails the test (after this long) instead of hanging it.
  page.setDefaultTimeout(10_000);
  await page.getByLabel('Plugin', { exact: true }).selectOption(pluginId);
  await page
    .locator('optgroup[label^="External events"] option', { hasText: eventLabel })
    .waitFor({ state: 'attached' });
  await page.getByLabel('Event kind', { exact: true }).selectOption({ label: eventLabel });
  return opened;
}

describe("dashboard Trigger view with a MEMBER's hostile payloadSchema", () => {
  it('a backtracking pattern with a long example does not freeze the page: the view answers and reports the mismatch', async () => {
    const { page, consoleErrors } = await triggerWith('redos (Backtracking pattern)');
    // Generous: the page answers in milliseconds; the backtracking engine took some 17 s.
    expect(await answersWithin(page, 5_000)).toBe('answered');
    const payload = page.getByLabel("Payload (the event's data, JSON)");
    await payload.fill(JSON.stringify({ code: EVIL }));
    await page.getByRole('button', { name: 'Check payload' }).click();
    expect(await answersWithin(page, 5_000)).toBe('answered');
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('payload.code must match the pattern ^(a+)+$');
    await payload.fill(JSON.stringify({ code: 'aaaa' }));
    await page.getByRole('button', { name: 'Check payload' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: 'Valid: the payload matches the payloadSchema of redos' })
      .waitFor();
    await screenshot(page, 'security-trigger-redos');
    expectNoConsoleErrors(consoleErrors);
  });

  it('a patternProperties key that only RE2 reads (k\\z) is checked as the emulator checks it, with no blank page', async () => {
    const { page, consoleErrors } = await triggerWith('re2_only (RE2-only key pattern)');
    const payload = page.getByLabel("Payload (the event's data, JSON)");
    await expect.poll(async () => JSON.parse(await payload.inputValue())).toEqual({ attrs: {} });
    await payload.fill(JSON.stringify({ attrs: { k: 'not a number', other: 'free' } }));
    await page.getByRole('button', { name: 'Check payload' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    const text = await alert.textContent();
    expect(text).toContain('payload.attrs.k must be number');
    expect(text).not.toContain('payload.attrs.other');
    // The shell is still there.
    expect(await page.getByRole('navigation', { name: 'Dashboard pages' }).count()).toBe(1);
    await screenshot(page, 'security-trigger-re2-key');
    expectNoConsoleErrors(consoleErrors);
  });

  it('a link with malformed percent-encoding opens the view instead of a blank page', async () => {
    const { page, consoleErrors } = await openDashboard(emu, 'overview');
    page.setDefaultTimeout(10_000);
    // Loaded afresh at that address (a link someone sent), the session kept in localStorage.
    await page.goto(new URL('#/deliveries/%E0%A4%A', page.url()).href);
    await page.reload();
    await page.getByRole('navigation', { name: 'Dashboard pages' }).waitFor();
    expect(await page.getByRole('link', { name: 'Deliveries' }).getAttribute('aria-current')).toBe(
      'page',
    );
    // The segment is looked up as it was written: no such delivery (the 404 is all the console shows).
    await page.getByText('This delivery no longer exists').first().waitFor();
    expect(consoleErrors.filter((e) => !e.includes('status of 404'))).toEqual([]);
  });
});
