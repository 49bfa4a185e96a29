/**
 * `IdTable` (src/util/id-table.ts): the table of live entries by JSON-RPC id that the request
 * registry keeps its requests in instead of a Map. It must behave as a Map does for every id a
 * peer or a caller can use (strings, negative and fractional numbers, ids that share a slot,
 * long-lived entries the counter laps), iteration in insertion order included.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IdTable } from '../../src/util/id-table.js';
import { fuzz } from '../support/fuzz.js';

type Id = string | number;

describe('IdTable', () => {
  it('keeps, finds, replaces and deletes counter ids, and reuses their slots', () => {
    const t = new IdTable<Id, string>();
    for (let id = 1; id <= 40; id++) t.set(id, `v${id}`);
    expect(t.size).toBe(40);
    expect(t.get(7)).toBe('v7');
    expect(t.has(41)).toBe(false);
    t.set(7, 'seven');
    expect(t.get(7)).toBe('seven');
    expect(t.size).toBe(40);
    expect(t.delete(7)).toBe(true);
    expect(t.delete(7)).toBe(false);
    expect(t.get(7)).toBeUndefined();
    expect(t.size).toBe(39);
    // 7 + 64: the slot 7 had, free again
    t.set(71, 'v71');
    expect(t.get(71)).toBe('v71');
    expect(t.get(7)).toBeUndefined();
  });

  it('tells apart ids that share a slot: a long-lived entry the counter has lapped stays findable', () => {
    const t = new IdTable<Id, string>();
    t.set(5, 'long-lived');
    // a busy client: 64 in flight while id 5 stays, for thousands of ids
    for (let id = 6; id < 20_000; id++) {
      t.set(id, `v${id}`);
      if (id - 64 > 5) expect(t.delete(id - 64)).toBe(true);
    }
    expect(t.get(5)).toBe('long-lived');
    expect(t.size).toBe(1 + 64);
    for (let id = 20_000 - 64; id < 20_000; id++) expect(t.get(id)).toBe(`v${id}`);
    // an id in 5's slot that is not 5
    expect(t.get(5 + 64)).toBeUndefined();
    expect(t.get(5 + 1024)).toBeUndefined();
  });

  it('takes any other id (strings, negative, fractional, huge numbers; "1" is not 1)', () => {
    const t = new IdTable<Id, string>();
    const odd: Id[] = ['abc', '', '1', -1, 0.5, 2 ** 31, Number.MAX_SAFE_INTEGER, -0.25, 'constructor', '__proto__'];
    for (const id of odd) t.set(id, `v${String(id)}`);
    t.set(1, 'one');
    for (const id of odd) expect(t.get(id)).toBe(`v${String(id)}`);
    expect(t.get(1)).toBe('one');
    expect(t.get('1')).toBe('v1');
    expect(t.size).toBe(odd.length + 1);
    expect(t.delete('1')).toBe(true);
    expect(t.get(1)).toBe('one');
  });

  it('grows past its first slots with every entry kept', () => {
    const t = new IdTable<Id, number>();
    for (let id = 0; id < 5000; id++) t.set(id, id * 2);
    expect(t.size).toBe(5000);
    for (let id = 0; id < 5000; id++) expect(t.get(id)).toBe(id * 2);
  });

  it('gives its entries in the order they were added, wherever each one lives', () => {
    const t = new IdTable<Id, string>();
    const ids: Id[] = [100, 'x', 36, 3, 3 + 64, -2, 1000, 3 + 128, 'y'];
    for (const id of ids) t.set(id, String(id));
    // growth moves entries between slots: the order stays
    for (let id = 2000; id < 2200; id++) t.set(id, String(id));
    t.set(36, 'replaced');
    expect(t.entries().map(([id]) => id)).toEqual([...ids, ...Array.from({ length: 200 }, (_, i) => 2000 + i)]);
    expect(t.entries()[2]).toEqual([36, 'replaced']);
  });

  it('agrees with a Map under any sequence of sets, deletes and lookups', () => {
    const id = fc.oneof(
      { weight: 6, arbitrary: fc.integer({ min: 0, max: 300 }) },
      { weight: 1, arbitrary: fc.integer({ min: 0, max: 2 ** 31 - 1 }) },
      { weight: 1, arbitrary: fc.oneof(fc.integer({ min: -5, max: -1 }), fc.double({ noNaN: true }), fc.string({ maxLength: 3 })) },
    );
    const op = fc.oneof(
      fc.record({ op: fc.constant('set' as const), id, value: fc.integer() }),
      fc.record({ op: fc.constant('delete' as const), id }),
      fc.record({ op: fc.constant('get' as const), id }),
    );
    fuzz('IdTable against a Map', 300, fc.array(op, { maxLength: 400 }), (ops) => {
      const t = new IdTable<Id, number>();
      const m = new Map<Id, number>();
      for (const o of ops) {
        if (o.op === 'set') {
          t.set(o.id, o.value);
          m.set(o.id, o.value);
        } else if (o.op === 'delete') {
          expect(t.delete(o.id)).toBe(m.delete(o.id));
        } else {
          expect(t.get(o.id)).toBe(m.get(o.id));
          expect(t.has(o.id)).toBe(m.has(o.id));
        }
        expect(t.size).toBe(m.size);
      }
      expect(t.entries()).toEqual([...m.entries()]);
    });
  });
});
