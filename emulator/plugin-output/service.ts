import { hashSecret } from '../auth/credentials.js';
import type { Db, DeliveryRecord } from '../model.js';
import {
  OUTPUT_MAX_BATCH,
  OutputRing,
  SecretScrubber,
  cleanLine,
  type NumberedLine,
  type OutputLine,
} from '#shared/plugin-output';
import type { PluginOutputPage } from '#contract';
import { linkOutput } from './link.js';

/** Words that may be a credential the store keeps only as a hash (a seeded `tok_olive`, a rotated API key). */
const CANDIDATE_WORD = /[A-Za-z0-9_-]{8,200}/g;

/** What the emulator knows of secrets beyond its store: its admin credential, the default workspace's token and key, the storage key. */
export interface KnownSecrets {
  adminToken: string;
  token: string | null;
  apiKey: string | null;
  storageKey: Buffer;
}

/**
 * The plugins' own output, kept per plugin in a bounded ring (OUTPUT_MAX_LINES lines and OUTPUT_MAX_BYTES), in memory:
 * lines are scrubbed again here of every secret the emulator knows, and linked to delivery attempts when a delivery is read.
 */
export class PluginOutputLog {
  private readonly rings = new Map<string, OutputRing>();
  private readonly fixed: string[];

  constructor(
    private readonly db: Db,
    known: KnownSecrets,
  ) {
    this.fixed = [
      known.adminToken,
      known.token ?? '',
      known.apiKey ?? '',
      known.storageKey.toString('base64'),
      known.storageKey.toString('base64url'),
      known.storageKey.toString('hex'),
    ];
  }

  /** Keeps lines of a plugin (oldest first); returns how many and the cursor one past the newest. */
  append(pluginId: string, lines: OutputLine[]): { accepted: number; next: number } {
    let ring = this.rings.get(pluginId);
    if (!ring) {
      ring = new OutputRing();
      this.rings.set(pluginId, ring);
    }
    const scrubber = this.scrubberFor(pluginId);
    for (const line of lines)
      ring.push({
        at: line.at,
        stream: line.stream,
        text: this.scrub(cleanLine(line.text, scrubber)),
      });
    return { accepted: lines.length, next: ring.next };
  }

  /** The plugin's lines after a cursor, oldest first. */
  read(pluginId: string, after: number, limit = OUTPUT_MAX_BATCH): PluginOutputPage {
    const ring = this.rings.get(pluginId);
    if (!ring) return { lines: [], next: after, hasMore: false, dropped: 0 };
    const page = ring.after(after, limit);
    const last = page.lines.at(-1)?.seq;
    return {
      lines: page.lines,
      next: last ?? Math.max(after, 0),
      hasMore: last !== undefined && last < ring.next - 1,
      dropped: page.dropped,
    };
  }

  /** Every line kept of a plugin, oldest first. */
  lines(pluginId: string): NumberedLine[] {
    return this.rings.get(pluginId)?.all() ?? [];
  }

  /** The delivery with each attempt's linked lines as `pluginOutput` (absent when none are kept). */
  withOutput<
    T extends Pick<DeliveryRecord, 'id' | 'pluginId' | 'eventId' | 'attempts' | 'createdAt'>,
  >(delivery: T): T {
    const lines = this.lines(delivery.pluginId);
    if (lines.length === 0) return delivery;
    const linked = linkOutput(delivery, lines, { namingUntil: this.redeliveredAt(delivery) });
    return {
      ...delivery,
      attempts: delivery.attempts.map((attempt, index) =>
        linked[index].length > 0 ? { ...attempt, pluginOutput: linked[index] } : attempt,
      ),
    };
  }

  /**
   * When the next delivery of the same event to the same plugin (a redelivery, or trigger's resend of an install) was
   * made after `delivery`: the lines naming the event from then on are that delivery's. Undefined when there is none.
   */
  private redeliveredAt(
    delivery: Pick<DeliveryRecord, 'id' | 'pluginId' | 'eventId' | 'createdAt'>,
  ) {
    const made = Date.parse(delivery.createdAt);
    let next: number | undefined;
    for (const other of this.db.deliveries.where('eventId', delivery.eventId)) {
      if (other.id === delivery.id || other.pluginId !== delivery.pluginId) continue;
      const at = Date.parse(other.createdAt);
      // Made after it (a tie goes by id, which grows with time).
      const later = at > made || (at === made && other.id > delivery.id);
      if (later && (next === undefined || at < next)) next = at;
    }
    return next;
  }

  /** Forgets every plugin's output (a store reset or import). */
  clear(): void {
    this.rings.clear();
  }

  /** The exact secrets of one plugin (its webhook secrets) and of the emulator. */
  private scrubberFor(pluginId: string): SecretScrubber {
    const plugin = this.db.plugins.get(pluginId);
    return new SecretScrubber([
      ...this.fixed,
      plugin?.webhookSecret,
      plugin?.previousWebhookSecret ?? undefined,
    ]);
  }

  /** Hides the words whose hash is a token or API key of the store. */
  private scrub(text: string): string {
    return text.replace(CANDIDATE_WORD, (word) => {
      const hash = hashSecret(word);
      const known =
        this.db.tokens.where('hash', hash).length > 0 ||
        this.db.apiKeys.where('hash', hash).length > 0;
      if (!known) return word;
      const prefix = /^[A-Za-z]{1,8}_/.exec(word)?.[0] ?? '';
      return `${prefix}[redacted]`;
    });
  }
}
