/** Helpers for the tap/replay tests: the built CLI, server-everything, free ports, SDK message capture. */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';

export const root = path.resolve(import.meta.dirname, '../..');
export const cli = path.join(root, 'dist/cli/main.js');
export const everything = path.join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** Starts a process and resolves once its stderr matches `ready` (with the match). */
export function startUntil(args: string[], ready: RegExp, env: NodeJS.ProcessEnv = {}, timeoutMs = 30_000): Promise<{ child: ChildProcess; match: RegExpMatchArray; stderr: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let err = '';
    const timer = setTimeout(() => reject(new Error(`not ready after ${timeoutMs} ms: ${err}`)), timeoutMs);
    child.stderr!.on('data', (c: Buffer) => {
      err += c.toString();
      const m = err.match(ready);
      if (m) {
        clearTimeout(timer);
        resolve({ child, match: m, stderr: () => err });
      }
    });
    child.stdout!.resume();
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited ${code} before ready: ${err}`));
    });
  });
}

export function stop(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve({ code: child.exitCode, signal: child.signalCode as NodeJS.Signals | null });
    child.removeAllListeners('exit');
    child.once('exit', (code, sig) => resolve({ code, signal: sig }));
    child.kill(signal);
  });
}

/** Records every message an SDK transport sends and receives (wraps `send` and the `onmessage` the client installs). */
export function capture<T extends { send: (m: any, o?: any) => Promise<void>; onmessage?: (m: any, extra?: any) => void }>(transport: T): { sent: unknown[]; received: unknown[] } {
  const sent: unknown[] = [];
  const received: unknown[] = [];
  const send = transport.send.bind(transport);
  transport.send = (m: any, o?: any) => {
    sent.push(JSON.parse(JSON.stringify(m)));
    return send(m, o);
  };
  let inner: ((m: any, extra?: any) => void) | undefined;
  Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    get: () => inner && ((m: any, extra?: any) => inner!(m, extra)),
    set: (fn) => {
      inner = fn
        ? (m: any, extra?: any) => {
            received.push(JSON.parse(JSON.stringify(m)));
            fn(m, extra);
          }
        : undefined;
    },
  });
  return { sent, received };
}

/** Messages as sorted canonical JSON (for multiset comparison). */
export function canon(list: unknown[]): string[] {
  const sortKeys = (v: unknown): unknown =>
    Array.isArray(v) ? v.map(sortKeys) : v && typeof v === 'object' ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys((v as any)[k])])) : v;
  return list.map((m) => JSON.stringify(sortKeys(m))).sort();
}
