/**
 * `createHost` given what it does not take — an array of plain entries (`[{ id, command }]`, a
 * common first try), an object of entries by id, nothing — throws a ConfigError that names what
 * it expected and how to start from plain entries, instead of an internal TypeError; the way it
 * names (an empty config, then `addServer`) works.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createHost } from '../../src/host-api.js';
import { isConfigError } from '../../src/index.js';
import { root } from '../support/cli-process.js';

const STDIO = path.join(root, 'mock-servers', 'stdio-server.mjs');

function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error('no error thrown');
}

describe('createHost with the wrong shape', () => {
  it('an array of plain entries: a ConfigError naming the item, what was expected and addServer', () => {
    const err = thrown(() => createHost([{ id: 'files', command: 'npx' }] as never));
    expect(isConfigError(err), String(err)).toBe(true);
    expect(err.message).toMatch(/createHost expects loadConfig\(\)'s result or its servers array/);
    expect(err.message).toMatch(/item\s1 of the list given \(id "files"\) is an object with "id", "command", not a resolved server/);
    expect(err.message).toMatch(/host\.addServer\(id, \{ command, args \}/);
  });

  it('an object of entries by id, or nothing: a ConfigError saying what it got', () => {
    for (const [given, got] of [[{ files: { command: 'npx' } }, 'an object with "files"'], [undefined, 'undefined'], [null, 'null']] as const) {
      const err = thrown(() => createHost(given as never));
      expect(isConfigError(err), String(err)).toBe(true);
      expect(err.message).toContain(`({ servers, diagnostics }) or its servers array; got ${got}`);
    }
  });

  it('the way the error names works: an empty config, then addServer with a plain entry', { timeout: 30_000 }, async () => {
    const host = createHost({ servers: [], diagnostics: [] });
    await host.start();
    try {
      const s = await host.addServer('mock', { command: process.execPath, args: [STDIO] });
      expect(s.state).toBe('ready');
    } finally {
      await host.close();
    }
  });
});
