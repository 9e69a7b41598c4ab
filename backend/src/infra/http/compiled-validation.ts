import type { ClassConstructor } from 'class-transformer';
import type { MetadataStorage as TransformerMetadata } from 'class-transformer/types/MetadataStorage';
import { getMetadataStorage, ValidationArguments, ValidationTypes, ValidatorConstraintInterface } from 'class-validator';

// The transformer's metadata (which classes use @Type, @Transform, @Expose, @Exclude) is not in its public entry point.
const { defaultMetadataStorage } = require('class-transformer/cjs/storage') as { defaultMetadataStorage: TransformerMetadata };


/** One constraint of one property, resolved once: the rule and the arguments it is called with. */
interface Check {
  validateIf?: (object: object, value: unknown) => boolean;
  rules: ValidatorConstraintInterface[];
  args: ValidationArguments;
}

interface PropertyPlan {
  name: string;
  /** `ValidateIf` / `IsOptional`: the property's rules apply only when every condition holds. */
  conditions: Array<(object: object, value: unknown) => boolean>;
  checks: Check[];
}

interface Plan {
  properties: PropertyPlan[];
  allowed: Set<string>;
  /** Properties with an `@IsObject` rule: a plain object is a value the compiled path passes on (the order channel's `params`). */
  objects: Set<string>;
}

/**
 * The success path of `plainToInstance` + `validateSync` (whitelist, forbid unknown fields),
 * compiled once per DTO class from the class's own class-validator metadata: the same decorators
 * stay the one definition of each rule, but the per-request walk (metadata lookup and grouping,
 * error objects for every property, the transformer's generic copy) is done once, here.
 *
 * It only ever answers "valid, here is the instance" or "not sure": a body it cannot vouch for
 * (a rule fails, an unknown field, a non-primitive one other than a plain object under
 * `@IsObject`, a DTO using transforms, nested or async rules) goes to the full class-validator run, which builds the exact error. So the answers are
 * class-validator's by construction; `compiled-validation.spec.ts` checks it on random bodies.
 */
const plans = new Map<ClassConstructor<object>, Plan | null>();

function planOf(dto: ClassConstructor<object>): Plan | null {
  let plan = plans.get(dto);
  if (plan === undefined) {
    plan = compile(dto);
    plans.set(dto, plan);
  }
  return plan;
}

/** Whether the class's rules compile (else every body of it takes the full run). */
export function compiles(dto: ClassConstructor<object>): boolean {
  return planOf(dto) !== null;
}

export function compiledValidate<T extends object>(dto: ClassConstructor<T>, body: object): T | undefined {
  const plan = planOf(dto);
  if (plan === null) return undefined;
  const instance = new dto() as Record<string, unknown>;
  for (const key of Object.keys(body)) {
    if (!plan.allowed.has(key)) return undefined;
    const value = (body as Record<string, unknown>)[key];
    const kind = typeof value;
    if (kind !== 'string' && kind !== 'number' && kind !== 'boolean' && !(plan.objects.has(key) && isPlainObject(value))) return undefined;
    instance[key] = value;
  }
  for (const p of plan.properties) {
    const value = instance[p.name];
    let applies = true;
    for (const condition of p.conditions) applies = condition(instance, value) && applies;
    if (!applies) continue;
    for (const check of p.checks) {
      if (check.validateIf && !check.validateIf(instance, value)) continue;
      check.args.object = instance;
      check.args.value = value;
      for (const rule of check.rules) if (rule.validate(value, check.args) !== true) return undefined;
    }
  }
  return instance as T;
}

/** The plan, or null when the class uses something the compiled path does not reproduce. */
function compile(dto: ClassConstructor<object>): Plan | null {
  const storage = getMetadataStorage();
  const metadatas = storage.getTargetValidationMetadatas(dto, '', false, false, undefined);
  if (!metadatas.length) return null;
  const transformer = defaultMetadataStorage;
  if (transformer.getStrategy(dto) !== 'none' || transformer.getExposedMetadatas(dto).length || transformer.getExcludedMetadatas(dto).length) return null;
  const grouped = storage.groupByPropertyName(metadatas);
  const properties: PropertyPlan[] = [];
  const objects = new Set<string>();
  for (const [name, list] of Object.entries(grouped)) {
    if (list.some((m) => m.name === 'isObject')) objects.add(name);
    if (transformer.findTypeMetadata(dto, name) || transformer.findTransformMetadatas(dto, name, 0 /* plain to class */).length) return null;
    const plan: PropertyPlan = { name, conditions: [], checks: [] };
    // class-validator runs IsDefined first, then the other rules, in declaration order.
    const defined = list.filter((m) => m.type === ValidationTypes.IS_DEFINED);
    const rest = list.filter((m) => m.type !== ValidationTypes.IS_DEFINED && m.type !== ValidationTypes.WHITELIST);
    for (const m of [...defined, ...rest]) {
      if (m.type === ValidationTypes.CONDITIONAL_VALIDATION) {
        plan.conditions.push(m.constraints[0] as (object: object, value: unknown) => boolean);
        continue;
      }
      if (m.type !== ValidationTypes.CUSTOM_VALIDATION && m.type !== ValidationTypes.IS_DEFINED) return null;
      if (m.each) return null;
      const constraints = storage.getTargetValidatorConstraints(m.constraintCls);
      if (constraints.some((c) => c.async)) return null;
      plan.checks.push({
        validateIf: m.validateIf,
        rules: constraints.map((c) => c.instance as ValidatorConstraintInterface),
        args: { targetName: dto.name, property: m.propertyName, object: {}, value: undefined, constraints: m.constraints },
      });
    }
    properties.push(plan);
  }
  return { properties, allowed: new Set(properties.map((p) => p.name)), objects };
}

/** A JSON object (not an array, a class instance or null): what class-transformer copies member by member into an equal plain object. */
function isPlainObject(value: unknown): value is object {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
