import { orConcurrentRetry } from './sql';

/** A unique violation as pg raises it (23505), and as TypeORM wraps it. */
const unique = Object.assign(new Error('duplicate key value violates unique constraint "uq_x_client"'), { code: '23505' });
const wrapped = Object.assign(new Error('QueryFailedError'), { driverError: { code: '23505' } });

describe('orConcurrentRetry', () => {
  it('answers what the create made when nothing raced it', async () => {
    const prior = jest.fn();
    await expect(orConcurrentRetry(async () => 'first', prior)).resolves.toBe('first');
    expect(prior).not.toHaveBeenCalled();
  });

  it('answers the prior when the unique index refused the create (raw or wrapped)', async () => {
    for (const err of [unique, wrapped])
      await expect(
        orConcurrentRetry(
          () => Promise.reject(err),
          async () => 'the retry’s first',
        ),
      ).resolves.toBe('the retry’s first');
  });

  it('rethrows the refusal when there is no prior, and any other error untouched', async () => {
    await expect(
      orConcurrentRetry(
        () => Promise.reject(unique),
        async () => null,
      ),
    ).rejects.toBe(unique);
    const other = Object.assign(new Error('deadlock detected'), { code: '40P01' });
    const prior = jest.fn(async () => 'never');
    await expect(orConcurrentRetry(() => Promise.reject(other), prior)).rejects.toBe(other);
    expect(prior).not.toHaveBeenCalled();
  });
});
