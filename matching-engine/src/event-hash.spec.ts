import { EventCollector } from './event-sink';
import { Fnv1a64, HashingSink, hashEvents } from './event-hash';
import { FastBook } from './fast-book';
import type { Command } from './types';

describe('event hash', () => {
  it('is FNV-1a 64 (published test vectors)', () => {
    expect(new Fnv1a64().digest()).toBe('cbf29ce484222325');
    expect(new Fnv1a64().update('a').digest()).toBe('af63dc4c8601ec8c');
    expect(new Fnv1a64().update('foobar').digest()).toBe('85944171f73967e8');
    expect(new Fnv1a64().update('foo').update('bar').digest()).toBe('85944171f73967e8');
  });

  it('HashingSink equals hashEvents over the collected stream, and the same commands give the same hash', () => {
    const cmds: Command[] = [
      { type: 'place', id: 1, owner: 1, side: 'sell', kind: 'limit', price: 100, qty: 5, tif: 'GTC', stp: 'none', ts: 1 },
      { type: 'place', id: 2, owner: 2, side: 'buy', kind: 'limit', price: 101, qty: 7, tif: 'GTC', stp: 'none', ts: 2 },
      { type: 'amend', id: 2, qty: 1, ts: 3 },
      { type: 'cancel', id: 9, ts: 4 },
    ];
    const collector = new EventCollector();
    const hashing = new HashingSink();
    const a = new FastBook(collector);
    const b = new FastBook(hashing);
    for (const c of cmds) {
      a.process(c);
      b.process(c);
    }
    const events = collector.drain();
    expect(hashing.count).toBe(events.length);
    expect(hashing.digest()).toBe(hashEvents(events));
    expect(hashEvents(events.slice(1))).not.toBe(hashEvents(events));
  });
});
