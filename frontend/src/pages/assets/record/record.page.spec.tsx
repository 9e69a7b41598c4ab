import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderAt } from '../../../../test/render';
import { walletApi } from '../../../api/wallet';
import { RecordPage } from './record.page';

afterEach(() => jest.restoreAllMocks());

describe('records: the ledger type filter', () => {
  it('names every code a user account meets, contracts and funding included, and asks for the one chosen', async () => {
    const log = jest.spyOn(walletApi, 'log').mockResolvedValue({ items: [], total: 0, page: 1, limit: 50 });
    renderAt('/records', '/records?tab=ledger', <RecordPage titleKey="menu.records" />);
    const select = (await screen.findByLabelText('Entry type')) as HTMLSelectElement;
    const labels = [...select.options].map((o) => o.textContent);
    expect(labels).toEqual(
      expect.arrayContaining([
        'Contract margin (20)',
        'Contract fee (21)',
        'Contract margin returned (22)',
        'Contract profit or loss (30)',
        'System funding (900)',
        'Spot trade fee (601)',
      ]),
    );
    // A code without a name would show its catalogue key.
    expect(labels.filter((l) => l?.includes('ledgerCodes'))).toEqual([]);
    await userEvent.selectOptions(select, '30');
    await waitFor(() => expect(log).toHaveBeenLastCalledWith({ code: 30, limit: 50 }));
  });
});
