import { DataSource } from 'typeorm';
import { BusinessError } from '../../infra/http/business-error';
import { ErrorCode } from '../../infra/http/error-codes';
import { Coin } from './coin.entity';

/** A currency by id; an unknown one is the client's error (1000 "currency_invalid"). */
export async function coinOf(ds: DataSource, currencyId: number): Promise<Coin> {
  const c = await ds.getRepository(Coin).findOne({ where: { id: currencyId } });
  if (!c) throw new BusinessError(ErrorCode.VALIDATION, 'error.currency_invalid');
  return c;
}
