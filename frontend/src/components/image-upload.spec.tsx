import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { ImageUpload } from './image-upload';

/** A form holding the upload id, with a button that clears it as a form does once sent. */
function Form() {
  const [id, setId] = useState('');
  const [uploading, setUploading] = useState(false);
  return (
    <>
      <ImageUpload label="Photo" value={id} onChange={setId} onUploading={setUploading} />
      <button type="submit" disabled={uploading}>
        Send
      </button>
      <button type="button" onClick={() => setId('')}>
        Sent
      </button>
    </>
  );
}

const realFetch = global.fetch;
afterEach(() => {
  global.fetch = realFetch;
});

it('tells the form while it uploads, and drops the photo when the form clears the field', async () => {
  URL.createObjectURL = jest.fn(() => 'blob:photo');
  URL.revokeObjectURL = jest.fn();
  let answer!: (body: unknown) => void;
  global.fetch = jest.fn(() => new Promise((resolve) => (answer = (body) => resolve({ json: async () => body } as Response)))) as unknown as typeof fetch;
  render(<Form />);
  await userEvent.upload(screen.getByLabelText('Photo'), new File(['x'], 'id.png', { type: 'image/png' }));
  await waitFor(() => expect(screen.getByRole('button', { name: 'Send' }).hasAttribute('disabled')).toBe(true));
  answer({ type: 'ok', code: 1, message: '', data: { id: 'up-1', url: '/api/upload/up-1' } });
  await screen.findByAltText('Preview of Photo');
  expect(screen.getByRole('button', { name: 'Send' }).hasAttribute('disabled')).toBe(false);

  await userEvent.click(screen.getByRole('button', { name: 'Sent' }));
  expect(screen.queryByAltText('Preview of Photo')).toBeNull();
  expect(screen.getByText('Tap to choose or take a photo')).toBeTruthy();
});
