/**
 * `jsonrpc.batch-refused` over stdio: a server that exits (or goes silent) on a JSON-RPC batch
 * did not "ignore" it — the ping sent after the batch finds nobody to answer it, and the check says
 * so (basic.lifecycle#20). A server that really ignores the batch still passes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runChecks } from '../../src/check/run/runner.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcpwire-check-batch-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A 2025-11-25 stdio server that answers initialize and ping; on a batch it exits or stays quiet. */
function server(onBatch: 'exit' | 'ignore') {
  const file = path.join(dir, `${onBatch}.cjs`);
  fs.writeFileSync(
    file,
    `const rl = require('readline').createInterface({ input: process.stdin });
const w = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
rl.on('line', (line) => {
  const m = JSON.parse(line);
  if (Array.isArray(m)) { if (${JSON.stringify(onBatch)} === 'exit') process.exit(1); return; }
  if (m.id === undefined) return;
  if (m.method === 'initialize') return w({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'batch-${onBatch}', version: '1.0.0' } } });
  if (m.method === 'ping') return w({ jsonrpc: '2.0', id: m.id, result: {} });
  w({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'Method not found' } });
});
`,
  );
  return { transport: 'stdio' as const, id: `batch-${onBatch}`, command: process.execPath, args: [file] };
}

describe('jsonrpc.batch-refused (stdio)', () => {
  it('a server that exits on a batch is a violation, not "ignored"', { timeout: 60_000 }, async () => {
    const r = await runChecks(server('exit'), { timeoutMs: 3_000, only: ['jsonrpc.batch-refused'] });
    const c = r.results.find((x) => x.id === 'jsonrpc.batch-refused');
    expect(c?.status, JSON.stringify(c)).toBe('warn');
    expect(c?.detail).toMatch(/after a JSON-RPC batch the server stopped answering \(it exited\)/);
  });

  it('a server that ignores a batch and answers the next ping passes', { timeout: 60_000 }, async () => {
    const r = await runChecks(server('ignore'), { timeoutMs: 3_000, only: ['jsonrpc.batch-refused'] });
    const c = r.results.find((x) => x.id === 'jsonrpc.batch-refused');
    expect(c?.status, JSON.stringify(c)).toBe('pass');
    expect(c?.detail).toBe('ignored');
  });
});
