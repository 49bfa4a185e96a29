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
  /** Every JSON message parsed from stdout since the current check began (lines that do not parse are skipped). */
  messages(): unknown[];
  /** Waits until `pred` holds for some message of the current check, or `ms` passes. */
  waitFor(pred: (m: unknown) => boolean, ms: number): Promise<unknown>;
  /** Everything the process wrote to stdout since it started. */
  bytes(): Buffer;
  exited(): boolean;
  initResult: Record<string, unknown> | undefined;
}

/** A raw server process the checks of one run share (started and initialized once). */
interface RawProcess {
  child: ChildProcessByStdio<Writable, Readable, null>;
  /** The stdout chunks so far. */
  chunks: Buffer[];
  waiters: Set<() => void>;
  exited: boolean;
  initResult: Record<string, unknown> | undefined;
  close(): Promise<void>;
}

const KEPT = 'stdio-raw';

/**
 * Runs `fn` on a raw, initialized stdio server process. The raw checks share one process: each
 * sees only what the server wrote since it began (`messages()`), and the next one gets the same
 * process only when this one passed and the process is still up — a check that found the server
 * misbehaving (or not answering) leaves a process no other check's verdict may depend on, so the
 * next starts it again. `fresh` (the robustness inputs, which may crash it) always starts one of
 * its own.
 */
export async function withRawStdio(ctx: CheckContext, fn: (s: RawStdio) => Promise<Verdict>, opts: { fresh?: boolean } = {}): Promise<Verdict> {
  const kept = opts.fresh === true ? undefined : ctx.kept<RawProcess>(KEPT);
  let p = kept !== undefined && !kept.exited ? kept : undefined;
  if (p === undefined) {
    if (kept !== undefined) ctx.drop(KEPT);
    p = startRaw(ctx);
    if (opts.fresh !== true) ctx.keep(KEPT, p);
  }
  let verdict: Verdict | undefined;
  try {
    if (p.initResult === undefined) {
      const s = view(p);
      s.write(JSON.stringify({ jsonrpc: '2.0', id: 'raw-init', method: 'initialize', params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'mcpwire-check', version: '0.1.0' } } }));
      const init = await s.waitFor((m) => isObject(m) && m.id === 'raw-init', ctx.timeoutMs);
      if (!isObject(init) || !isObject(init.result)) return skip('blocked: a raw stdio initialize got no result (see lifecycle.initialize-result)');
      p.initResult = init.result;
      s.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    }
    verdict = await fn(view(p));
    return verdict;
  } finally {
    if (opts.fresh === true) ctx.later(p.close());
    else if (verdict?.status !== 'pass') ctx.drop(KEPT);
  }
}

/** Spawns the server as the stdio transport starts it (`npx` is `npx.cmd` through cmd.exe on Windows). */
function startRaw(ctx: CheckContext): RawProcess {
  const t = ctx.target as StdioServerConfig;
  const env = childEnv(t.env, t.inheritEnv);
  const plan = localSpawnPlan(t.command, t.args ?? [], env, t.cwd);
  const child = spawn(plan.file, plan.args, { cwd: t.cwd, env, stdio: ['pipe', 'pipe', 'ignore'], windowsHide: true, windowsVerbatimArguments: plan.windowsVerbatimArguments });
  const p: RawProcess = {
    child,
    chunks: [],
    waiters: new Set(),
    exited: false,
    initResult: undefined,
    close: async () => {
      child.stdin.end();
      // stdin closed → SIGTERM after 1 s → SIGKILL after 3 s
      if (!p.exited) await endLadder(child);
    },
  };
  child.on('exit', () => {
    p.exited = true;
    for (const w of p.waiters) w();
  });
  child.on('error', () => (p.exited = true));
  child.stdin.on('error', () => undefined);
  child.stdout.on('data', (d: Buffer) => {
    p.chunks.push(d);
    for (const w of p.waiters) w();
  });
  return p;
}

/** The process as one check sees it: messages from the first complete line written after now. */
function view(p: RawProcess): RawStdio {
  const all = () => Buffer.concat(p.chunks);
  const seen = all();
  // a line the server was writing when the check began belongs to the check before
  const from = seen.length === 0 ? 0 : seen.lastIndexOf(0x0a) + 1;
  const parsed = (): unknown[] => {
    const out: unknown[] = [];
    for (const line of all().subarray(from).toString('utf8').split('\n')) {
      if (line.trim() === '') continue;
      try {
        out.push(JSON.parse(line));
      } catch {
        /* not a message: transport.stdout-clean's business */
      }
    }
    return out;
  };
  const s: RawStdio = {
    write: (line) => {
      if (!p.exited) p.child.stdin.write(`${line}\n`);
    },
    writeBytes: (line) => {
      if (!p.exited) p.child.stdin.write(Buffer.concat([line, Buffer.from('\n')]));
    },
    messages: parsed,
    bytes: all,
    exited: () => p.exited,
    initResult: p.initResult,
    waitFor: (pred, ms) =>
      new Promise((resolve) => {
        const check = () => {
          const hit = parsed().find(pred);
          if (hit !== undefined || p.exited) {
            clearTimeout(timer);
            p.waiters.delete(check);
            resolve(hit);
          }
        };
        const timer = setTimeout(() => {
          p.waiters.delete(check);
          resolve(undefined);
        }, ms);
        p.waiters.add(check);
        check();
      }),
  };
  return s;
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
      const after = await s.waitFor(isResponseTo('raw-after'), ctx.timeoutMs);
      await new Promise((r) => setTimeout(r, 200));
      // Silence after a batch is not "ignored": the server stopped answering (or exited) over one
      // message it could have refused.
      if (after === undefined) {
        return violated(`after a JSON-RPC batch the server stopped answering${s.exited() ? ' (it exited)' : ''}: a ping sent next got no answer`, undefined, { clause: 'basic.lifecycle#20' });
      }
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
      // id null: a -32700 first (a late answer to an earlier check's input is id null too)
      const nulls = s.messages().filter((m) => isObject(m) && m.id === null && isObject(m.error)) as Array<{ error: { code?: unknown } }>;
      const err = nulls.find((m) => m.error.code === -32700) ?? nulls[0];
      if (err === undefined) return violated('invalid JSON SHOULD get a Parse error response (-32700, id null); the server sent none', BAD_LINE);
      if ((err as { error: { code?: unknown } }).error.code !== -32700) return violated(`invalid JSON got error ${JSON.stringify((err as { error: { code?: unknown } }).error.code)}, not -32700 (Parse error)`, err);
      return pass('-32700, then ping answered');
    });
  },
};

export const stdioRawChecks: CheckDef[] = [utf8, batch, parseError];
