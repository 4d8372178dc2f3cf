import { useCallback, useEffect, useRef, useState } from 'react';
import type { Message } from '../../client/index.js';
import type { ChatSession } from './chat-session.js';

/** One finished line of the conversation on screen: a message, or a notice for the person. */
export type ChatEntry =
  | { key: string; kind: 'message'; message: Message }
  | { key: string; kind: 'notice'; level: 'info' | 'warning' | 'error'; text: string };

/** What the screen shows of a chat session, kept in React state. */
export interface ChatView {
  /** Finished messages and notices, in order. */
  entries: ChatEntry[];
  /** Character messages still streaming, as they stand. */
  live: Message[];
  /** True from a send until the reply's first packet (the spinner). */
  awaitingFirstPacket: boolean;
  setAwaitingFirstPacket: (value: boolean) => void;
  addNotice: (level: 'info' | 'warning' | 'error', text: string) => void;
}

/** Follows a session's updates: each packet redraws the reply it belongs to; a final packet files it. */
export function useChatSession(session: ChatSession): ChatView {
  const [entries, setEntries] = useState<ChatEntry[]>([]);
  const [live, setLive] = useState<Message[]>([]);
  const [awaitingFirstPacket, setAwaitingFirstPacket] = useState(false);
  const notices = useRef(0);

  const addNotice = useCallback((level: 'info' | 'warning' | 'error', text: string) => {
    const key = `notice:${notices.current++}`;
    setEntries((all) => [...all, { key, kind: 'notice', level, text }]);
  }, []);

  useEffect(() => {
    const file = (messages: Message[]) =>
      setEntries((all) => [
        ...all,
        ...messages.map(
          (message): ChatEntry => ({ key: `message:${message.id}`, kind: 'message', message }),
        ),
      ]);
    return session.on((update) => {
      switch (update.type) {
        case 'CONVERSATION_STARTED':
          file(update.messages.filter((m) => m.isStreaming !== true));
          setLive(update.messages.filter((m) => m.isStreaming === true));
          break;
        case 'USER_MESSAGE_SENT':
          file([update.message]);
          break;
        case 'CHARACTER_MESSAGE_SENT': {
          const { message } = update;
          setAwaitingFirstPacket(false);
          if (message.isStreaming === false) {
            setLive((all) => all.filter((m) => m.id !== message.id));
            file([message]);
          } else {
            setLive((all) =>
              all.some((m) => m.id === message.id)
                ? all.map((m) => (m.id === message.id ? message : m))
                : [...all, message],
            );
          }
          break;
        }
        case 'NOTICE':
          addNotice(update.level, update.text);
          break;
      }
    });
  }, [session, addNotice]);

  return { entries, live, awaitingFirstPacket, setAwaitingFirstPacket, addNotice };
}
