/**
 * The pieces under `call` and the listings, in process: key=value typing by schema, local
 * validation messages, signatures, "did you mean", header parsing, table fitting, file
 * extensions for saved content.
 */
import { describe, expect, it } from 'vitest';
import { keyValues, UsageError } from '../../src/cli/args.js';
import { extensionFor } from '../../src/cli/content.js';
import { checkArgs, isKeyValue, keyValueArgs } from '../../src/cli/kv-args.js';
import { table, wrap } from '../../src/cli/layout.js';
import { params, signature, typeText } from '../../src/cli/signature.js';
import { didYouMean } from '../../src/cli/suggest.js';
import { closest } from '../../src/util/close-names.js';

const schema = {
  type: 'object',
  properties: {
    n: { type: 'number' },
    i: { type: 'integer' },
    s: { type: 'string' },
    b: { type: 'boolean' },
    arr: { type: 'array', items: { type: 'string' } },
    obj: { type: 'object', properties: { x: { type: 'number' } } },
    e: { type: 'string', enum: ['one', 'two'] },
    maybe: { type: ['number', 'null'] },
    either: { anyOf: [{ type: 'string' }, { type: 'number' }] },
  },
  required: ['n', 's'],
  additionalProperties: false,
};

describe('key=value arguments typed by the inputSchema', () => {
  it('numbers, integers, booleans, JSON arrays/objects, strings kept as written, unions', () => {
    expect(keyValueArgs(['n=2.5', 'i=-3', 's=007', 'b=false', 'arr=["a","b"]', 'obj={"x":1}', 'e=two', 'maybe=null', 'either=12', 'x=a=b'], schema)).toEqual({
      n: 2.5,
      i: -3,
      s: '007',
      b: false,
      arr: ['a', 'b'],
      obj: { x: 1 },
      e: 'two',
      maybe: null,
      either: 12,
      x: 'a=b',
    });
    expect(keyValueArgs(['either=hello'], schema)).toEqual({ either: 'hello' });
  });

  it('a property the schema does not describe: JSON when it parses as a non-string, else text', () => {
    expect(keyValueArgs(['a=1', 'b=true', 'c=hello', 'd={"k":[1]}', 'e='], {})).toEqual({ a: 1, b: true, c: 'hello', d: { k: [1] }, e: '' });
  });

  it('bad values are usage errors naming the argument; a repeated key too', () => {
    expect(() => keyValueArgs(['n=two'], schema)).toThrow(new UsageError('argument "n" must be number (got "two")'));
    expect(() => keyValueArgs(['b=yes'], schema)).toThrow(/argument "b" must be boolean/);
    expect(() => keyValueArgs(['arr=[oops'], schema)).toThrow(/argument "arr" must be JSON \(array\)/);
    expect(() => keyValueArgs(['n=1', 'n=2'], schema)).toThrow(/argument "n" given twice/);
    expect(isKeyValue('a=1')).toBe(true);
    expect(isKeyValue('=1')).toBe(false);
    expect(isKeyValue('get-sum')).toBe(false);
  });

  it('checkArgs names each bad field, suggests for unknown ones, shows the signature; valid args pass', () => {
    const tool = { name: 't', inputSchema: schema };
    expect(() => checkArgs(tool, { n: 1, s: 'x' })).not.toThrow();
    let message = '';
    try {
      checkArgs(tool, { n: 'one', e: 'three', bb: true });
    } catch (err) {
      expect(err).toBeInstanceOf(UsageError);
      message = (err as Error).message;
    }
    expect(message).toContain('invalid arguments for tool "t"');
    expect(message).toContain('missing required argument "s"');
    expect(message).toContain('argument "n" must be number');
    expect(message).toContain('argument "e" must be equal to one of the allowed values');
    expect(message).toContain('unknown argument "bb" (did you mean "b"?)');
    expect(message).toContain('nothing was sent');
    expect(message).toContain('usage: t(n: number, i?: integer, s: string');
    // An argument the schema does not declare, with additionalProperties left open: refused
    // unless allowExtra; patternProperties declare names too.
    const open = { name: 'o', inputSchema: { type: 'object', properties: { head: { type: 'number' } }, patternProperties: { '^x-': {} } } };
    expect(() => checkArgs(open, { head: 1, heda: 1 })).toThrow(/unknown argument "heda" \(did you mean "head"\?\).*--allow-extra/);
    expect(() => checkArgs(open, { head: 1, heda: 1 }, { allowExtra: true })).not.toThrow();
    expect(() => checkArgs(open, { head: 1, 'x-trace': 'on' })).not.toThrow();
    // a schema the module cannot use is the server's business, not a reason to refuse
    expect(() => checkArgs({ name: 'u', inputSchema: { $schema: 'https://example.com/other', type: 'object' } }, { a: 1 })).not.toThrow();
  });
});

