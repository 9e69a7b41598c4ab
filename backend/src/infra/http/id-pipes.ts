import { PipeTransform } from '@nestjs/common';
import { BusinessError } from './business-error';
import { ErrorCode } from './error-codes';

/**
 * Path ids of operator routes (docs/api.md, "Codes"): not a number, or past what the column holds,
 * answers 1000; an unknown one the route's own not-found code.
 */
/** An `int` column's id, as a number. */
export const IntIdPipe: PipeTransform<string, number> = {
  transform: (value) => {
    if (!/^\d{1,10}$/.test(value) || Number(value) > 2_147_483_647) throw new BusinessError(ErrorCode.VALIDATION, 'error.validation');
    return Number(value);
  },
};

/**
 * A `bigint` column's id, kept as text in its one spelling ("0123" is "123"): services build
 * command ids and event streams from it, which must be the stored id's (`id::text`).
 */
export const BigIdPipe: PipeTransform<string, string> = {
  transform: (value) => {
    if (!/^\d{1,18}$/.test(value)) throw new BusinessError(ErrorCode.VALIDATION, 'error.validation');
    return BigInt(value).toString();
  },
};
