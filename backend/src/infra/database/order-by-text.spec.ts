import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const SRC = join(__dirname, '..', '..');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith('.ts') && !path.endsWith('.spec.ts') ? [path] : [];
  });
}

/**
 * Statements that select a column as text under its own name (`id::text`, or `x::text AS id`) and
 * sort by that bare name: PostgreSQL sorts by the output column, the text, so "100" comes before
 * "99". Lists came out of order, and batches read with `id > $cursor ORDER BY id LIMIT n` skipped
 * rows once ids passed a power of ten (the daily wealth job, the contract watcher's mark ticks).
 * Sort by the table's column instead (`orders.id`, `x.id`).
 */
function textSorts(sql: string): string[] {
  const found: string[] = [];
  for (const clause of sql.matchAll(/ORDER BY\s+([\s\S]*?)(?=\bLIMIT\b|\bOFFSET\b|\bFOR UPDATE\b|\bRETURNING\b|$)/gi)) {
    for (const item of clause[1].split(',')) {
      const name = /^\s*([a-z_]+)(?:\s+(?:ASC|DESC))?(?:\s+NULLS\s+\w+)?\s*\)?\s*$/i.exec(item)?.[1];
      if (!name) continue;
      const unaliased = new RegExp(`(?<![\\w.])(?:\\w+\\.)?${name}::text(?!\\s+AS\\b)`, 'i');
      const aliased = new RegExp(`::text\\s+AS\\s+${name}\\b`, 'i');
      if (unaliased.test(sql) || aliased.test(sql)) found.push(name);
    }
  }
  return found;
}

describe('SQL that sorts by a column it selects as text', () => {
  it('finds the pattern, and not a sort by the table’s column', () => {
    expect(textSorts('SELECT id::text FROM t WHERE id > $1 ORDER BY id LIMIT 10')).toEqual(['id']);
    expect(textSorts('SELECT x::text AS n FROM t ORDER BY ts DESC, n DESC')).toEqual(['n']);
    expect(textSorts('SELECT id::text FROM t WHERE id > $1 ORDER BY t.id LIMIT 10')).toEqual([]);
    expect(textSorts('SELECT id, price::text FROM t ORDER BY id')).toEqual([]);
  });

  it('is in no statement of the backend', () => {
    const offenders: string[] = [];
    for (const file of sources(SRC)) {
      const text = readFileSync(file, 'utf8');
      for (const literal of text.matchAll(/`[^`]*`|'[^'\n]*'/g)) {
        // A subquery's own sort (inside parentheses, over its own columns) is not the outer select's.
        const outer = literal[0].slice(1, -1).replace(/\([^()]*\bORDER BY\b[^()]*\)/gi, '()');
        for (const name of textSorts(outer)) offenders.push(`${relative(SRC, file)}:${text.slice(0, literal.index).split('\n').length} ORDER BY ${name}`);
      }
    }
    expect(offenders).toEqual([]);
  });
});
