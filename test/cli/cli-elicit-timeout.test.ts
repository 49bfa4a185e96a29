/**
 * A form on the terminal is not cut off by the call's request timeout: while a person answers
 * an elicitation that came during `mcpwire call`, the call's countdown is paused (it starts
 * again in full once they are done), and Enter at the review step sends (the default, shown).
 * The built CLI (dist/) runs on a pseudo-terminal (util-linux `script`); the answers are typed
 * well after the timeout would have passed.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'vitest';
import { node, root } from '../support/cli-process.js';
import { hasScript, onPty } from '../support/pty.js';

/** Runs `mcpwire <args>` on a pty; `answer(seen)` is called as output arrives and may type lines. */
function onTerminal(args: string[], answer: (seen: string, type: (line: string) => void) => void): Promise<{ code: number | null; out: string }> {
  const line = onPty(args, 200);
  const child = spawn('script', ['-qec', line, '/dev/null'], { cwd: root, env: { ...process.env, MCPWIRE_NO_DAEMON: '1' } });
  let out = '';
  const type = (l: string) => child.stdin.write(`${l}\r`);
  child.stdout.on('data', (c: Buffer) => {
    out += c.toString();
    answer(out, type);
  });
  const killer = setTimeout(() => child.kill('SIGKILL'), 90_000);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(killer);
      resolve({ code, out });
    }),
  );
}

// Each test is a CLI on a pty of its own, waiting on its own clock: the two go at once.
describe.skipIf(!hasScript)('a form on the terminal and the call timeout', { timeout: 120_000, concurrent: true }, () => {
  it('answering slower than --timeout-ms still gets the answers sent; Enter at review sends (the default is shown)', async ({ expect }) => {
    const mockCmd = `${node} ${path.join(root, 'mock-servers/stdio-server.mjs')} client-features`;
    const schema = { type: 'object', properties: { name: { type: 'string' }, city: { type: 'string' } }, required: ['name'] };
    const args = JSON.stringify({ method: 'elicitation/create', params: { message: 'Who are you?', requestedSchema: schema } });
    const timeoutMs = 2000;
    let step = 0;
    const r = await onTerminal(['--stdio', mockCmd, '--timeout-ms', String(timeoutMs), 'call', 'ask', '--args', args, '--json'], (seen, type) => {
      // Each answer comes more than the whole timeout after its question was shown (half a timeout
      // more: a countdown left running would end the call at the first question; the form takes
      // three of these, 4.5 timeouts in all).
      const slow = (l: string) => setTimeout(() => type(l), timeoutMs * 1.5);
      if (step === 0 && /name \*: $/.test(seen)) (step++, slow('Ann'));
      else if (step === 1 && /city: $/.test(seen)) (step++, slow('Paris'));
      else if (step === 2 && /\(Enter: yes\): $/.test(seen)) (step++, slow(''));
    });
    expect(r.out).not.toMatch(/timed out/);
    expect(r.out).toMatch(/send \{"name":"Ann","city":"Paris"\}\? \[y\]es \/ \[n\]o, decline \/ \[c\]ancel \(Enter: yes\)/);
    expect(r.out).toMatch(/\\"action\\":\\"accept\\".*\\"name\\":\\"Ann\\"/);
    expect(r.code, r.out).toBe(0);
  });

  it('without a person answering, the call still times out after --timeout-ms', async ({ expect }) => {
    const mockCmd = `${node} ${path.join(root, 'mock-servers/stdio-server.mjs')}`;
    const r = await onTerminal(['--stdio', mockCmd, '--timeout-ms', '1500', 'call', 'never'], () => {});
    expect(r.out).toMatch(/request "tools\/call" timed out after 1500 ms/);
    expect(r.code).toBe(1);
  });
});
