import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderAt } from '../../../../../test/render';
import { ApiError } from '../../../../api/client';
import { newcoinApi, type IeoProject, type IeoSubscription } from '../../../../api/newcoin';
import { PATHS } from '../../../../app/paths';
import { IeoDetailsPage } from '../ieoDetails/ieoDetails/ieo-details.page';
import { IeoBuyPage } from './ieo-buy.page';

afterEach(() => jest.restoreAllMocks());

const project: IeoProject = {
  id: 5,
  symbol: 'KST',
  name: 'Kestrel token',
  coin_id: 9,
  decimals: 1,
  currency_id: 3,
  currency: 'USDT',
  price: '0.5',
  supply: '1000000',
  start_at: '2026-12-01T00:00:00Z',
  end_at: '2026-12-31T00:00:00Z',
  min_qty: '1',
  max_qty: '1000',
  website: '',
  white_paper: '',
  intro: '',
  state: 'active',
  seconds_to_start: 0,
  seconds_to_end: 86_400,
  result: null,
  market_id: null,
  market: null,
};
const offline = () => new ApiError('Network error', 0);

// Regression: "1.50" on a coin of 1 decimal was refused as 2 decimal places (the server, counting the value's, takes it).
it('a quantity typed with trailing zeros is not refused for its decimals', async () => {
  jest.spyOn(newcoinApi, 'project').mockResolvedValue(project);
  const submit = jest.spyOn(newcoinApi, 'submit').mockResolvedValue({ id: '1' } as IeoSubscription);
  renderAt(PATHS.ieoBuy, `${PATHS.ieoBuy}?id=5`, <IeoBuyPage titleKey="titles.ieoBuy" />);
  await userEvent.type(await screen.findByRole('textbox'), '1.50');
  await userEvent.click(screen.getByTestId('ieo-submit'));
  expect(screen.queryByText('Quantity can have at most 1 decimal places')).toBeNull();
  expect(submit).toHaveBeenCalledWith(expect.objectContaining({ project_id: 5, quantity: '1.50' }));
});

it('a quantity with more decimals than the coin has is still refused on the form', async () => {
  jest.spyOn(newcoinApi, 'project').mockResolvedValue(project);
  const submit = jest.spyOn(newcoinApi, 'submit');
  renderAt(PATHS.ieoBuy, `${PATHS.ieoBuy}?id=5`, <IeoBuyPage titleKey="titles.ieoBuy" />);
  await userEvent.type(await screen.findByRole('textbox'), '1.55');
  await userEvent.click(screen.getByTestId('ieo-submit'));
  await screen.findByText('Quantity can have at most 1 decimal places');
  expect(submit).not.toHaveBeenCalled();
});

// Regression: a project that did not load (no answer) said it does not exist, with nothing to press.
it.each([
  ['subscription', PATHS.ieoBuy, <IeoBuyPage key="b" titleKey="titles.ieoBuy" />],
  ['details', PATHS.ieoDetails, <IeoDetailsPage key="d" titleKey="titles.ieoDetails" />],
])('the %s screen: a project that did not load offers a retry; one that does not exist says so', async (_name, path, element) => {
  const read = jest
    .spyOn(newcoinApi, 'project')
    .mockRejectedValueOnce(offline())
    .mockResolvedValueOnce({ ...project, state: 'upcoming', seconds_to_start: 3600 });
  const view = renderAt(path, `${path}?id=5`, element);
  await screen.findByTestId('load-failed');
  expect(screen.queryByText('This project could not be found.')).toBeNull();
  await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
  await screen.findByText('Kestrel token');
  expect(screen.queryByTestId('load-failed')).toBeNull();
  view.unmount();
  read.mockRejectedValueOnce(new ApiError('Project not found', 2600));
  renderAt(path, `${path}?id=6`, element);
  await screen.findByText('This project could not be found.');
  expect(screen.queryByTestId('load-failed')).toBeNull();
});
