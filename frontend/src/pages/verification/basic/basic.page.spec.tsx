import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes, useNavigate } from 'react-router-dom';
import { PATHS } from '../../../app/paths';
import { useLocationStore } from '../../choose-location/location.store';
import { VerificationFormPage } from './basic.page';

function MapStub() {
  const navigate = useNavigate();
  return (
    <button type="button" onClick={() => navigate(-1)}>
      back from the map
    </button>
  );
}

// Regression: "View on map" left the form without saving it (only the map picker did), so back showed it empty.
it('the fields are as they were after "View on map" and back', async () => {
  useLocationStore.setState({ current: { lat: '48.8584', lng: '2.2945', address: 'Champ de Mars 5' }, draft: null, picked: null });
  render(
    <MemoryRouter initialEntries={[PATHS.verificationBasic]}>
      <Routes>
        <Route path={PATHS.verificationBasic} element={<VerificationFormPage titleKey="titles.verificationBasic" />} />
        <Route path={PATHS.openLocation} element={<MapStub />} />
      </Routes>
    </MemoryRouter>,
  );
  await userEvent.type(screen.getByLabelText('Full name'), 'Mara Lind');
  await userEvent.type(screen.getByLabelText('Contact address'), 'Champ de Mars 5');
  await userEvent.click(screen.getByTestId('address-view-map'));
  await userEvent.click(screen.getByRole('button', { name: 'back from the map' }));
  expect((screen.getByLabelText('Full name') as HTMLInputElement).value).toBe('Mara Lind');
  expect((screen.getByLabelText('Contact address') as HTMLInputElement).value).toBe('Champ de Mars 5');
});
