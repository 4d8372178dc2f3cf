import { call, emulator } from '../kit/index.js';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { Emulator } from '../../emulator/index.js';

import { axeContext, findingsInBothSchemes } from './helpers/axe.js';
import { expectNoConsoleErrors, openDashboard, screenshot } from '../kit/browser.js';
import { emulatorInternals } from '../../emulator/internals.js';

// The Chat page's conversation list (issue 45): every entry said "Nova" and nothing else, and thirty
// conversations pushed the message input off the screen. Each entry now shows the last message and
// when, and the list scrolls in its own box: the input stays in view on a phone and a wide screen.

const MANY = 30;

/** A conversation with Nova through the messaging API; `said` sent in it (nothing sent when null). Its id. */
async function conversation(emu: Emulator, said: string | null): Promise<string> {
  const key = emu.apiKey!;
  const created = await call(emu.messagingUrl, 'POST', '/conversations', {
    bearer: key,
    body: { characterId: 'char_nova' },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const id = created.body.data.id as string;
  if (said !== null) {
    const sent = await call(emu.messagingUrl, 'POST', `/conversations/${id}/messages`, {
      bearer: key,
      body: { content: said },
    });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
  }
  return id;
}

/** Waits until every reply of the emulator's conversations has ended. */
async function repliesEnded(emu: Emulator): Promise<void> {
  await expect
    .poll(
      () => [...emulatorInternals(emu).db.messages.values()].filter((m) => m.isStreaming).length,
    )
    .toBe(0);
}

/** Where the message input is, against the window: [top, bottom, window height]. */
function inputPlace(page: Page): Promise<[number, number, number]> {
  return page.evaluate(`(() => {
    const box = document.querySelector('input[placeholder="Say hello"]').getBoundingClientRect();
    return [box.top, box.bottom, window.innerHeight];
  })()`) as Promise<[number, number, number]>;
}

describe('dashboard: the Chat conversation list', () => {
  for (const viewport of [
    { width: 390, height: 844 },
    { width: 1280, height: 800 },
  ]) {
    it(`at ${viewport.width} px: each entry shows its last message and when, the list scrolls in its own box, and the input stays in view`, async () => {
      const emu = await emulator({
        inMemory: true,
        messaging: { packetSize: 1000, packetIntervalMs: 1 },
      });
      const silent = await conversation(emu, null);
      for (let i = 0; i < MANY - 2; i++) await conversation(emu, `question ${i}`);
      const greeted = await conversation(emu, 'hello');
      await repliesEnded(emu);

      const { page, consoleErrors } = await openDashboard(
        emu,
        `chat/${greeted}`,
        await axeContext(viewport),
      );
      const messages = page.getByRole('list', { name: 'Messages' });
      await messages.getByRole('listitem', { name: 'Nova', exact: true }).waitFor();
      const list = page.getByRole('navigation', { name: 'Conversations' });
      const entries = list.getByRole('link');
      await expect.poll(() => entries.count()).toBe(MANY);

      // Newest activity first; the character, the last message (who and what) and the time since.
      const open = list.locator(`a[href="#/chat/${greeted}"]`);
      expect(await open.getAttribute('aria-current')).toBe('page');
      await expect
        .poll(() => open.textContent())
        .toMatch(/^Nova\d+ s agoNova: Hi there! I'm Nova, a scripted character/);
      const other = list.locator('a').nth(1);
      await expect.poll(() => other.textContent()).toMatch(/^Nova\d+ s agoNova: Tell me more\.$/);
      await expect
        .poll(() => list.locator(`a[href="#/chat/${silent}"]`).textContent())
        .toMatch(/No messages yet$/);
      expect(await open.locator('time').getAttribute('datetime')).toMatch(/^\d{4}-\d\d-\d\dT/);

      // The list scrolls inside its box; the page keeps the input on screen, unscrolled.
      const [scrollHeight, clientHeight] = (await page.evaluate(
        "(() => { const ul = document.querySelector('nav.conversations ul'); return [ul.scrollHeight, ul.clientHeight]; })()",
      )) as [number, number];
      expect(scrollHeight).toBeGreaterThan(clientHeight);
      const [top, bottom, windowHeight] = await inputPlace(page);
      expect(top).toBeGreaterThanOrEqual(0);
      expect(bottom).toBeLessThanOrEqual(windowHeight);
      await screenshot(page, `chat-list-${viewport.width}`);
      expect(await findingsInBothSchemes(page, `chat at ${viewport.width} px`)).toEqual([]);

      // The open conversation's entry follows its messages.
      await page.getByLabel('Your message').fill('help');
      await page.getByRole('button', { name: 'Send' }).click();
      await expect
        .poll(() => open.locator('.conversation-preview').textContent())
        .toBe(
          'Nova: Ask me anything: I answer from my script, and say "Tell me more." to everything else.',
        );
      const [, bottomAfter, heightAfter] = await inputPlace(page);
      expect(bottomAfter).toBeLessThanOrEqual(heightAfter);

      // An entry of the list opens its conversation.
      await list.locator(`a[href="#/chat/${silent}"]`).click();
      await page.waitForURL((u) => u.hash === `#/chat/${silent}`);
      await page.getByLabel('Conversation stream state').getByText('open').waitFor();
      // The last conversation's messages go as the page changes; the stream state may still read "open" from it
      // for a frame, so the count is polled rather than read once.
      await expect.poll(() => messages.getByRole('listitem').count()).toBe(0);
      expectNoConsoleErrors(consoleErrors);
    });
  }
});
