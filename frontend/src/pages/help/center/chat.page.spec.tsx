import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderAt } from '../../../../test/render';

const fakeSocket = { connected: true, recovered: false, on: () => undefined, off: () => undefined, emit: () => undefined };
jest.mock('../../../api/socket', () => ({ getSocket: () => fakeSocket }));
jest.mock('../../../components/image', () => ({ compressImage: (f: Blob) => Promise.resolve(f) }));
jest.mock('../../../api/client', () => ({ ...jest.requireActual('../../../api/client'), uploadImage: () => Promise.resolve({ id: 'img-1' }) }));

import { helpApi, type ChatMessage, type Conversation } from '../../../api/promotion';
import { HelpChatPage } from './chat.page';

const conversation = { conversation_id: '7', status: 'open', operator_read_id: '0', messages: [] } as unknown as Conversation;
const message = (id: string, text: string, image_url: string | null = null) =>
  ({ id, conversation_id: '7', sender: 'user', text, image_url, created_at: '2026-12-04T08:00:00Z' }) as unknown as ChatMessage;

afterEach(() => jest.restoreAllMocks());

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
