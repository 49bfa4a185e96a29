/**
 * stdio checks that need the raw byte stream (basic/transports §stdio): the checker spawns the
 * server itself, writes lines no client library would (a JSON-RPC batch, a line that is not
 * JSON) and reads stdout as bytes, so invalid UTF-8 is seen before any decoder replaces it.
 */
import { spawn, type ChildProcess, type ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { LATEST_PROTOCOL_VERSION } from '../../mcp/versions.js';
import { childEnv } from '../../transport/env.js';
import { localSpawnPlan } from '../../transport/spawn/system.js';
import type { StdioServerConfig } from '../../transport/create.js';
import type { CheckContext } from '../core/context.js';
import { isObject } from '../core/context.js';
import { notApplicable, pass, skip, violated, type CheckDef, type Verdict } from '../core/types.js';

export interface RawStdio {
  write(line: string): void;
  /** Writes bytes as they are (invalid UTF-8 included), then a newline. */
  writeBytes(line: Buffer): void;
  /** Every JSON message parsed from stdout so far (lines that do not parse are skipped). */
  messages(): unknown[];
  /** Waits until `pred` holds for some message, or `ms` passes. */
  waitFor(pred: (m: unknown) => boolean, ms: number): Promise<unknown>;
  bytes(): Buffer;
  exited(): boolean;
  initResult: Record<string, unknown> | undefined;
}

export async function withRawStdio(ctx: CheckContext, fn: (s: RawStdio) => Promise<Verdict>): Promise<Verdict> {
  const t = ctx.target as StdioServerConfig;
  const env = childEnv(t.env, t.inheritEnv);
  // As the stdio transport starts it (`npx` is `npx.cmd` through cmd.exe on Windows).
  const plan = localSpawnPlan(t.command, t.args ?? [], env, t.cwd);
  const child = spawn(plan.file, plan.args, { cwd: t.cwd, env, stdio: ['pipe', 'pipe', 'ignore'], windowsHide: true, windowsVerbatimArguments: plan.windowsVerbatimArguments });
  const s = rawStdio(child);
  try {
    s.write(JSON.stringify({ jsonrpc: '2.0', id: 'raw-init', method: 'initialize', params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'mcpwire-check', version: '0.1.0' } } }));
    const init = await s.waitFor((m) => isObject(m) && m.id === 'raw-init', ctx.timeoutMs);
    if (!isObject(init) || !isObject(init.result)) return skip('blocked: a raw stdio initialize got no result (see lifecycle.initialize-result)');
    s.initResult = init.result;
    s.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    return await fn(s);
  } finally {
    child.stdin.end();
    // stdin closed → SIGTERM after 1 s → SIGKILL after 3 s; the next check need not wait for it
    if (!s.exited()) ctx.later(endLadder(child));
  }
}

/** The child's stdout as bytes and parsed lines, and its stdin. */
function rawStdio(child: ChildProcessByStdio<Writable, Readable, null>): RawStdio {
  const chunks: Buffer[] = [];
  let exited = false;
  const waiters = new Set<() => void>();
  child.on('exit', () => (exited = true));
  child.on('error', () => (exited = true));
  child.stdin.on('error', () => undefined);
  child.stdout.on('data', (d: Buffer) => {
    chunks.push(d);
    for (const w of waiters) w();
  });
  const parsed = (): unknown[] => {
    const out: unknown[] = [];
    for (const line of Buffer.concat(chunks).toString('utf8').split('\n')) {
      if (line.trim() === '') continue;
      try {
        out.push(JSON.parse(line));
      } catch {
        /* not a message: transport.stdout-clean's business */
      }
    }
    return out;
  };
  return {
    write: (line) => {
      if (!exited) child.stdin.write(`${line}\n`);
    },
    writeBytes: (line) => {
      if (!exited) child.stdin.write(Buffer.concat([line, Buffer.from('\n')]));
    },
    messages: parsed,
    bytes: () => Buffer.concat(chunks),
    exited: () => exited,
    initResult: undefined,
    waitFor: (pred, ms) =>
      new Promise((resolve) => {
        const check = () => {
          const hit = parsed().find(pred);
          if (hit !== undefined || exited) {
            clearTimeout(timer);
            waiters.delete(check);
            resolve(hit);
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          resolve(undefined);
        }, ms);
        waiters.add(check);
        check();
      }),
  };
}

/** Resolves when the child (its stdin already closed) has exited: SIGTERM after 1 s, SIGKILL after 3 s. */
function endLadder(child: ChildProcess): Promise<void> {
  return new Promise<void>((resolve) => {
    const term = setTimeout(() => child.kill('SIGTERM'), 1000);
    const kill = setTimeout(() => child.kill('SIGKILL'), 3000);
    child.once('exit', () => {
      clearTimeout(term);
      clearTimeout(kill);
      resolve();
    });
  });
}

const isResponseTo = (id: string) => (m: unknown) => isObject(m) && m.id === id;

