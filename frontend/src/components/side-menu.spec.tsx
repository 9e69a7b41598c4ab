import { act, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { MemoryRouter } from 'react-router-dom';
import { useToastStore } from '../stores/toast.store';
import { useUiStore } from '../stores/ui.store';
import { SideMenu } from './side-menu';
import { useBackExit } from './use-back-exit';

function Frame() {
  const [open, setOpen] = useState(false);
  return (
    <div>
      <main data-testid="screen">
        <button type="button" onClick={() => setOpen(true)}>
          open menu
        </button>
      </main>
      <SideMenu open={open} onClose={() => setOpen(false)} />
    </div>
  );
}

// Regression: the menu said it was modal, but the screen behind it could be tabbed to, and closing it left focus nowhere.
it('the side menu: the screen behind cannot be focused while it is open; closing it gives focus back to what opened it', async () => {
  render(
    <MemoryRouter>
      <Frame />
    </MemoryRouter>,
  );
  await userEvent.click(screen.getByRole('button', { name: 'open menu' }));
  expect(screen.getByTestId('screen').hasAttribute('inert')).toBe(true);
  expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Close' }));
  await userEvent.click(screen.getByRole('button', { name: 'Close' }));
  expect(screen.getByTestId('screen').hasAttribute('inert')).toBe(false);
  expect(document.activeElement).toBe(screen.getByRole('button', { name: 'open menu' }));
});

function Root() {
  useBackExit(true);
  return null;
}

// Regression: at the root, back with the menu open warned "Press back again to exit" and left the menu open.
it('back at the root with the menu open closes the menu, without the exit warning', () => {
  useToastStore.setState({ toasts: [] });
  render(<Root />);
  act(() => useUiStore.getState().setMenuOpen(true));
  // The guard entry is left by the back press.
  act(() => {
    window.history.replaceState(null, '', window.location.href);
    window.dispatchEvent(new PopStateEvent('popstate'));
  });
  expect(useUiStore.getState().menuOpen).toBe(false);
  expect(useToastStore.getState().toasts).toEqual([]);
});
