import { describe, expect, it } from 'vitest';
import { call } from '../kit/http.js';
import { expectNoConsoleErrors, openDashboard, screenshot } from '../kit/browser.js';
import { emulator } from '../kit/index.js';

const REPLY = "Hi there! I'm Nova, a scripted character in the plugsmith emulator.";

describe('dashboard: Chat', () => {
  it('lists the conversations to pick one up again, and Data opens one in Chat', async () => {
    const emu = await emulator({ messaging: { packetSize: 1000, packetIntervalMs: 1 } });
    const { page, consoleErrors } = await openDashboard(emu, 'chat');
    const list = page.getByRole('navigation', { name: 'Conversations' });
    await list.getByText('No conversations yet').waitFor();
    await page.getByLabel('Character').selectOption('char_nova');
    await page.getByRole('button', { name: 'Start a conversation' }).click();
    await page.waitForURL(/#\/chat\/conv_/);
    const conversationId = decodeURIComponent(new URL(page.url()).hash.split('/')[2]);
    await page.getByLabel('Your message').fill('hello');
    await page.getByRole('button', { name: 'Send' }).click();
    const messages = page.getByRole('list', { name: 'Messages' });
    // Counted in the right number: "1 packet", "2 packets".
    const reply = messages.getByRole('listitem', { name: 'Nova', exact: true });
    await reply.waitFor();
    const meta = (await reply.locator('.meta').last().textContent())!;
    expect(meta).toMatch(/· (1 packet|[02-9]\d* packets)$/);

    await page.goto(new URL('#/chat', page.url()).href);
    await list.getByRole('link', { name: 'Nova' }).click();
    await page.waitForURL((u) => u.hash === `#/chat/${conversationId}`);
    await messages.getByRole('listitem', { name: 'You' }).getByText('hello').waitFor();

    await page.goto(new URL(`#/data/conversations/${conversationId}`, page.url()).href);
    await page
      .getByRole('article', { name: `Conversation ${conversationId}` })
      .getByRole('link', { name: 'Open in Chat' })
      .click();
    await page.waitForURL((u) => u.hash === `#/chat/${conversationId}`);
    await messages.getByRole('listitem', { name: 'You' }).getByText('hello').waitFor();
    expectNoConsoleErrors(consoleErrors);
  });

  it('starts a conversation, sends a message with an image URL, and shows the reply growing packet by packet', async () => {
    // Small, spaced packets: the reply takes about a second to stream.
    const emu = await emulator({ messaging: { packetSize: 4, packetIntervalMs: 50 } });
    const { page, consoleErrors } = await openDashboard(emu, 'chat');
    await page.getByLabel('Character').selectOption('char_nova');
    await page.getByRole('button', { name: 'Start a conversation' }).click();
    await page.waitForURL(/#\/chat\/conv_/);
    const conversationId = decodeURIComponent(new URL(page.url()).hash.split('/')[2]);
    await page.getByLabel('Conversation stream state').getByText('open').waitFor();

    // Every length the character's message takes in the page, as the DOM changes.
    // (Page code as a string: the tests' tsconfig has no DOM library.)
    await page.evaluate(`(() => {
      const lengths = (window.replyLengths = []);
      new MutationObserver(() => {
        const reply = document.querySelector('ol.messages li.character .content');
        if (reply && lengths[lengths.length - 1] !== reply.textContent.length) lengths.push(reply.textContent.length);
      }).observe(document.querySelector('ol.messages'), { subtree: true, childList: true, characterData: true });
    })()`);

    await page.getByLabel('Your message').fill('hello');
    await page.getByLabel('Image URL (attachment)').fill('https://example.com/cat.png');
    await page.getByRole('button', { name: 'Send' }).click();
    const messages = page.getByRole('list', { name: 'Messages' });
    await messages.getByRole('listitem', { name: 'Nova (streaming)' }).waitFor();
    await screenshot(page, 'chat-streaming');
    const done = messages.getByRole('listitem', { name: 'Nova', exact: true });
    await done.waitFor();
    expect(await done.locator('.content').textContent()).toBe(REPLY);

    const lengths = (await page.evaluate('window.replyLengths')) as number[];
    // The text grew in steps (one per packet it rendered), never shrank, and ended whole.
    expect(lengths.length).toBeGreaterThan(3);
    expect([...lengths].sort((a, b) => a - b)).toEqual(lengths);
    expect(lengths[lengths.length - 1]).toBe(REPLY.length);
    expect(await done.getByText(/\d+ packets/).textContent()).toMatch(/([4-9]|\d\d+) packets/);

    // In the order they were written, whichever answer reached the page first.
    const order: Array<string | null> = [];
    for (const item of await messages.getByRole('listitem').all())
      order.push(await item.getAttribute('aria-label'));
    expect(order).toEqual(['You', 'Nova']);
    // The user's message went through the messaging API with its attachment.
    const you = messages.getByRole('listitem', { name: 'You' });
    await you.getByRole('link', { name: 'https://example.com/cat.png' }).waitFor();
    const stored = await call(
      emu.url,
      'GET',
      `/_emulator/conversations/${conversationId}/messages`,
      { headers: emu.adminHeaders },
    );
    expect(stored.body.data[0]).toMatchObject({
      sender: 'USER',
      content: 'hello',
      attachments: [{ type: 'IMAGE_URL', content: 'https://example.com/cat.png' }],
    });
    expect(stored.body.data[1]).toMatchObject({
      sender: 'CHARACTER',
      content: REPLY,
      isStreaming: false,
    });
    await screenshot(page, 'chat');
    await page.emulateMedia({ colorScheme: 'dark' });
    await screenshot(page, 'chat-dark');
    expectNoConsoleErrors(consoleErrors);
  });
});
