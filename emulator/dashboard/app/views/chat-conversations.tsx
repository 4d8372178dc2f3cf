import { useEffect, useState } from 'react';
import { call } from '../api.js';
import type { AdminConversation } from '#contract';
import type { Character, Message } from '#contract/resources';
import { absoluteTime, relativeTime } from '../format.js';
import { previewText } from './chat-messages.js';

/** How many conversations the list shows, newest activity first. */
const LISTED = 50;

/**
 * The workspace's conversations, newest activity first, each with its character, the last message
 * (who wrote it and how it begins) and when: pick one up again instead of starting anew. The list
 * scrolls in its own box, so however many there are, the open conversation's input stays in view.
 * The open conversation's entry follows its messages as they come.
 */
export function ConversationList({
  orgId,
  openId,
  openMessages,
  characters,
  onError,
}: {
  orgId: string;
  openId: string | null;
  /** The open conversation's messages, oldest first, as the page holds them (live). */
  openMessages: Message[];
  characters: Character[];
  onError: (failure: unknown) => void;
}) {
  const [conversations, setConversations] = useState<AdminConversation[] | null>(null);
  const [lastMessages, setLastMessages] = useState<Record<string, Message | null>>({});

  // biome-ignore lint/correctness/useExhaustiveDependencies: opening another conversation (a new one among them) reads the list again
  useEffect(() => {
    const controller = new AbortController();
    const { signal } = controller;
    (async () => {
      const answer = await call<AdminConversation[]>(
        'admin',
        'GET',
        `/conversations?orgId=${encodeURIComponent(orgId)}&@sortBy=updatedAt&@sortOrder=desc&@limit=${LISTED}`,
        undefined,
        signal,
      );
      setConversations(answer.data);
      // Each one's newest message; one that cannot be read leaves its entry without a preview.
      const found: Record<string, Message | null> = {};
      await Promise.all(
        answer.data.map(async (c) => {
          try {
            const last = await call<Message[]>(
              'admin',
              'GET',
              `/conversations/${encodeURIComponent(c.id)}/messages?@sortBy=createdAt&@sortOrder=desc&@limit=1`,
              undefined,
              signal,
            );
            found[c.id] = last.data[0] ?? null;
          } catch {
            // No preview for this one.
          }
        }),
      );
      if (!signal.aborted) setLastMessages(found);
    })().catch((failure) => {
      if (!signal.aborted) onError(failure);
    });
    return () => controller.abort();
  }, [orgId, openId]);

  const lastOf = (c: AdminConversation): Message | null | undefined =>
    c.id === openId && openMessages.length > 0 ? openMessages.at(-1) : lastMessages[c.id];

  return (
    <nav aria-label="Conversations" className="conversations">
      <h2>Conversations</h2>
      {conversations === null ? (
        <p className="muted">Loading…</p>
      ) : conversations.length === 0 ? (
        <p className="muted">
          No conversations yet: pick a character and start one here, or run{' '}
          <code>plugsmith chat</code>.
        </p>
      ) : (
        <ul className="conversation-list">
          {conversations.map((c) => {
            const name = characters.find((ch) => ch.id === c.characterId)?.name ?? c.characterId;
            const last = lastOf(c);
            const at = last?.createdAt ?? c.updatedAt;
            return (
              <li key={c.id}>
                <a
                  href={`#/chat/${encodeURIComponent(c.id)}`}
                  aria-current={c.id === openId ? 'page' : undefined}
                  title={c.id}
                >
                  <span className="conversation-head">
                    <bdi className="conversation-name">{name}</bdi>
                    <time className="muted" dateTime={at} title={absoluteTime(at)}>
                      {relativeTime(at)}
                    </time>
                  </span>
                  <span className="conversation-preview muted">
                    {last === undefined ? (
                      '…'
                    ) : last === null ? (
                      'No messages yet'
                    ) : (
                      <bdi>{previewText(last, name)}</bdi>
                    )}
                  </span>
                </a>
              </li>
            );
          })}
        </ul>
      )}
    </nav>
  );
}