const utf8: CheckDef = {
  id: 'transport.utf8',
  title: 'everything the server writes to stdout is valid UTF-8',
  clause: 'basic.transports#1',
  level: 'MUST',
  transport: 'stdio',
  async run(ctx) {
    return withRawStdio(ctx, async (s) => {
      const caps = isObject(s.initResult?.capabilities) ? s.initResult.capabilities : {};
      const asks = ['ping', ...(isObject(caps.tools) ? ['tools/list'] : []), ...(isObject(caps.resources) ? ['resources/list'] : []), ...(isObject(caps.prompts) ? ['prompts/list'] : [])];
      asks.forEach((m, i) => s.write(JSON.stringify({ jsonrpc: '2.0', id: `raw-u${i}`, method: m, params: {} })));
      await s.waitFor(isResponseTo(`raw-u${asks.length - 1}`), ctx.timeoutMs);
      // Messages the server sends on its own shortly after start (logs…) count too.
      await new Promise((r) => setTimeout(r, 300));
      const bytes = s.bytes();
      try {
        new TextDecoder('utf-8', { fatal: true }).decode(bytes);
      } catch {
        const at = firstInvalid(bytes);
        const line = bytes.subarray(Math.max(0, bytes.lastIndexOf(0x0a, at) + 1), Math.min(bytes.length, at + 60));
        return violated(`JSON-RPC messages MUST be UTF-8 encoded; stdout has an invalid UTF-8 sequence at byte ${at} (0x${bytes[at].toString(16)})`, line.toString('latin1'));
      }
      return pass(`${bytes.length} bytes after ${asks.join(', ')}`);
    });
  },
};

function firstInvalid(b: Buffer): number {
  const d = new TextDecoder('utf-8', { fatal: true });
  let lo = 0;
  let hi = b.length;
  // The shortest prefix that fails to decode ends at the bad sequence (allowing 3 bytes of a cut sequence).
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    try {
      d.decode(b.subarray(0, mid + 1), { stream: true });
      d.decode();
      lo = mid + 1;
    } catch {
      hi = mid;
    }
  }
  return Math.min(lo, b.length - 1);
}

const batch: CheckDef = {
  id: 'jsonrpc.batch-refused',
  title: 'a JSON-RPC batch (array) is not processed on protocol 2025-06-18 and later',
  clause: 'schema.json JSONRPCMessage',
  level: 'SHOULD',
  transport: 'stdio',
  async run(ctx) {
    return withRawStdio(ctx, async (s) => {
      const v = String(s.initResult?.protocolVersion ?? '');
      if (v < '2025-06-18') return notApplicable(`negotiated ${v}: batches were part of ${v}`);
      s.write(JSON.stringify([
        { jsonrpc: '2.0', id: 'raw-b1', method: 'ping' },
        { jsonrpc: '2.0', id: 'raw-b2', method: 'ping' },
      ]));
      s.write(JSON.stringify({ jsonrpc: '2.0', id: 'raw-after', method: 'ping' }));
      await s.waitFor(isResponseTo('raw-after'), ctx.timeoutMs);
      await new Promise((r) => setTimeout(r, 200));
      const answered = s.messages().find((m) => Array.isArray(m) || (isObject(m) && (m.id === 'raw-b1' || m.id === 'raw-b2') && 'result' in m));
      if (answered !== undefined) {
        return violated(`negotiated ${v}, which has no JSON-RPC batching (a message is a single object); the server processed a batch`, answered);
      }
      const refusal = s.messages().find((m) => isObject(m) && 'error' in m && (m.id === null || m.id === 'raw-b1'));
      return pass(refusal !== undefined ? `refused: ${JSON.stringify((refusal as { error: unknown }).error).slice(0, 80)}` : 'ignored');
    });
  },
};

const BAD_LINE = '{"jsonrpc": "2.0", "id": "raw-p", "method": "ping"';

const parseError: CheckDef = {
  id: 'jsonrpc.parse-error',
  title: 'a line that is not JSON gets error -32700 (id null) and the server keeps working',
  clause: 'jsonrpc-2.0 §5.1',
  level: 'SHOULD',
  transport: 'stdio',
  async run(ctx) {
    return withRawStdio(ctx, async (s) => {
      s.write(BAD_LINE);
      s.write(JSON.stringify({ jsonrpc: '2.0', id: 'raw-alive', method: 'ping' }));
      const alive = await s.waitFor(isResponseTo('raw-alive'), ctx.timeoutMs);
      await new Promise((r) => setTimeout(r, 200));
      if (alive === undefined) {
        return violated(`after a line that is not JSON the server stopped answering${s.exited() ? ' (it exited)' : ''}`, BAD_LINE, { clause: 'basic.lifecycle#20' });
      }
      const err = s.messages().find((m) => isObject(m) && m.id === null && isObject(m.error));
      if (err === undefined) return violated('invalid JSON SHOULD get a Parse error response (-32700, id null); the server sent none', BAD_LINE);
      if ((err as { error: { code?: unknown } }).error.code !== -32700) return violated(`invalid JSON got error ${JSON.stringify((err as { error: { code?: unknown } }).error.code)}, not -32700 (Parse error)`, err);
      return pass('-32700, then ping answered');
    });
  },
};

export const stdioRawChecks: CheckDef[] = [utf8, batch, parseError];
