import { applyDecorators, ArgumentMetadata, ValidationError, ValidationPipe } from '@nestjs/common';
import { ClassConstructor, plainToInstance, Transform } from 'class-transformer';
import { IsNotEmpty, IsString, MaxLength, ValidateIf, validateSync } from 'class-validator';
import { en } from '../i18n/locales/en';
import type { MessageKey } from '../i18n/catalogue';
import { BusinessError } from './business-error';
import { compiledValidate } from './compiled-validation';
import { ErrorCode } from './error-codes';

/** The first failing rule, depth first, in declaration order. */
function firstError(errors: ValidationError[], prefix = ''): { field: string; constraints: Record<string, string> } | undefined {
  for (const e of errors) {
    const field = prefix ? `${prefix}.${e.property}` : e.property;
    if (e.constraints && Object.keys(e.constraints).length) return { field, constraints: e.constraints };
    const nested = e.children?.length ? firstError(e.children, field) : undefined;
    if (nested) return nested;
  }
  return undefined;
}

/**
 * A string field trimmed before its rules run, so a required text of spaces is missing; `collapse`
 * also folds inner runs of whitespace into one space. Other types pass through and fail their rules.
 */
export const Trim = (collapse = false) =>
  Transform(({ value }) => (typeof value !== 'string' ? value : collapse ? value.trim().replace(/\s+/g, ' ') : value.trim()));

/**
 * A date and time with its zone (`Z` or `±hh:mm`), as operators' schedules are sent: a time without
 * one would be read in the server's own zone (hours off), and ISO week or ordinal dates, which the
 * ISO 8601 rule accepts, are no time `new Date` can read. Used with `IsISO8601({ strict: true })`
 * (a real date).
 */
export const ZONED_TIME_RE = /^\d{4}-\d\d-\d\dT[\d:.]+(Z|[+-]\d\d:\d\d)$/;

/** An id whose letter case means nothing (an upload's uuid): kept lower-cased, so one id is one string. */
export const LowerCase = () => Transform(({ value }) => (typeof value === 'string' ? value.toLowerCase() : value));

/**
 * An optional field: absent (undefined), its rules are skipped; sent, also as a JSON `null`, they
 * apply and refuse it with the field's own message. class-validator's IsOptional skips them for a
 * null too, which then reached the services as a value: a `limit` of null became `LIMIT NULL`
 * (every row), a `preview` of null redeemed for real, a USD rate's `enabled` of null saved it
 * disabled, a `price` of null answered 9000. Used instead of IsOptional everywhere (a test keeps it so).
 */
export const Optional = () => ValidateIf((_o: object, v: unknown) => v !== undefined);

/**
 * An operator's required `reason`: trimmed first, so one of only spaces is missing ("A reason is
 * required"); at most `max` characters (`tooLong`: that refusal's message, else the generic one).
 */
export const RequiredReason = (max = 500, tooLong?: MessageKey) =>
  applyDecorators(
    Trim(),
    IsNotEmpty({ message: 'error.reason_required' }),
    IsString({ message: 'error.reason_required' }),
    MaxLength(max, tooLong ? { message: tooLong } : undefined),
  );

const PRIORITY = ['whitelistValidation', 'isDefined', 'isNotEmpty', 'isString', 'isIn'];

/** The answer to a body that breaks a DTO's rules (shared by the pipe and the order lane). */
export function validationFailure(errors: ValidationError[]): BusinessError {
  const first = firstError(errors);
  if (!first) return new BusinessError(ErrorCode.VALIDATION);
  // Report the most basic failure first: missing, then wrong type, then the finer rules.
  const entries = Object.entries(first.constraints);
  const rank = (rule: string) => (PRIORITY.includes(rule) ? PRIORITY.indexOf(rule) : PRIORITY.length);
  const [rule, message] = entries.sort((a, b) => rank(a[0]) - rank(b[0]))[0];
  if (rule === 'whitelistValidation') return new BusinessError(ErrorCode.UNKNOWN_FIELD, 'error.unknown_field', { field: first.field });
  if (message in en) return new BusinessError(ErrorCode.VALIDATION, message as MessageKey, { field: first.field });
  const key: MessageKey = rule === 'isNotEmpty' || rule === 'isDefined' ? 'error.field_required' : 'error.field_invalid';
  return new BusinessError(ErrorCode.VALIDATION, key, { field: first.field });
}

const OPTIONS = { whitelist: true, forbidNonWhitelisted: true, validationError: { target: false, value: false } } as const;

/**
 * Whitelist + forbid unknown fields (DESIGN §5). A rule's message is a catalogue key
 * (e.g. `error.password_min`), so the answer is localized; other rules fall back to
 * "{field} is invalid" / "{field} is required".
 */
export function createValidationPipe(): ValidationPipe {
  return new CompiledValidationPipe({ ...OPTIONS, transform: true, exceptionFactory: validationFailure });
}

/** Nest's pipe, answering a plain body that the compiled rules vouch for without the generic walk. */
class CompiledValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const { metatype, type } = metadata;
    if (
      type !== 'custom' &&
      typeof metatype === 'function' &&
      typeof value === 'object' &&
      value !== null &&
      !Array.isArray(value) &&
      this.toValidate(metadata)
    ) {
      const instance = compiledValidate(metatype as ClassConstructor<object>, value);
      if (instance) return instance;
    }
    return super.transform(value, metadata);
  }
}

/** What the pipe does, outside Nest: the DTO instance, or the same BusinessError the pipe would throw. */
export function validateBody<T extends object>(dto: ClassConstructor<T>, body: object): T {
  const compiled = compiledValidate(dto, body);
  if (compiled) return compiled;
  const instance = plainToInstance(dto, body);
  const errors = validateSync(instance, OPTIONS);
  if (errors.length) throw validationFailure(errors);
  return instance;
}
