import { act, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderAt } from '../../../../test/render';

jest.mock('../../../api/socket', () => ({ getSocket: () => jest.requireActual('../../../../test/fake-socket').fakeSocket }));
jest.mock('../../../components/image', () => ({ compressImage: (f: Blob) => Promise.resolve(f) }));
jest.mock('../../../api/client', () => ({ ...jest.requireActual('../../../api/client'), uploadImage: () => Promise.resolve({ id: 'img-1' }) }));

import { helpApi, type ChatMessage, type Conversation } from '../../../api/promotion';
import { emitted, fire, resetFakeSocket } from '../../../../test/fake-socket';
import { HelpChatPage } from './chat.page';

const conversation = { conversation_id: '7', status: 'open', operator_read_id: '0', messages: [] } as unknown as Conversation;
const message = (id: string, text: string, image_url: string | null = null, conversation_id = '7') =>
  ({ id, conversation_id, sender: 'user', text, image_url, created_at: '2026-12-04T08:00:00Z' }) as unknown as ChatMessage;

afterEach(() => {
  jest.restoreAllMocks();
  resetFakeSocket();
});

// Regression: an image picked while a text message was on its way was dropped (its upload spent, no message, no word).
it('an image picked while a message is on its way is sent after it, not dropped', async () => {
  jest.spyOn(helpApi, 'chat').mockResolvedValue(conversation);
  let answerText!: (m: ChatMessage) => void;
  const send = jest
    .spyOn(helpApi, 'send')
    .mockImplementationOnce(() => new Promise((r) => (answerText = r)))
    .mockImplementationOnce(async () => message('2', '', '/api/upload/img-1'));
  renderAt('/pages/help/center/chat', '/pages/help/center/chat', <HelpChatPage titleKey="titles.chat" />);
  await userEvent.type(await screen.findByLabelText('Type a message'), 'hello');
  await userEvent.click(screen.getByTestId('chat-send'));
  await userEvent.upload(document.querySelector('input[type=file]') as HTMLInputElement, new File(['x'], 'a.png', { type: 'image/png' }));
  await new Promise((r) => setTimeout(r, 50));
  expect(send).toHaveBeenCalledTimes(1);
  answerText(message('1', 'hello'));
  await waitFor(() => expect(send).toHaveBeenCalledTimes(2));
  expect(send.mock.calls[1].slice(0, 2)).toEqual(['', 'img-1']);
});

// Regression: after a closed conversation, a message from another tab opened a new one that this tab did not follow until reload.
it('follows a conversation opened from another tab or device (chat:opened): leaves the closed one, joins the new one', async () => {
  jest.spyOn(helpApi, 'chat').mockResolvedValue({ ...conversation, status: 'closed', messages: [message('1', 'old question')] });
  renderAt('/pages/help/center/chat', '/pages/help/center/chat', <HelpChatPage titleKey="titles.chat" />);
  expect(await screen.findByText('old question')).toBeTruthy();
  expect(screen.getByText('This conversation has ended. Send a message to start a new one.')).toBeTruthy();
  act(() => fire('chat:opened', { conversation_id: '7' }));
  expect(emitted.filter((e) => e.event === 'chat:join')).toHaveLength(1);
  act(() => fire('chat:opened', { conversation_id: '9' }));
  expect(emitted.map((e) => [e.event, e.body])).toEqual([
    ['chat:join', { conversation_id: '7', after: '1' }],
    ['chat:leave', { conversation_id: '7' }],
    ['chat:join', { conversation_id: '9', after: '0' }],
  ]);
  // The closed conversation's join, answered late, adds nothing to the new one.
  act(() => emitted[0].ack!({ ok: true, messages: [message('1', 'old question'), message('2', 'old answer')] }));
  act(() => emitted[2].ack!({ ok: true, messages: [message('5', 'new question', null, '9')] }));
  expect(await screen.findByText('new question')).toBeTruthy();
  expect(screen.queryByText('old question')).toBeNull();
  expect(screen.queryByText('old answer')).toBeNull();
  expect(screen.queryByText('This conversation has ended. Send a message to start a new one.')).toBeNull();
  act(() => fire('chat:message', message('6', 'from the operator', null, '9')));
  expect(await screen.findByText('from the operator')).toBeTruthy();
});
