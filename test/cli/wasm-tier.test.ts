/**
 * Which compiler V8 gives WebAssembly (undici's HTTP parser) in a command's process: a one-shot
 * command keeps the baseline code (no optimizing compile on a worker thread that the exit waits
 * for), one that runs until stopped keeps the optimizing compile (src/cli/wasm-tier.ts).
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { baselineWasm, LONG_RUNNING } from '../../src/cli/wasm-tier.js';

describe('the WebAssembly tier of a command', () => {
  it.each(['call', 'tools', 'status', 'mcp', 'check', 'conformance-client', 'login'])('%s (one-shot): baseline only', (command) => {
    expect(baselineWasm(command)).toBe(true);
  });

  it.each(['serve', 'tap', 'replay', 'watch'])('%s (runs until stopped): optimized', (command) => {
    expect(baselineWasm(command)).toBe(false);
  });

  it('names only commands that exist (the keys of src/cli/run.ts COMMANDS)', () => {
    const main = fs.readFileSync(new URL('../../src/cli/run.ts', import.meta.url), 'utf8');
    const commands = [...main.matchAll(/^ {2}'?([\w-]+)'?: \{ file: /gm)].map((m) => m[1]);
    expect(commands).toContain('serve');
    expect([...LONG_RUNNING].filter((c) => !commands.includes(c))).toEqual([]);
  });
});
