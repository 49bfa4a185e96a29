/**
 * `mcpwire check --url` against the Streamable HTTP check fixture (a real child process on
 * 127.0.0.1): the clean server passes, and each HTTP knob makes exactly its check fail
 * (basic.transports#9/#40/#44/#49/#50); two core knobs prove the protocol checks work over HTTP.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runChecks } from '../src/check/run/runner.js';
import type { CheckReport } from '../src/check/core/types.js';
import { HTTP_BUGS } from '../mock-servers/check-fixtures/http-bugs.mjs';
import { ALL_CHECKS } from '../src/check/run/runner.js';

const fixture = fileURLToPath(new URL('../mock-servers/check-fixtures/http-server.mjs', import.meta.url));
const children: ChildProcess[] = [];

afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
});

async function server(bug?: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [fixture, ...(bug ? [`--bug=${bug}`] : [])], { stdio: ['pipe', 'pipe', 'inherit'] });
  children.push(child);
  const url = await new Promise<string>((resolve, reject) => {
    let buf = '';
    child.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      const nl = buf.indexOf('\n');
      if (nl >= 0) resolve((JSON.parse(buf.slice(0, nl)) as { url: string }).url);
    });
    child.once('exit', (code) => reject(new Error(`http fixture exited (${code})`)));
  });
  return { url, child };
}

const SLOW = ['cancellation.honoured', 'progress', 'logging.level-filter'];

async function check(bug?: string, target?: string): Promise<CheckReport> {
  const { url, child } = await server(bug);
  try {
    const skip = bug === undefined ? [] : SLOW.filter((s) => !target?.startsWith(s));
    return await runChecks({ transport: 'http', id: 'fixture', url }, { timeoutMs: 15_000, cancelRunMs: 3000, skip });
  } finally {
    child.stdin!.end();
    child.kill('SIGTERM');
  }
}

const problems = (r: CheckReport) => r.results.filter((x) => x.status === 'fail' || x.status === 'warn' || x.status === 'error');

describe.concurrent('mcpwire check --url (HTTP fixture)', () => {
  it('the clean HTTP server passes: 0 failures, 0 warnings, HTTP checks all run', { timeout: 180_000 }, async () => {
    const r = await check();
    expect(problems(r)).toEqual([]);
    for (const x of r.results.filter((y) => y.id.startsWith('http.'))) expect(x.status, x.id).toBe('pass');
    expect(r.results.find((x) => x.id === 'transport.stdout-clean')?.detail).toBe('not applicable: stdio only');
  });

  const level = (id: string) => (ALL_CHECKS.find((c) => c.id === id)!.level === 'MUST' ? 'fail' : 'warn');
  const cases: Array<[string, string, 'fail' | 'warn']> = [
    ...Object.entries(HTTP_BUGS).map(([bug, id]): [string, string, 'fail' | 'warn'] => [bug, id, level(id)]),
    ['ping-nonempty', 'ping.empty-result', 'fail'],
    ['ignore-cancel', 'cancellation.honoured', 'warn'],
  ];
  /** A knob whose violation is, by nature, also another check's (allowed to fail too). */
  const ALSO: Record<string, string[]> = {
    // A response on the GET stream answers no request of the client: an unknown id too.
    'http-get-sends-response': ['jsonrpc.response-ids'],
  };
  for (const [bug, id, status] of cases) {
    it(`${id}: --bug=${bug} → ${status}, nothing else fails`, { timeout: 180_000 }, async () => {
      const r = await check(bug, id);
      const target = r.results.find((x) => x.id === id)!;
      expect(target.status, JSON.stringify(target)).toBe(status);
      expect(target.detail).toContain(`${target.clause} (`);
      expect(target.evidence).toBeTruthy();
      const others = r.results.filter((x) => x.id !== id && !(ALSO[bug] ?? []).includes(x.id) && (x.status === 'fail' || x.status === 'error'));
      expect(others, JSON.stringify(others, null, 1)).toEqual([]);
    });
  }
});
