import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';

const uploads: Array<(id: string) => void> = [];
jest.mock('../../../../components/image', () => ({ compressImage: (f: Blob) => Promise.resolve(f) }));
jest.mock('../../../../api/client', () => ({
  ...jest.requireActual('../../../../api/client'),
  uploadImage: () => new Promise((resolve) => uploads.push((id) => resolve({ id }))),
}));

import { renderAt } from '../../../../../test/render';
import { walletApi, type DepositAddress } from '../../../../api/wallet';
import { PATHS } from '../../../../app/paths';
import { useSessionStore, type User } from '../../../../stores/session.store';
import { VerificationFormPage } from '../../../verification/basic/basic.page';
import { ChargePage } from './charge.page';

const address: DepositAddress = { currency_id: 3, symbol: 'USDT', chain: 'TRC20', address: 'TXaddress', min_deposit: '10', decimals: 4, chains: [] };
const png = (name: string) => new File(['x'], name, { type: 'image/png' });

beforeEach(() => {
  useSessionStore.getState().setSession('tok', { id: 1 } as User);
  URL.createObjectURL = jest.fn(() => 'blob:photo');
  URL.revokeObjectURL = jest.fn();
  uploads.length = 0;
});
afterEach(() => jest.restoreAllMocks());

// Regression: a proof picked again (a better screenshot) was still uploading when Submit was tapped, and the report went out with the first one.
it('a deposit report waits for the proof being uploaded: it goes out with the new picture, not the one it replaces', async () => {
  jest.spyOn(walletApi, 'depositAddress').mockResolvedValue(address);
  const deposit = jest.spyOn(walletApi, 'deposit').mockResolvedValue({} as never);
  renderAt(PATHS.depositCharge, `${PATHS.depositCharge}?currency_id=3&chain=TRC20`, <ChargePage titleKey="titles.depositCharge" />);
  await userEvent.type(await screen.findByLabelText('Amount (USDT)'), '100');
  const proof = screen.getByTestId('proof-upload').parentElement!.querySelector('input[type=file]') as HTMLInputElement;
  await userEvent.upload(proof, png('first.png'));
  await waitFor(() => expect(uploads).toHaveLength(1));
  uploads[0]('first');
  await screen.findByText('Uploaded');
  await userEvent.upload(proof, png('better.png'));
  await waitFor(() => expect(uploads).toHaveLength(2));
  const submit = screen.getByTestId('charge-submit');
  expect(submit.hasAttribute('disabled')).toBe(true);
  await userEvent.click(submit);
  expect(deposit).not.toHaveBeenCalled();
  uploads[1]('better');
  await waitFor(() => expect(submit.hasAttribute('disabled')).toBe(false));
  await userEvent.click(submit);
  await waitFor(() => expect(deposit).toHaveBeenCalledTimes(1));
  expect(deposit.mock.calls[0][0]).toMatchObject({ image_id: 'better' });
});

it('the verification form cannot be sent while any of its photos is uploading', async () => {
  renderAt(PATHS.verificationBasic, PATHS.verificationBasic, <VerificationFormPage titleKey="titles.verificationBasic" />);
  const input = (testId: string) => screen.getByTestId(testId).parentElement!.querySelector('input[type=file]') as HTMLInputElement;
  const submit = screen.getByTestId('kyc-submit');
  await userEvent.upload(input('upload-front'), png('front.png'));
  await userEvent.upload(input('upload-back'), png('back.png'));
  await waitFor(() => expect(uploads).toHaveLength(2));
  expect(submit.hasAttribute('disabled')).toBe(true);
  uploads[0]('front');
  await waitFor(() => expect(screen.getAllByText('Uploaded')).toHaveLength(1));
  expect(submit.hasAttribute('disabled')).toBe(true);
  uploads[1]('back');
  await waitFor(() => expect(submit.hasAttribute('disabled')).toBe(false));
});
