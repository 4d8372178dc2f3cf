import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  createWebhookEvent,
  EVENT_TYPES,
  isWebhookEventType,
  LIFECYCLE_EVENTS,
  type Message,
  type WebhookEvent,
  type WebhookEventType,
} from '../../src/shared/webhooks/index.js';
import { instance } from './fixtures/events.js';

describe('event kinds', () => {
  it('lists every kind the platform dispatches, lifecycle ones among them', () => {
    expect(EVENT_TYPES).toEqual([
      'WEBHOOK_CHALLENGE',
      'PLUGIN_INSTALLED',
      'PLUGIN_UNINSTALLED',
      'AGENT_MESSAGE_RECEIVED',
      'REPOSITORY_FILE_ADDED',
      'REPOSITORY_FILE_REMOVED',
    ]);
    expect(LIFECYCLE_EVENTS).toEqual([
      'WEBHOOK_CHALLENGE',
      'PLUGIN_INSTALLED',
      'PLUGIN_UNINSTALLED',
    ]);
    for (const kind of LIFECYCLE_EVENTS) expect(EVENT_TYPES).toContain(kind);
  });

  it('tells known kinds from anything else', () => {
    expect(isWebhookEventType('AGENT_MESSAGE_RECEIVED')).toBe(true);
    expect(isWebhookEventType('toString')).toBe(false);
    expect(isWebhookEventType(42)).toBe(false);
  });
});

describe('createWebhookEvent', () => {
  it('fills a fresh id and the current time', () => {
    const before = Date.now();
    const event = createWebhookEvent('PLUGIN_UNINSTALLED', {
      pluginId: 'plg_1',
      pluginInstanceId: 'pi_1',
      orgId: 'org_acme',
      data: { instance },
    });
    expect(event.id).toMatch(/^evt_[0-9a-f]{32}$/);
    expect(Date.parse(event.createdAt)).toBeGreaterThanOrEqual(before - 1000);
    expect(createWebhookEvent('PLUGIN_UNINSTALLED', { ...event }).id).toBe(event.id);
    expect(Object.keys(event)).toEqual([
      'id',
      'type',
      'createdAt',
      'pluginId',
      'pluginInstanceId',
      'orgId',
      'data',
    ]);
  });

  it('takes a kind known only at run time untyped, and still checks a call that names its kind', () => {
    const kind = EVENT_TYPES[0] as WebhookEventType;
    const event = createWebhookEvent(kind, {
      pluginId: 'plg_1',
      pluginInstanceId: null,
      orgId: 'org_acme',
      data: { challenge: 'c' },
    });
    expectTypeOf(event).toEqualTypeOf<WebhookEvent>();
    expect(event).toMatchObject({ type: kind, data: { challenge: 'c' } });
    const named = () =>
      // @ts-expect-error a call naming its kind is checked against that kind's data
      createWebhookEvent('WEBHOOK_CHALLENGE', {
        pluginId: 'plg_1',
        pluginInstanceId: null,
        orgId: 'org_acme',
        data: { notTheChallenge: 'c' },
      });
    expect(named().type).toBe('WEBHOOK_CHALLENGE');
  });

  it('narrows data by type', () => {
    const describeEvent = (event: WebhookEvent): string => {
      switch (event.type) {
        case 'WEBHOOK_CHALLENGE':
          expectTypeOf(event.pluginInstanceId).toEqualTypeOf<null>();
          return event.data.challenge;
        case 'AGENT_MESSAGE_RECEIVED':
          expectTypeOf(event.data.message).toEqualTypeOf<Message>();
          // Every event but the challenge concerns one instance (the contract's schema says so too).
          expectTypeOf(event.pluginInstanceId).toEqualTypeOf<string>();
          return event.data.message.content;
        case 'REPOSITORY_FILE_ADDED':
        case 'REPOSITORY_FILE_REMOVED':
          return event.data.file.fileName;
        default:
          return event.data.instance.name;
      }
    };
    const message: Message = {
      id: 'msg_1',
      conversationId: 'conv_1',
      sender: 'USER',
      type: 'TEXT',
      content: 'hello',
      attachments: [],
      isStreaming: false,
      createdAt: '2025-01-01T00:00:00.000Z',
      updatedAt: '2025-01-01T00:00:00.000Z',
    };
    const received = createWebhookEvent('AGENT_MESSAGE_RECEIVED', {
      pluginId: 'plg_1',
      pluginInstanceId: 'pi_2',
      orgId: 'org_acme',
      data: { agentId: 'agent_nova', characterId: 'char_nova', conversationId: 'conv_1', message },
    });
    expect(describeEvent(received)).toBe('hello');
    expect(
      describeEvent(
        createWebhookEvent('WEBHOOK_CHALLENGE', {
          pluginId: 'p',
          pluginInstanceId: null,
          orgId: 'o',
          data: { challenge: 'c' },
        }),
      ),
    ).toBe('c');
  });
});
