import { getMetadataStorage, ValidationTypes } from 'class-validator';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Every source file under backend/src that declares optional fields. */
function dtoFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return dtoFiles(path);
    return path.endsWith('.ts') && !path.endsWith('.spec.ts') && readFileSync(path, 'utf8').includes('@Optional()') ? [path] : [];
  });
}

describe('optional fields', () => {
  it('an optional field sent as a JSON null is refused by its own rules, never taken as absent (regression: IsOptional let null reach the services)', () => {
    for (const file of dtoFiles(join(__dirname, '../..'))) require(file);
    const storage = getMetadataStorage() as unknown as {
      validationMetadatas: Map<{ name: string }, Array<{ type: string; propertyName: string; constraints: Array<(o: object, v: unknown) => boolean> }>>;
    };
    const skipsNull: string[] = [];
    let checked = 0;
    for (const [target, metas] of storage.validationMetadatas)
      for (const m of metas) {
        if (m.type !== ValidationTypes.CONDITIONAL_VALIDATION) continue;
        const applies = (v: unknown) => m.constraints[0]({ [m.propertyName]: v }, v);
        // A field whose rules apply when it is sent (not one that depends on another field)…
        if (!applies('x')) continue;
        checked++;
        // …applies them to a null too.
        if (!applies(null)) skipsNull.push(`${target.name}.${m.propertyName}`);
      }
    expect(checked).toBeGreaterThan(100);
    expect(skipsNull).toEqual([]);
  });
});
