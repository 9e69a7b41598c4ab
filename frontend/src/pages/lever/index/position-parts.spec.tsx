import { render, screen } from '@testing-library/react';
import { Which } from './position-parts';

it('a position’s buttons say which position they act on, to a screen reader (regression: "Close position" once for each)', () => {
  render(
    <>
      <button type="button">
        Close position
        <Which side="long" lots={2} multiple={10} />
      </button>
      <button type="button">
        Close position
        <Which side="short" lots={1} multiple={5} />
      </button>
    </>,
  );
  expect(screen.getAllByRole('button').map((b) => b.textContent)).toEqual(['Close position (Long · 2 lots · 10×)', 'Close position (Short · 1 lot · 5×)']);
  expect(screen.getByRole('button', { name: 'Close position (Long · 2 lots · 10×)' })).toBeTruthy();
});
