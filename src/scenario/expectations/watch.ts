import { setTimeout as sleep } from 'node:timers/promises';
import {
  isCharacterMessageSent,
  type Delivery,
  type EventsOptions,
  type EventStream,
  type Message,
  type ServerSentEvent,
} from '../../client/index.js';
import type { RunContext, StepScope, StepWatch } from '../context.js';

// What a step's expectations read of what the plugin did (the step's deliveries, the replies in its
// conversation) and how they wait for it to change.
//
// On the emulator a wait follows two streams the emulator already serves: the delivery stream
// (GET /_emulator/deliveries/stream, one `attempt` event per attempt logged, the plugin's own only)
// and the conversation's events (GET /conversations/:id/events, CHARACTER_MESSAGE_SENT per packet
// of a reply). A read lists the deliveries, or the replies, again only after its stream told of a
// change since the last read; the lists stay the truth, so a delivery created and not yet attempted
// (which no attempt event announces) is seen as pending, as before. Each stream is subscribed
// before its first list, so nothing falls between the two.
//
// A remote platform keeps no delivery log the public APIs show, and its messaging API names no event
// stream (the platform's spec: clients poll a conversation's messages), so a remote watch polls the
// replies; file checks poll on either target, as no platform streams a repository's files.

/** How often a watch without a stream reads again: a remote platform, or a stream that could not be opened or ended. */
export const POLL_MS = 10;

/** A watch of the step's deliveries and replies on the run's target; closed by the caller when the step ends. */
export function watchStep(context: RunContext, scope: StepScope): StepWatch {
  return context.remote ? new PolledWatch(context, scope) : new StreamedWatch(context, scope);
}

/** The replies of the step's conversation after its message, read through the messaging API (complete ones only). */
async function listReplies(context: RunContext, scope: StepScope): Promise<Message[]> {
  if (!scope.conversationId) return [];
  const page = await context.client.messaging.messages.list(scope.conversationId, {
    after: scope.messageId,
    limit: 100,
  });
  return page.data.filter((m) => m.sender === 'CHARACTER' && !m.isStreaming);
}

/** The plugin's deliveries since the step began, oldest first, read through the emulator's admin API. */
async function listDeliveries(context: RunContext, scope: StepScope): Promise<Delivery[]> {
  const page = await context.client.emulator.deliveries.list({
    pluginId: context.pluginId,
    since: scope.startedAt,
    limit: 100,
    sortBy: 'createdAt',
    sortOrder: 'asc',
  });
  return page.data.filter((d) => d.type !== 'WEBHOOK_CHALLENGE');
}

/** The watch of a remote platform: no delivery log to read, the replies polled. */
class PolledWatch implements StepWatch {
  settled?: Delivery[];

  constructor(
    private readonly context: RunContext,
    private readonly scope: StepScope,
  ) {}

  async deliveries(): Promise<Delivery[]> {
    return [];
  }

  replies(): Promise<Message[]> {
    return listReplies(this.context, this.scope);
  }

  async changed(until: number): Promise<void> {
    await this.context.pause(Math.max(0, Math.min(POLL_MS, until - Date.now())));
  }

  close(): void {}
}

/**
 * One event stream followed in the background: `stale` is set by each event that matters (and `onChange` called), `live`
 * while the stream is followed. `opened` resolves once it is, or once it could not be.
 */
class Feed {
  stale = true;
  live = false;
  readonly opened: Promise<void>;

  constructor(
    open: (options: EventsOptions) => EventStream,
    matters: (event: ServerSentEvent) => boolean,
    onChange: () => void,
    signal: AbortSignal,
  ) {
    this.opened = new Promise((resolve) => {
      const stream = open({
        signal,
        onOpen: () => {
          this.live = true;
          resolve();
        },
      });
      const follow = async () => {
        for await (const event of stream) {
          if (!matters(event)) continue;
          this.stale = true;
          onChange();
        }
      };
      follow()
        // A stream refused or lost: `live` is false, and the reads poll (what they then list tells any real problem).
        .catch(() => undefined)
        .finally(() => {
          this.live = false;
          resolve();
          onChange();
        });
    });
  }
}

/** The watch of the emulator: the delivery stream and the conversation's events say when to read again. */
class StreamedWatch implements StepWatch {
  settled?: Delivery[];
  private readonly ending = new AbortController();
  private readonly signal: AbortSignal;
  private deliveryFeed?: Feed;
  private replyFeed?: Feed;
  private deliveriesRead: Delivery[] = [];
  private repliesRead: Message[] = [];
  /** Something changed since the last `changed()` returned. */
  private pending = false;
  /** Ends the wait of `changed()` under way, if any. */
  private wake?: () => void;

