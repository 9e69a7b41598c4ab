import { useToastStore } from '../stores/toast.store';
import { copyText } from './copy';

const lastToast = () => useToastStore.getState().toasts.at(-1)?.text;

it('copies with the clipboard API', async () => {
  const writeText = jest.fn().mockResolvedValue(undefined);
  Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
  await expect(copyText('INV123')).resolves.toBe(true);
  expect(writeText).toHaveBeenCalledWith('INV123');
  expect(lastToast()).toBe('Copied');
});

it('on failure says to copy manually (spec §8)', async () => {
  Object.defineProperty(navigator, 'clipboard', { value: { writeText: jest.fn().mockRejectedValue(new Error('denied')) }, configurable: true });
  document.execCommand = jest.fn().mockReturnValue(false);
  await expect(copyText('INV123')).resolves.toBe(false);
  expect(lastToast()).toBe('Copy failed. Please copy it manually.');
});
