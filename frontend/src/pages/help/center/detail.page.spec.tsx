import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderAt } from '../../../../test/render';
import { HelpDetailPage } from './detail.page';

const PATH = '/pages/help/center/detail';
/** Answers `newsArticle/detailed` with each of `answers` in turn: an envelope, or a network failure. */
function answering(answers: Array<object | 'offline'>) {
  global.fetch = jest.fn(async () => {
    const next = answers.shift();
    if (next === 'offline' || !next) throw new TypeError('Failed to fetch');
    return { json: async () => next } as Response;
  }) as unknown as typeof fetch;
}

it('an article that could not be loaded offers a retry (regression: "No questions here yet", nothing to press)', async () => {
  answering(['offline', { type: 'ok', code: 1, message: 'Success', data: { id: '7', title: 'How to deposit', summary: 'Steps', content: '<p>Steps</p>' } }]);
  renderAt(PATH, `${PATH}?id=7`, <HelpDetailPage titleKey="titles.helpDetail" />);
  await screen.findByTestId('load-failed');
  expect(screen.queryByText('No questions here yet')).toBeNull();
  await userEvent.click(screen.getByRole('button', { name: 'Try again' }));
  await screen.findByRole('heading', { name: 'How to deposit' });
});

it('an article that does not exist says so', async () => {
  answering([{ type: 'error', code: 2901, message: 'Article not found', data: null }]);
  renderAt(PATH, `${PATH}?id=404`, <HelpDetailPage titleKey="titles.helpDetail" />);
  await screen.findByText('This article is not available');
  expect(screen.queryByTestId('load-failed')).toBeNull();
});