  constructor(
    private readonly context: RunContext,
    private readonly scope: StepScope,
  ) {
    const run = context.signal;
    this.signal = run ? AbortSignal.any([run, this.ending.signal]) : this.ending.signal;
  }

  async deliveries(): Promise<Delivery[]> {
    this.deliveryFeed ??= new Feed(
      (options) =>
        this.context.client.emulator.deliveries.stream(
          { pluginId: this.context.pluginId },
          options,
        ),
      (event) => event.event === 'attempt' && this.isStepDelivery(event.data),
      () => this.changedNow(),
      this.signal,
    );
    const feed = this.deliveryFeed;
    await feed.opened;
    if (feed.stale || !feed.live) {
      feed.stale = false;
      this.deliveriesRead = await listDeliveries(this.context, this.scope);
    }
    return this.deliveriesRead;
  }

  async replies(): Promise<Message[]> {
    const conversationId = this.scope.conversationId;
    if (!conversationId) return [];
    this.replyFeed ??= new Feed(
      (options) => this.context.client.messaging.events(conversationId, options),
      (event) => isCharacterMessageSent(event) && event.data.message.isStreaming === false,
      () => this.changedNow(),
      this.signal,
    );
    const feed = this.replyFeed;
    await feed.opened;
    if (feed.stale || !feed.live) {
      feed.stale = false;
      this.repliesRead = await listReplies(this.context, this.scope);
    }
    return this.repliesRead;
  }

  async changed(until: number): Promise<void> {
    if (this.pending) {
      this.pending = false;
      return;
    }
    const feeds = [this.deliveryFeed, this.replyFeed].filter((feed) => feed !== undefined);
    const polling = feeds.some((feed) => !feed.live);
    const end = polling ? Math.min(until, Date.now() + POLL_MS) : until;
    const woken = new AbortController();
    this.wake = () => woken.abort();
    const run = this.context.signal;
    try {
      await sleep(Math.max(0, end - Date.now()), undefined, {
        signal: run ? AbortSignal.any([run, woken.signal]) : woken.signal,
      });
    } catch (error) {
      if (run?.aborted) throw error;
    } finally {
      this.wake = undefined;
    }
    this.pending = false;
  }

  close(): void {
    this.ending.abort();
  }

  private changedNow(): void {
    this.pending = true;
    this.wake?.();
  }

  /** Whether an attempt notice is of one of the step's deliveries (made since it began, not a challenge). */
  private isStepDelivery(data: unknown): boolean {
    if (!isRecord(data) || !isRecord(data.delivery)) return false;
    const { type, createdAt } = data.delivery;
    return (
      type !== 'WEBHOOK_CHALLENGE' &&
      typeof createdAt === 'string' &&
      createdAt >= this.scope.startedAt
    );
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object';
}

/**
 * A retry waiting for its time (a failed or dropped attempt) is made now: a scenario does not wait out the retry schedule
 * (POST /_emulator/deliveries/:id/retry). At most once per attempt.
 */
export async function hurry(context: RunContext, deliveries: Delivery[]): Promise<void> {
  // On a remote platform there is no delivery to hurry (its watch reads none): its own retry schedule applies.
  for (const delivery of deliveries) {
    if (delivery.status !== 'pending' || delivery.attempts.length === 0) continue;
    const key = `${delivery.id}#${delivery.attempts.length}`;
    if (context.hurried.has(key)) continue;
    // Refused while an attempt still runs (a 409): asked again at the next read, which that attempt's end brings.
    const made = await context.client.emulator.deliveries.retry(delivery.id).then(
      () => true,
      () => false,
    );
    if (made) context.hurried.add(key);
  }
}

/** Waits until the step's deliveries are answered (none pending), at most until `deadline`; returns them. */
export async function settledDeliveries(
  context: RunContext,
  watch: StepWatch,
  deadline: number,
): Promise<Delivery[]> {
  if (watch.settled) return watch.settled;
  for (;;) {
    const deliveries = await watch.deliveries();
    await hurry(context, deliveries);
    const pending = deliveries.some((d) => d.status === 'pending');
    if (!pending && deliveries.length > 0) {
      watch.settled = deliveries;
      return deliveries;
    }
    if (Date.now() >= deadline) return deliveries;
    await watch.changed(deadline);
  }
}

/** The delivery to point at when a reply is wrong: the step's last of AGENT_MESSAGE_RECEIVED, else its last. */
export async function blamedDelivery(watch: StepWatch): Promise<Delivery | undefined> {
  const deliveries = await watch.deliveries().catch((): Delivery[] => []);
  return deliveries.filter((d) => d.type === 'AGENT_MESSAGE_RECEIVED').at(-1) ?? deliveries.at(-1);
}
