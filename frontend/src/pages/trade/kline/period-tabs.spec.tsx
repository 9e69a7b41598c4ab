import { fireEvent, render, screen } from '@testing-library/react';
import { PeriodTabs } from './period-tabs';

/** jsdom lays nothing out: the row's widths as a phone would measure them. */
function sized(scrollWidth: number, clientWidth: number) {
  jest.spyOn(HTMLElement.prototype, 'scrollWidth', 'get').mockReturnValue(scrollWidth);
  jest.spyOn(HTMLElement.prototype, 'clientWidth', 'get').mockReturnValue(clientWidth);
}

afterEach(() => jest.restoreAllMocks());

describe('K-line periods', () => {
  it('fade at the right edge while periods lie beyond it, and stop once scrolled to the end', () => {
    sized(460, 366);
    render(<PeriodTabs value="1min" onChange={() => undefined} />);
    const row = screen.getByRole('radiogroup');
    expect(row.className).toBe('periods periods--more');
    row.scrollLeft = 94;
    fireEvent.scroll(row);
    expect(row.className).toBe('periods');
  });

  it('do not fade when every period fits', () => {
    sized(366, 366);
    render(<PeriodTabs value="1min" onChange={() => undefined} />);
    expect(screen.getByRole('radiogroup').className).toBe('periods');
  });
});
