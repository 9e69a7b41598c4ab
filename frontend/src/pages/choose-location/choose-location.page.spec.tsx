import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes, useNavigate } from 'react-router-dom';
import { LocationProbe } from '../../../test/render';
import { PATHS } from '../../app/paths';
import { ChooseLocationPage } from './choose-location.page';

function Screen({ name }: { name: string }) {
  const navigate = useNavigate();
  return (
    <button type="button" onClick={() => navigate(-1)}>
      back from {name}
    </button>
  );
}

afterEach(() => window.history.replaceState(null, ''));

// Regression: confirming replaced the picker with the form, so the history held the form twice and back from it
// showed an empty copy of it.
it('confirming a location goes back to the form that opened the picker, not forward to a second copy of it', async () => {
  // The app's router keeps its index in the history state; here the picker is the third screen.
  window.history.replaceState({ idx: 2 }, '');
  render(
    <MemoryRouter initialEntries={[PATHS.verification, PATHS.verificationBasic, `${PATHS.chooseLocation}?back=${PATHS.verificationBasic}`]} initialIndex={2}>
      <Routes>
        <Route path={PATHS.chooseLocation} element={<ChooseLocationPage titleKey="titles.chooseLocation" />} />
        <Route path={PATHS.verificationBasic} element={<Screen name="the form" />} />
        <Route path="*" element={<Screen name="elsewhere" />} />
      </Routes>
      <LocationProbe />
    </MemoryRouter>,
  );
  await userEvent.type(screen.getByLabelText('Latitude'), '48.8584');
  await userEvent.type(screen.getByLabelText('Longitude'), '2.2945');
  await userEvent.type(screen.getByLabelText('Address'), 'Champ de Mars 5');
  await userEvent.click(screen.getByTestId('location-confirm'));
  expect(screen.getByTestId('location').textContent).toBe(PATHS.verificationBasic);
  await userEvent.click(screen.getByRole('button', { name: 'back from the form' }));
  expect(screen.getByTestId('location').textContent).toBe(PATHS.verification);
});

it('opened directly (nothing before it), confirming opens the form in its place', async () => {
  render(
    <MemoryRouter initialEntries={[`${PATHS.chooseLocation}?back=${PATHS.verificationBasic}`]}>
      <Routes>
        <Route path={PATHS.chooseLocation} element={<ChooseLocationPage titleKey="titles.chooseLocation" />} />
        <Route path="*" element={<Screen name="the form" />} />
      </Routes>
      <LocationProbe />
    </MemoryRouter>,
  );
  await userEvent.type(screen.getByLabelText('Latitude'), '1');
  await userEvent.type(screen.getByLabelText('Longitude'), '2');
  await userEvent.type(screen.getByLabelText('Address'), 'Somewhere 1');
  await userEvent.click(screen.getByTestId('location-confirm'));
  expect(screen.getByTestId('location').textContent).toBe(PATHS.verificationBasic);
});
