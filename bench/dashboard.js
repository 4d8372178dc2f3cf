// Issue 17's dashboard speed figures, in a real Chromium driven by playwright-core (the browser
// tests' one: test/dashboard/helpers/chromium.js)
// against the built emulator (dist/) in this process: first meaningful paint of Deliveries with
// 10,000 stored deliveries, the time from an attempt ending to its row in the page, and scrolling
// 10,000 rows (frame intervals and long tasks). Baselines from the same run: the paint of an empty
// log, the delivery stream's own latency to a Node client, and one 60 Hz frame.
import { setTimeout as sleep } from 'node:timers/promises';
import { chromium } from 'playwright-core';
import { request } from 'undici';
import { chromiumLaunchOptions } from '../test/dashboard/helpers/chromium.js';
import { median, percentile, root } from './lib.js';
import { apiClient } from './helpers/api.js';
import { startReceiver } from './helpers/receiver.js';

const STORED = 10_000;

/** Records in the page, from its first moment: when the first delivery row appears, and when rows with given ids appear. */
function pageProbe() {
  window.__firstRow = null;
  window.__seen = new Map();
  const observer = new MutationObserver(() => {
    const rows = document.querySelectorAll('.dl-body-row');
    if (rows.length === 0) return;
    if (window.__firstRow === null) {
      const at = performance.now();
      // Painted: the frame after the row is in the DOM.
      requestAnimationFrame(() => (window.__firstRow = Math.max(at, performance.now())));
    }
    for (const row of rows) {
      const text = row.textContent;
      const id = /dlv_[0-9a-z_]+/.exec(text)?.[0];
      if (id && !window.__seen.has(id)) {
        window.__seen.set(id, null);
        requestAnimationFrame(() => window.__seen.set(id, Date.now()));
      }
    }
  });
  addEventListener('DOMContentLoaded', () =>
    observer.observe(document.body, { childList: true, subtree: true, characterData: true }),
  );
}

/** Puts `count` delivered deliveries in the log through the admin export/import. */
async function storeDeliveries(admin, count) {
  const exported = await admin('GET', '/_emulator/export');
  const start = Date.parse('2026-01-01T00:00:00.000Z');
  const deliveries = Array.from({ length: count }, (_, i) => {
    const at = new Date(start + i * 1000).toISOString();
    const n = String(i).padStart(5, '0');
    const eventId = `evt_bulk_${n}`;
    const pluginId = `plg_bulk_${i % 7}`;
    return {
      id: `dlv_bulk_${n}`,
      eventId,
      type: 'AGENT_MESSAGE_RECEIVED',
      pluginId,
      pluginInstanceId: `pi_bulk_${i % 7}`,
      orgId: 'org_bulk',
      url: 'http://127.0.0.1:9/webhook',
      event: {
        id: eventId,
        type: 'AGENT_MESSAGE_RECEIVED',
        createdAt: at,
        pluginId,
        pluginInstanceId: `pi_bulk_${i % 7}`,
        orgId: 'org_bulk',
        data: { text: `message ${i}` },
      },
      status: 'delivered',
      mode: 'ASYNC',
      retries: true,
      attempts: [
        {
          number: 1,
          startedAt: at,
          url: 'http://127.0.0.1:9/webhook',
          webhookTimestamp: String(Date.parse(at) / 1000),
          durationMs: 3,
          responseStatus: 200,
          responseBody: '{}',
          error: null,
          nextAttemptAt: null,
        },
      ],
      nextAttemptAt: null,
      redeliveryOf: null,
      secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      createdAt: at,
      updatedAt: at,
    };
  });
  await admin('POST', '/_emulator/import', {
    ...exported,
    collections: { ...exported.collections, deliveries },
  });
}

/** ms from navigation start to the first delivery row painted, for a fresh load of `#/deliveries`. */
async function firstPaint(context, base) {
  const page = await context.newPage();
  await page.goto(`${base}/_emulator/dashboard/#/deliveries`);
  await page.waitForFunction(() => window.__firstRow !== null, null, { timeout: 30_000 });
  const ms = await page.evaluate(() => window.__firstRow);
  await page.close();
  return ms;
}

/** The wall-clock time an attempt ended, by the emulator's log. */
function attemptEnd(delivery) {
  const a = delivery.attempts[0];
  return Date.parse(a.startedAt) + a.durationMs;
}

