/**
 * The short soak (`node scripts/soak.mjs --short`) in CI — a child process
 * running the built client (dist/) against the stdio mock and the Streamable HTTP mock, tracing
 * on: calls at 64 in flight on both transports, session renewals, connect/close cycles. Its exit
 * code and every printed figure are checked here (the full `npm run soak` prints the same
 * figures for 100k calls per transport, 1k cycles and 1k renewals).
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createTracer, Redactor } from '../../src/trace/index.js';

const root = path.resolve(import.meta.dirname, '../..');

function runSoak(): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(root, 'scripts', 'soak.mjs'), '--short'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('close', (code) => resolve({ code, out }));
  });
}

describe('soak, short', () => {
  it('stdio + HTTP calls at 64 in flight, renewals, connect/close cycles with tracing: pendingCount 0, no child left, RSS growth < 20 % (the full soak: < 10 %), no listener-leak warning, fds back to the start', async () => {
    const { code, out } = await runSoak();
    console.log(out.split('\n').filter((l) => l.startsWith('SOAK') || l.startsWith('[soak')).join('\n'));
    const figure = (name: string): { value: string; ok: boolean } => {
      const m = new RegExp(`^SOAK ${name} (\\S+) (ok|FAIL)$`, 'm').exec(out);
      expect(m, `figure ${name} missing from the soak output:\n${out}`).not.toBeNull();
      return { value: m![1], ok: m![2] === 'ok' };
    };
    expect(figure('pendingCount').value).toBe('0');
    expect(figure('failedCalls').value).toBe('0');
    expect(figure('children').value).toBe('0');
    expect(Number(figure('rssGrowthPct').value)).toBeLessThan(20);
    expect(figure('rssGrowthPct').ok).toBe(true);
    expect(figure('listenerWarnings').value).toBe('0');
    expect(Number(figure('fdsEnd').value)).toBeLessThanOrEqual(Number(figure('fdsStart').value));
    expect(figure('renewals').value).toBe('40/40');
    expect(Number(figure('calls').value)).toBeGreaterThanOrEqual(6_000);
    expect(Number(figure('traceMB').value)).toBeGreaterThan(0);
    expect(out).toMatch(/^SOAK result ok$/m);
    expect(code).toBe(0);
  }, 180_000);
});

describe('soak finding: session renewals must not pile up in the trace redactor', () => {
  it('regression: a renewed session id replaces the old one among the redacted secrets (1k renewals had made each traced line ~4x slower and RSS grow by hundreds of MB)', async () => {
    const stream = new PassThrough();
    const chunks: string[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c.toString()));
    const t = await createTracer({ destination: stream, serverId: 's', transport: 'streamable-http' });
    const ids = Array.from({ length: 50 }, (_, i) => `session-${String(i).padStart(4, '0')}-abcdef`);
    for (const id of ids) t.setSessionId(id);
    const last = ids[ids.length - 1];
    t.message('in', { jsonrpc: '2.0', method: 'notifications/message', params: { data: `old ${ids[0]} current ${last}` } }, { kind: 'notification', method: 'notifications/message' });
    await t.close();
    const line = chunks.join('').split('\n').find((l) => l.includes('notifications/message'))!;
    expect(line).toContain(`old ${ids[0]} current [redacted]`); // the dead id is no secret any more; the live one is
  });

  it('Redactor.removeSecrets stops redacting exactly the removed values', () => {
    const r = new Redactor({ secrets: ['configured-secret-1'] });
    r.addSecrets(['runtime-secret-22', 'runtime-secret-33']);
    r.removeSecrets(['runtime-secret-22']);
    expect(r.redactString('configured-secret-1 runtime-secret-22 runtime-secret-33')).toBe('[redacted] runtime-secret-22 [redacted]');
    r.removeSecrets(['never-added-value']);
    expect(r.redactString(encodeURIComponent('runtime-secret-33'))).toBe('[redacted]');
  });
});
