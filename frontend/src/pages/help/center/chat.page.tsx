import { useCallback, useEffect, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import type { Socket } from 'socket.io-client';
import { fetchImageUrl, uploadImage } from '../../../api/client';
import { helpApi, type ChatMessage, type Conversation } from '../../../api/promotion';
import { getSocket } from '../../../api/socket';
import { LoadFailed, Skeleton } from '../../../components/feedback';
import { useMoneySubmit } from '../../../components/client-id';
import { compressImage } from '../../../components/image';
import { NavBar } from '../../../components/nav-bar';
import { useDocumentTitle } from '../../../components/page';
import { toast } from '../../../stores/toast.store';
import '../help.css';
import { formatTime } from '../../../components/format';

/** How many messages the server sends at most per `chat:join` (and `help/chat`). */
const CHAT_PAGE = 200;

type JoinAck = { ok: boolean; messages?: ChatMessage[] };

const merge = (list: ChatMessage[], more: ChatMessage[]) => {
  const byId = new Map(list.map((m) => [m.id, m]));
  for (const m of more) byId.set(m.id, m);
  return [...byId.values()].sort((a, b) => Number(a.id) - Number(b.id));
};

/**
 * `help/center/chat` (spec: a dark blue navigation bar with white text): the live conversation with
 * customer service. Messages are persisted by the server first, then pushed to the conversation's
 * room over the app's Socket.IO connection; after a reconnect the page re-joins with the last id it
 * has and receives what it missed. Operator messages seen here are marked read; the user's own
 * messages show "Read" once an operator has read them.
 */
export function HelpChatPage({ titleKey }: { titleKey: string }) {
  const { t } = useTranslation();
  useDocumentTitle(t(titleKey));
  const [conv, setConv] = useState<Conversation | null | undefined>(undefined);
  const [messages, setMessages] = useState<ChatMessage[]>([]);
  const [operatorRead, setOperatorRead] = useState('0');
  const [closed, setClosed] = useState(false);
  const [text, setText] = useState('');
  // Each message carries a client id, kept for a retry of the same message after an answer that never came.
  const { busy, run } = useMoneySubmit('help-chat');
  // Bumped by "Try again" after a failed load: the conversation is asked for again.
  const [attempt, setAttempt] = useState(0);
  const lastId = useRef('0');
  const convId = useRef<string | null>(null);
  const bottom = useRef<HTMLDivElement>(null);

  const accept = useCallback((more: ChatMessage[]) => {
    if (!more.length) return;
    // Known at once (not when React runs the update): a join right after asks only for what follows.
    lastId.current = more.reduce((newest, m) => (Number(m.id) > Number(newest) ? m.id : newest), lastId.current);
    setMessages((list) => merge(list, more));
    const lastOperator = [...more].reverse().find((m) => m.sender === 'operator');
    if (lastOperator) void helpApi.read(lastOperator.id).catch(() => undefined);
  }, []);

  const join = useCallback(() => {
    const socket = getSocket() as unknown as Socket;
    const conversation = convId.current;
    if (!conversation) return;
    // The server answers up to CHAT_PAGE messages after `after`, oldest first: a full page means more follow.
    const page = (after: typeof lastId.current) =>
      socket.emit('chat:join', { conversation_id: conversation, after }, (ack: JoinAck) => {
        // An answer for a conversation left meanwhile (another one opened) is not this one's.
        if (!ack?.ok || !ack.messages || convId.current !== conversation) return;
        accept(ack.messages);
        if (ack.messages.length >= CHAT_PAGE) page(ack.messages[ack.messages.length - 1].id);
      });
    page(lastId.current);
  }, [accept]);

  /** Moves to the conversation `id` when it is not the one shown (the last one was closed, a message opened `id`). */
  const follow = useCallback(
    (id: string) => {
      if (!convId.current || id === convId.current) return;
      (getSocket() as unknown as Socket).emit('chat:leave', { conversation_id: convId.current });
      convId.current = id;
      setMessages([]);
      lastId.current = '0';
      setClosed(false);
      setOperatorRead('0');
      join();
    },
    [join],
  );

  useEffect(() => {
    let live = true;
    helpApi.chat().then(
      (c) => {
        if (!live) return;
        setConv(c);
        convId.current = c.conversation_id;
        setOperatorRead(c.operator_read_id);
        setClosed(c.status === 'closed');
        accept(c.messages);
        join();
      },
      () => live && setConv(null),
    );
    const socket = getSocket() as unknown as Socket;
    const onMessage = (m: ChatMessage) => m.conversation_id === convId.current && accept([m]);
    const onRead = (r: { conversation_id: string; side: string; read_id: string }) =>
      r.conversation_id === convId.current && r.side === 'operator' && setOperatorRead(r.read_id);
    const onClosed = (c: { conversation_id: string }) => c.conversation_id === convId.current && setClosed(true);
    // A message from another tab or device opened a new conversation: this one follows it.
    const onOpened = (c: { conversation_id: string }) => follow(c.conversation_id);
    socket.on('chat:message', onMessage);
    socket.on('chat:read', onRead);
    socket.on('chat:closed', onClosed);
    socket.on('chat:opened', onOpened);
    socket.on('connect', join);
    return () => {
      live = false;
      socket.off('chat:message', onMessage);
      socket.off('chat:read', onRead);
      socket.off('chat:closed', onClosed);
      socket.off('chat:opened', onOpened);
      socket.off('connect', join);
      if (convId.current) socket.emit('chat:leave', { conversation_id: convId.current });
    };
  }, [accept, join, follow, attempt]);

  useEffect(() => {
    // Newer browsers return a promise here: never hand it to React as the effect's cleanup.
    void bottom.current?.scrollIntoView?.({ block: 'end' });
  }, [messages.length]);

  /** The delivery on its way: an image picked meanwhile waits for it (regression: it was dropped, its upload spent). */
  const delivering = useRef<Promise<boolean> | undefined>(undefined);
  const deliver = async (body: string, image?: string): Promise<boolean> => {
    while (delivering.current) await delivering.current;
    const sending = send(body, image);
    delivering.current = sending;
    try {
      return await sending;
    } finally {
      if (delivering.current === sending) delivering.current = undefined;
    }
  };
  const send = async (body: string, image?: string) => {
    try {
      const m = await run({ body, image }, (clientId) => helpApi.send(body, image, clientId));
      if (!m) return false;
      follow(m.conversation_id);
      accept([m]);
      return true;
    } catch {
      return false;
    }
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const body = text.trim();
    if (!body) return toast(t('help.messageEmpty'));
    // A second tap while the first is on its way sends nothing more.
    if (delivering.current) return;
    if (await deliver(body)) setText('');
  };

  const sendImage = async (file: File | undefined) => {
    if (!file) return;
    let blob: Blob = file;
    try {
      blob = await compressImage(file);
    } catch {
      // Sent as it is; the server judges it.
    }
    try {
      const { id } = await uploadImage(blob, 'chat.jpg');
      await deliver('', id);
    } catch {
      // The client already told the user.
    }
  };

  return (
    <div className="chat-screen">
      <NavBar title={t(titleKey)} />
      <main id="main" className="page chat">
        {conv === undefined ? (
          <Skeleton rows={4} />
        ) : conv === null ? (
          <LoadFailed
            onRetry={() => {
              setConv(undefined);
              setAttempt((n) => n + 1);
            }}
          />
        ) : (
          <>
            <p className="muted chat__hint">{t('help.chatHint')}</p>
            <ol className="chat__messages" aria-live="polite" data-testid="chat-messages">
              {messages.map((m) => (
                <li key={m.id} className={`chat__message chat__message--${m.sender}`}>
                  <span className="visually-hidden">{m.sender === 'user' ? t('help.you') : t('help.service')}: </span>
                  {m.text && <p>{m.text}</p>}
                  {m.image_url && <ChatImage url={m.image_url} alt={t('help.imageAlt')} />}
                  <span className="chat__meta">
                    {formatTime(m.created_at, 'time')}
                    {m.sender === 'user' && ` · ${Number(m.id) <= Number(operatorRead) ? t('help.read') : t('help.sent')}`}
                  </span>
                </li>
              ))}
            </ol>
            {closed && <p className="muted chat__hint">{t('help.closed')}</p>}
            <div ref={bottom} />
            <form className="chat__composer" onSubmit={submit}>
              <label className="button button--small chat__attach">
                {t('help.image')}
                <input
                  type="file"
                  accept="image/*"
                  className="visually-hidden"
                  onChange={(e) => {
                    void sendImage(e.target.files?.[0]);
                    // Emptied, so that choosing the same file again (e.g. after a failed upload) is a change too.
                    e.target.value = '';
                  }}
                />
              </label>
              <input
                className="field__control chat__input"
                value={text}
                maxLength={1000}
                onChange={(e) => setText(e.target.value)}
                placeholder={t('help.messagePlaceholder')}
                aria-label={t('help.messagePlaceholder')}
              />
              <button type="submit" className="button button--primary button--small" disabled={busy} data-testid="chat-send">
                {t('help.send')}
              </button>
            </form>
          </>
        )}
      </main>
    </div>
  );
}

function ChatImage({ url, alt }: { url: string; alt: string }) {
  const [src, setSrc] = useState<string | null>(null);
  useEffect(() => {
    let made: string | null = null;
    fetchImageUrl(url).then(
      (u) => {
        made = u;
        setSrc(u);
      },
      () => setSrc(null),
    );
    return () => void (made && URL.revokeObjectURL(made));
  }, [url]);
  return src ? <img className="chat__image" src={src} alt={alt} /> : null;
}
