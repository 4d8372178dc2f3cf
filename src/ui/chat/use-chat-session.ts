import { useCallback, useEffect, useRef, useState } from 'react';
import type { Message } from '../../client/index.js';
import type { ChatEntry } from './chat-entry.js';
import type { ChatSession } from './chat-session.js';

/** What the screen shows of a chat session, kept in React state. */
export interface ChatView {
  /** Finished messages and notices, in order. */
  entries: ChatEntry[];
  /** Character messages still streaming, as they stand. */
  live: Message[];
  /** True from a send until the reply's first packet (the spinner). */
  awaitingFirstPacket: boolean;
  /** Sets or clears `awaitingFirstPacket`. */
  setAwaitingFirstPacket: (value: boolean) => void;
  /** Adds a notice to the conversation. */
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

  useEffect(
    () =>
      session.on((update) => {
        switch (update.type) {
          case 'CONVERSATION_STARTED': {
            const finished = update.messages.filter((m) => m.isStreaming !== true);
            setEntries((all) => [...all, ...finished.map((message): ChatEntry => ({ key: `message:${message.id}`, kind: 'message', message }))]);
            setLive(update.messages.filter((m) => m.isStreaming === true));
            break;
          }
          case 'USER_MESSAGE_SENT':
            setEntries((all) => [...all, { key: `message:${update.message.id}`, kind: 'message', message: update.message }]);
            break;
          case 'CHARACTER_MESSAGE_SENT': {
            const { message } = update;
            setAwaitingFirstPacket(false);
            if (message.isStreaming === false) {
              setLive((all) => all.filter((m) => m.id !== message.id));
              setEntries((all) => [...all, { key: `message:${message.id}`, kind: 'message', message }]);
            } else {
              setLive((all) => (all.some((m) => m.id === message.id) ? all.map((m) => (m.id === message.id ? message : m)) : [...all, message]));
            }
            break;
          }
          case 'NOTICE':
            addNotice(update.level, update.text);
            break;
        }
      }),
    [session, addNotice],
  );

  return { entries, live, awaitingFirstPacket, setAwaitingFirstPacket, addNotice };
}
