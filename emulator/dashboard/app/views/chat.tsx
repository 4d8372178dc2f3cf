import { useEffect, useRef, useState } from 'react';
import { call, currentWorkspace, stream } from '../api.js';
import { ErrorBox } from '../components/error-box.js';
import { navigate } from '../use-hash-route.js';
import type { ViewProps } from '../view-props.js';
import type { Character, CharacterMessageSent, Conversation, Message } from '#contract/resources';
import { upsert } from './chat-messages.js';
import { ConversationList } from './chat-conversations.js';
import { isolated, plural } from '../format.js';
import './data-views.css';
import './chat.css';

/**
 * The Chat page (`#/chat/<conversationId>`): pick a character of the workspace's org, start a
 * conversation through the messaging API with the workspace's API key, send messages (with an image
 * URL attached), and watch each reply stream in packet by packet from the conversation stream, as
 * a messaging client would.
 */
export function ChatView({ params }: ViewProps) {
  const workspace = currentWorkspace();
  const conversationId = params[0] ?? null;
  const [characters, setCharacters] = useState<Character[]>([]);
  const [charactersLoaded, setCharactersLoaded] = useState(false);
  const [characterId, setCharacterId] = useState<string>(workspace.characterId ?? '');
  const [conversation, setConversation] = useState<Conversation | null>(null);
  const [messages, setMessages] = useState<Message[]>([]);
  const [packets, setPackets] = useState<Record<string, number>>({});
  const [text, setText] = useState('');
  const [imageUrl, setImageUrl] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [streamState, setStreamState] = useState<'closed' | 'open' | 'failed'>('closed');
  const list = useRef<HTMLOListElement>(null);

  useEffect(() => {
    if (!workspace.orgId) return;
    call<Character[]>(
      'admin',
      'GET',
      `/characters?orgId=${encodeURIComponent(workspace.orgId)}&@sortBy=name&@sortOrder=asc&@limit=100`,
    ).then((answer) => {
      setCharacters(answer.data);
      setCharactersLoaded(true);
      setCharacterId((current) => (current !== '' ? current : (answer.data[0]?.id ?? '')));
    }, setError);
  }, [workspace.orgId]);

  // The open conversation: its history first, then its conversation stream until the page changes.
  useEffect(() => {
    setConversation(null);
    setMessages([]);
    setPackets({});
    // The last conversation's stream is closed: "open" is told again once this one's is.
    setStreamState('closed');
    if (!conversationId) return;
    const controller = new AbortController();
    (async () => {
      const path = `/conversations/${encodeURIComponent(conversationId)}`;
      const found = await call<Conversation>(
        'messaging',
        'GET',
        path,
        undefined,
        controller.signal,
      );
      setConversation(found.data);
      setCharacterId(found.data.characterId);
      const history = await call<Message[]>(
        'messaging',
        'GET',
        `${path}/messages?limit=100`,
        undefined,
        controller.signal,
      );
      setMessages((current) => history.data.reduce(upsert, current));
      setStreamState('open');
      await stream(
        'messaging',
        `${path}/events`,
        (event) => {
          if (event.event !== 'CHARACTER_MESSAGE_SENT') return;
          const { message } = event.data as CharacterMessageSent;
          setMessages((current) => upsert(current, message));
          setPackets((current) => ({ ...current, [message.id]: (current[message.id] ?? 0) + 1 }));
        },
        controller.signal,
      );
      if (!controller.signal.aborted) setStreamState('closed');
    })().catch((failure) => {
      if (controller.signal.aborted) return;
      setStreamState('failed');
      setError(failure);
    });
    return () => controller.abort();
  }, [conversationId]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: every change of the messages scrolls to the newest
  useEffect(() => {
    list.current?.lastElementChild?.scrollIntoView({ block: 'nearest' });
  }, [messages]);

  const start = async () => {
    try {
      const created = await call<Conversation>('messaging', 'POST', '/conversations', {
        characterId,
      });
      setError(null);
      navigate('chat', created.data.id);
    } catch (failure) {
      setError(failure);
    }
  };

  const send = async () => {
    if (!conversation) return;
    const attachments =
      imageUrl.trim() === '' ? [] : [{ type: 'IMAGE_URL' as const, content: imageUrl.trim() }];
    try {
      const sent = await call<Message>(
        'messaging',
        'POST',
        `/conversations/${encodeURIComponent(conversation.id)}/messages`,
        { content: text, attachments },
      );
      setMessages((current) => upsert(current, sent.data));
      setText('');
      setImageUrl('');
      setError(null);
    } catch (failure) {
      setError(failure);
    }
  };

  if (!workspace.apiKey) {
    return (
      <p className="muted">
        The workspace has no API key known in clear, so the dashboard cannot use the messaging API.
        Start the emulator with a seed that has one.
      </p>
    );
  }
  const character = characters.find((c) => c.id === characterId);
  return (
    <div className="chat">
      <h1 className="visually-hidden">Chat</h1>
      <div className="toolbar">
        <label>
          Character
          <select
            value={characterId}
            onChange={(e) => setCharacterId(e.target.value)}
            disabled={conversation !== null}
          >
            {characters.map((c) => (
              <option key={c.id} value={c.id}>
                {isolated(c.name)} ({c.id})
              </option>
            ))}
          </select>
        </label>
        <button type="button" className="primary" onClick={start} disabled={characterId === ''}>
          Start a conversation
        </button>
        {conversation && (
          <span className="muted">
            Conversation <code>{conversation.id}</code> · conversation stream{' '}
            <span role="status" aria-label="Conversation stream state">
              {streamState}
            </span>
          </span>
        )}
      </div>
      {charactersLoaded && characters.length === 0 && (
        <p className="muted">
          No characters in the org yet: create one in{' '}
          <a href="#/data/characters">Data → Characters</a> (a character belongs to an agent), then
          talk to it here.
        </p>
      )}
      <ErrorBox error={error} />
      <div className="chat-body">
        {workspace.orgId && (
          <ConversationList
            orgId={workspace.orgId}
            openId={conversationId}
            openMessages={messages}
            characters={characters}
            onError={setError}
          />
        )}
        {conversation ? (
          <section className="chat-thread" aria-label={`Conversation ${conversation.id}`}>
            <ol
              className="messages"
              ref={list}
              aria-label="Messages"
              aria-live="polite"
              // biome-ignore lint/a11y/noNoninteractiveTabindex: the messages scroll in their own box, which the keyboard must be able to scroll (axe: scrollable-region-focusable)
              tabIndex={0}
            >
              {messages.map((m) => (
                <li
                  key={m.id}
                  className={m.sender === 'USER' ? 'user' : 'character'}
                  aria-label={`${m.sender === 'USER' ? 'You' : (character?.name ?? 'Character')}${m.isStreaming ? ' (streaming)' : ''}`}
                  data-streaming={m.isStreaming}
                >
                  <bdi className="content">{m.content}</bdi>
                  {m.attachments.map((a) => (
                    <span key={a.content} className="meta">
                      {a.type}:{' '}
                      <a href={a.content} rel="noreferrer noopener" target="_blank">
                        {a.content}
                      </a>
                    </span>
                  ))}
                  {m.error && (
                    <span className="meta status-bad">
                      {m.error.code}: {m.error.message}
                    </span>
                  )}
                  <span className="meta">
                    {m.sender} · {m.type}
                    {m.sender === 'CHARACTER' && ` · ${plural(packets[m.id] ?? 0, 'packet')}`}
                    {m.isStreaming ? ' · streaming…' : ''}
                  </span>
                </li>
              ))}
            </ol>
            <form
              className="toolbar"
              onSubmit={(e) => {
                e.preventDefault();
                void send();
              }}
            >
              <label style={{ flex: 1 }}>
                Your message
                <input
                  value={text}
                  onChange={(e) => setText(e.target.value)}
                  placeholder="Say hello"
                />
              </label>
              <label>
                Image URL (attachment)
                <input
                  type="url"
                  value={imageUrl}
                  onChange={(e) => setImageUrl(e.target.value)}
                  placeholder="https://…/picture.png"
                />
              </label>
              <button type="submit" className="primary" disabled={text.trim() === ''}>
                Send
              </button>
            </form>
          </section>
        ) : (
          <p className="muted chat-thread">
            Pick a conversation to pick it up again, or start a new one with the character above.
          </p>
        )}
      </div>
    </div>
  );
}