export default async function run({ quick }) {
  const { executablePath, args, env } = await chromiumLaunchOptions();
  const { startEmulator } = await import(`${root}/dist/emulator/index.js`);
  const receiver = await startReceiver();
  const browser = await chromium.launch({ executablePath, args, env, headless: true });
  const rows = [];
  const paints = quick ? 3 : 7;
  try {
    const emu = await startEmulator();
    const admin = apiClient(emu.url, undefined, emu.adminHeaders);
    const api = apiClient(emu.url, `Bearer ${emu.token}`);
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.addInitScript(pageProbe);
    const login = await context.newPage();
    await login.goto(emu.dashboardLink());
    await login.getByRole('navigation', { name: 'Dashboard pages' }).waitFor();

    // Baseline: an almost empty log (one plugin's challenge and install).
    const plugin = await api('POST', `/api/orgs/${emu.orgId}/plugins`, {
      name: 'bench',
      type: 'EVENT_HANDLER',
      events: ['AGENT_MESSAGE_RECEIVED'],
      scopes: [],
      webhookUrl: `${receiver.url}/hook`,
    });
    await api('POST', `/api/plugins/${plugin.id}/verify-webhook`);
    const agentId = emu.agentId;
    const instance = await api('POST', `/api/agents/${agentId}/plugins`, {
      name: 'bench',
      pluginId: plugin.id,
      events: ['AGENT_MESSAGE_RECEIVED'],
      scopes: [],
    });
    await emu.waitForDelivery({ type: 'PLUGIN_INSTALLED', pluginInstanceId: instance.id });
    const empty = [];
    for (let i = 0; i < paints; i++) empty.push(await firstPaint(context, emu.url));

    await storeDeliveries(admin, STORED);
    const full = [];
    for (let i = 0; i < paints; i++) full.push(await firstPaint(context, emu.url));
    rows.push({
      name: `first paint of Deliveries, ${STORED} stored (p50 of ${paints})`,
      ms: median(full),
      p99: Math.max(...full),
      ratio: median(full) / median(empty),
      target: '< 1000 ms (ratio: vs 2 stored)',
    });

    // Attempt end → row visible, with the page open on 10,000 rows; baseline: the stream to a Node client.
    const page = await context.newPage();
    await page.goto(`${emu.url}/_emulator/dashboard/#/deliveries`);
    await page.waitForFunction(() => window.__firstRow !== null);
    await page
      .getByText(`${STORED.toLocaleString('en')} shown`, { exact: false })
      .first()
      .waitFor();
    const controller = new AbortController();
    const streamed = new Map();
    const stream = await request(`${emu.url}/_emulator/deliveries/stream`, {
      headers: emu.adminHeaders,
      signal: controller.signal,
    });
    void (async () => {
      try {
        for await (const chunk of stream.body) {
          const at = Date.now();
          for (const m of chunk.toString().matchAll(/"delivery":\{"id":"(dlv_[0-9a-z]+)"/g))
            if (!streamed.has(m[1])) streamed.set(m[1], at);
        }
      } catch {
        // aborted at the end
      }
    })();
    const now = new Date().toISOString();
    const data = {
      agentId,
      characterId: 'char_bench',
      conversationId: 'conv_bench',
      message: {
        id: 'msg_bench',
        conversationId: 'conv_bench',
        sender: 'USER',
        type: 'TEXT',
        content: 'bench',
        attachments: [],
        isStreaming: false,
        createdAt: now,
        updatedAt: now,
      },
    };
    const toRow = [];
    const toStream = [];
    for (let i = 0; i < (quick ? 10 : 30); i++) {
      const sent = await admin('POST', '/_emulator/events', {
        type: 'AGENT_MESSAGE_RECEIVED',
        pluginId: plugin.id,
        pluginInstanceId: instance.id,
        data,
        mode: 'SYNC',
      });
      const shown = await page
        .waitForFunction((id) => window.__seen.get(id) ?? null, sent.id, { timeout: 10_000 })
        .then((h) => h.jsonValue());
      const ended = attemptEnd(sent);
      toRow.push(shown - ended);
      while (!streamed.has(sent.id)) await sleep(5);
      toStream.push(streamed.get(sent.id) - ended);
      await sleep(100);
    }
    controller.abort();
    rows.push({
      name: `attempt end → row visible (${toRow.length} events, ${STORED} rows)`,
      p50: median(toRow),
      p99: percentile(toRow, 99),
      ratio: Math.max(1, median(toRow)) / Math.max(1, median(toStream)),
      target: '< 200 ms (ratio: vs the stream to a Node client)',
    });

    // Scrolling: one step per frame (a wheel's 120 px, and a fast fling of 900 px), frame intervals and long tasks.
    const scrollRun = (step, maxFrames) =>
      page.evaluate(
        async ([step, maxFrames]) => {
          const el = document.querySelector('[data-testid=deliveries-scroll]');
          const longTasks = [];
          const observer = new PerformanceObserver((list) =>
            longTasks.push(...list.getEntries().map((e) => e.duration)),
          );
          observer.observe({ type: 'longtask', buffered: false });
          el.scrollTop = 0;
          await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
          const frames = [];
          let last = performance.now();
          await new Promise((resolve) => {
            const tick = (t) => {
              frames.push(t - last);
              last = t;
              if (
                frames.length > maxFrames ||
                el.scrollTop + el.clientHeight >= el.scrollHeight - 1
              )
                return resolve();
              el.scrollTop += step;
              requestAnimationFrame(tick);
            };
            requestAnimationFrame(tick);
          });
          observer.disconnect();
          return {
            frames: frames.slice(1),
            longTasks,
            rowsInDom: document.querySelectorAll('.dl-body-row').length,
          };
        },
        [step, maxFrames],
      );
    const wheel = await scrollRun(120, 300);
    const scroll = await scrollRun(900, 1000);
    // Baseline: the same page's frames while nothing scrolls (what this machine gives a page right now).
    const idle = await page.evaluate(async () => {
      const frames = [];
      let last = performance.now();
      await new Promise((resolve) => {
        const tick = (t) => {
          frames.push(t - last);
          last = t;
          if (frames.length > 120) return resolve();
          requestAnimationFrame(tick);
        };
        requestAnimationFrame(tick);
      });
      return frames.slice(1);
    });
    rows.push({
      name: `idle frames of the same page (baseline, ${idle.length} frames)`,
      p50: median(idle),
      p99: percentile(idle, 99),
    });
    for (const [label, run] of [
      ['120 px', wheel],
      ['900 px', scroll],
    ]) {
      rows.push({
        name: `scroll ${STORED} rows, ${label} a frame (${run.frames.length} frames, ${run.longTasks.length} long tasks, ${run.rowsInDom} rows in DOM)`,
        p50: median(run.frames),
        p99: percentile(run.frames, 99),
        ratio: median(run.frames) / median(idle),
        target: 'p50 frame ≈ idle (ratio: vs idle frames)',
      });
    }
    await context.close();
    await emu.close();
  } finally {
    await browser.close();
    await receiver.close();
  }
  return rows;
}
