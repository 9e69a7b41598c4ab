import 'reflect-metadata';
import { ClassConstructor, plainToInstance } from 'class-transformer';
import { getMetadataStorage, validateSync } from 'class-validator';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { mulberry32 } from '../../modules/simulator/prng';
import { OrderRequestDto } from '../../modules/coin-trade/dto/order-request.dto';
import { PlaceOrderDto } from '../../modules/coin-trade/dto/place-order.dto';
import { compiledValidate, compiles } from './compiled-validation';
import { validateBody } from './validation';

/** Every source file that declares validation rules: all of the app's DTOs. */
function ruleFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return ruleFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.spec.ts') && readFileSync(path, 'utf8').includes("from 'class-validator'") ? [path] : [];
  });
}

for (const file of ruleFiles(join(__dirname, '..', '..'))) require(file);
const storage = getMetadataStorage() as unknown as { validationMetadatas: Map<unknown, Array<{ propertyName: string; constraints?: unknown[] }>> };
const dtos = [...storage.validationMetadatas.keys()].filter((t): t is ClassConstructor<object> => typeof t === 'function');
const OPTIONS = { whitelist: true, forbidNonWhitelisted: true, validationError: { target: false, value: false } };

function slow(dto: ClassConstructor<object>, body: object): { ok: boolean; instance: object } {
  const instance = plainToInstance(dto, body);
  return { ok: validateSync(instance, OPTIONS).length === 0, instance };
}

const BASE_POOL: unknown[] = [
  '', ' ', '0', '1', '-1', '0.5', '65000.5', '1.0000000000000000001', '12345678901234567890', 'abc', 'BTC/USDT', 'USDT', 'buy', 'sell',
  'limit', 'market', 'a@b.co', '13800138000', 'x'.repeat(70), 'Passw0rd!', 'true', 0, 1, -1, 1.5, 1e21, Number.NaN, true, false, null, ['1', '2'], { a: 1 },
];

describe('compiled validation (the success path of class-validator, compiled per DTO)', () => {
  it('finds the app DTOs', () => {
    expect(dtos.length).toBeGreaterThan(20);
    expect(dtos).toContain(PlaceOrderDto);
  });

  it('vouches only for bodies class-validator accepts, with the same instance (random bodies over every DTO)', () => {
    const rnd = mulberry32(20261124);
    const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)];
    let vouched = 0;
    for (const dto of dtos) {
      const metas = storage.validationMetadatas.get(dto) ?? [];
      const names = [...new Set(metas.map((m) => m.propertyName))];
      // The rules' own constants (IsIn lists, lengths) make valid bodies likely enough to matter.
      const pool = [...BASE_POOL, ...metas.flatMap((m) => (m.constraints ?? []).flatMap((c) => (Array.isArray(c) ? c : [c]))).filter((c) => ['string', 'number'].includes(typeof c))];
      for (let i = 0; i < 400; i++) {
        const body: Record<string, unknown> = {};
        for (const name of names) if (rnd() < 0.75) body[name] = pick(pool);
        if (rnd() < 0.05) body.unexpected = '1';
        const fast = compiledValidate(dto, body);
        const reference = slow(dto, body);
        // A class whose rules compile answers every accepted body of plain values itself.
        const plain = Object.values(body).every((v) => ['string', 'number', 'boolean'].includes(typeof v));
        if (compiles(dto) && plain) expect({ dto: dto.name, body, vouched: !!fast }).toEqual({ dto: dto.name, body, vouched: reference.ok });
        if (fast) {
          vouched++;
          expect({ dto: dto.name, body, ok: reference.ok }).toEqual({ dto: dto.name, body, ok: true });
          expect(fast).toBeInstanceOf(dto);
          expect({ ...fast }).toEqual({ ...reference.instance });
        }
      }
    }
    expect(vouched).toBeGreaterThan(1000);
    // Only classes using transforms (query paging, JSON-string fields) or nested rules stay on the full run.
    expect(dtos.filter((d) => compiles(d)).map((d) => d.name)).toEqual(expect.arrayContaining(['PlaceOrderDto', 'CancelOrderDto', 'OrderRequestDto']));
  });

  it('answers every valid order body itself, and leaves a bad one to the full run (same error as before)', () => {
    const good = [
      { symbol: 'BTC/USDT', side: 'buy', type: 'limit', price: '65000.5', quantity: '0.015' },
      { symbol: 'BTC/USDT', side: 'sell', type: 'market', quantity: '1' },
      { symbol: 'BTC/USDT', side: 'buy', type: 'market', amount: '100', client_order_id: 'abc-1' },
    ];
    for (const body of good) {
      expect(compiledValidate(PlaceOrderDto, body)).toEqual(Object.assign(new PlaceOrderDto(), body));
      expect(slow(PlaceOrderDto, body).ok).toBe(true);
    }
    const bad = { symbol: 'BTC/USDT', side: 'buy', type: 'limit', price: '1e5', quantity: '1' };
    expect(compiledValidate(PlaceOrderDto, bad)).toBeUndefined();
    expect(() => validateBody(PlaceOrderDto, bad)).toThrow(expect.objectContaining({ messageKey: 'error.price_invalid' }));
    expect(() => validateBody(PlaceOrderDto, { ...good[0], extra: '1' })).toThrow(expect.objectContaining({ messageKey: 'error.unknown_field' }));
  });

  it("answers the order channel's request with its params object itself; arrays, class instances and objects elsewhere take the full run", () => {
    const request = { id: 7, method: 'place', params: { symbol: 'BTC/USDT', side: 'buy', nested: { a: [1] } } };
    const fast = compiledValidate(OrderRequestDto, request);
    expect(fast).toBeInstanceOf(OrderRequestDto);
    expect({ ...fast }).toEqual({ ...slow(OrderRequestDto, request).instance });
    expect(compiledValidate(OrderRequestDto, { ...request, params: Object.create(null) })).toBeDefined();
    for (const params of [[1], null, 'x']) {
      expect(compiledValidate(OrderRequestDto, { ...request, params })).toBeUndefined();
      expect(slow(OrderRequestDto, { ...request, params }).ok).toBe(false);
    }
    // Not a JSON value: left to class-validator (which takes a Date for an object).
    expect(compiledValidate(OrderRequestDto, { ...request, params: new Date(0) })).toBeUndefined();
    // An object where a string is wanted is not vouched for (class-validator refuses it too).
    expect(compiledValidate(PlaceOrderDto, { symbol: { a: 1 }, side: 'buy', type: 'market', quantity: '1' })).toBeUndefined();
  });
});
