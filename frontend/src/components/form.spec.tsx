import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { FilterTabs } from './form';

function Tabs({ onChange }: { onChange: (v: 'open' | 'done') => void }) {
  const [value, setValue] = useState<'open' | 'done'>('open');
  return (
    <FilterTabs
      label="Orders"
      value={value}
      options={[
        { value: 'open', label: 'Open' },
        { value: 'done', label: <b>Done</b> },
      ]}
      onChange={(v) => (setValue(v), onChange(v))}
      testId={(v) => `tab-${v}`}
    />
  );
}

it('shows one pressed tab and moves it where the user taps', async () => {
  const changed = jest.fn();
  render(<Tabs onChange={changed} />);
  const nav = screen.getByRole('navigation', { name: 'Orders' });
  expect(nav.className).toBe('segmented');
  expect(screen.getByRole('button', { name: 'Open', pressed: true })).toBeTruthy();
  expect(screen.getByRole('button', { name: 'Done', pressed: false }).getAttribute('data-testid')).toBe('tab-done');

  await userEvent.click(screen.getByRole('button', { name: 'Done' }));
  expect(changed).toHaveBeenCalledWith('done');
  expect(screen.getByRole('button', { name: 'Done', pressed: true }).className).toBe('is-active');
  expect(screen.getByRole('button', { name: 'Open', pressed: false }).className).toBe('');
});