describe('signatures', () => {
  it('required vs optional, enums, defaults, arrays, nested objects, output schema', () => {
    expect(signature({ name: 'add', inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] } })).toBe('add(a: number, b: number)');
    expect(params({ type: 'object', properties: { mode: { enum: ['a', 'b'], default: 'a' }, tags: { type: 'array', items: { type: ['string', 'number'] } } } })).toEqual([
      'mode?: "a" | "b" = "a"',
      'tags?: (string | number)[]',
    ]);
    expect(typeText({ type: 'object', properties: { x: { type: 'object', properties: { y: { type: 'string' } } } }, required: ['x'] })).toBe('{ x: object }');
    expect(signature({ name: 'w', inputSchema: { type: 'object' }, outputSchema: { type: 'object', properties: { t: { type: 'number' } }, required: ['t'] } })).toBe('w() → { t: number }');
  });
});

describe('did you mean', () => {
  it('close names only, best first', () => {
    expect(closest('tols', ['tools', 'status', 'trust'])).toEqual(['tools']);
    expect(didYouMean('get-summ', ['get-sum', 'echo'])).toBe(' (did you mean "get-sum"?)');
    expect(didYouMean('zzz', ['get-sum', 'echo'])).toBe('');
    // Two neighbouring letters swapped is one typo, even in a short name.
    expect(didYouMean('heda', ['head', 'tail', 'path'])).toBe(' (did you mean "head"?)');
    expect(didYouMean('stauts', ['status', 'tools'])).toBe(' (did you mean "status"?)');
    expect(didYouMean('everythin', ['everything'])).toBe(' (did you mean "everything"?)');
  });
});

describe('output helpers', () => {
  it('--header accepts "Name: value" and Name=value; an error does not echo the text', () => {
    expect(keyValues(['Authorization: Bearer a=b', 'X-A=1', 'X-B:2'], '--header')).toEqual({ Authorization: 'Bearer a=b', 'X-A': '1', 'X-B': '2' });
    expect(() => keyValues(['secret-without-separator'], '--header')).toThrow(/occurrence 1/);
    expect(() => keyValues(['secret-without-separator'], '--header')).not.toThrow(/secret-without/);
  });

  it('tables fit the width: the last column shrinks first, then the widest; cut cells end with …', () => {
    const rows = [['short', 'a-rather-long-uri://that/goes/on/and/on', 'A description that is far too long for the terminal at hand']];
    const out = table(['id', 'uri', 'description'], rows, 50).split('\n');
    expect(out.every((l) => l.length <= 50)).toBe(true);
    expect(out[2]).toMatch(/…$/);
    expect(table(['id', 'uri', 'description'], rows, Infinity).split('\n')[2]).toContain('terminal at hand');
    expect(wrap('one two three four five', 9)).toEqual(['one two', 'three', 'four five']);
  });

  it('saved content gets the extension of its MIME type', () => {
    expect(extensionFor('image/png')).toBe('png');
    expect(extensionFor('image/jpeg')).toBe('jpg');
    expect(extensionFor('audio/wav')).toBe('wav');
    expect(extensionFor('application/gzip')).toBe('gz');
    expect(extensionFor('text/plain; charset=utf-8')).toBe('txt');
    expect(extensionFor(undefined)).toBe('bin');
  });
});
