/**
 * The CLI's side of the socket: `connectDaemon()` finds a running daemon (none, a stale socket
 * or a directory others could reach all mean "no daemon": the command runs on its own), and
 * `request` sends one op, passing the daemon's events and elicitation asks to the caller.
 */
import net from 'node:net';
import { checkDir, daemonPaths, type DaemonPaths } from './paths.js';
import { LineChannel, type WireMessage } from './wire.js';

export interface RequestHooks {
  onEvent?: (event: string, data: unknown) => void;
  /** A server's elicitation/create during the call: answer it (the command's terminal); `signal` aborts when it is withdrawn. */
  onAsk?: (method: string, params: unknown, serverId: string | undefined, signal: AbortSignal) => Promise<unknown>;
  signal?: AbortSignal;
}

/** The error a daemon reply carries, rethrown as the command's own path would throw it. */
export class DaemonReplyError extends Error {
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
    this.name = 'DaemonReplyError';
  }
}

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  hooks: RequestHooks;
}

export class DaemonConnection {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  /** Elicitations being answered, by the daemon's ask id. */
  private readonly asking = new Map<number, AbortController>();
  private closed = false;

  constructor(private readonly channel: LineChannel) {
    channel.onmessage = (m) => this.receive(m);
    channel.onclose = () => {
      this.closed = true;
      for (const p of this.pending.values()) p.reject(new DaemonReplyError('the daemon closed the connection', 'MCPWIRE_DAEMON_GONE'));
      this.pending.clear();
    };
  }

  private receive(m: WireMessage): void {
    // A withdrawal may follow its call's reply: looked up by the ask, not the request.
    if (m.ask !== undefined && m.withdrawn === true) return this.asking.get(m.ask as number)?.abort('withdrawn by the server');
    const p = this.pending.get(m.id as number);
    if (p === undefined) return;
    if (m.ask !== undefined) return void this.ask(m, p.hooks);
    if (typeof m.event === 'string') return p.hooks.onEvent?.(m.event, m.data);
    this.pending.delete(m.id as number);
    const error = m.error as { message?: string; code?: string } | undefined;
    if (error !== undefined) p.reject(new DaemonReplyError(String(error.message ?? 'daemon error'), error.code));
    else p.resolve(m.result);
  }

  private async ask(m: WireMessage, hooks: RequestHooks): Promise<void> {
    const ac = new AbortController();
    this.asking.set(m.ask as number, ac);
    try {
      if (hooks.onAsk === undefined) throw new Error(`${String(m.method)} is not handled by this command`);
      this.channel.send({ op: 'answer', ask: m.ask, result: await hooks.onAsk(String(m.method), m.params, m.serverId as string | undefined, ac.signal) });
    } catch (err) {
      this.channel.send({ op: 'answer', ask: m.ask, error: { message: err instanceof Error ? err.message : String(err) } });
    } finally {
      this.asking.delete(m.ask as number);
    }
  }

  /** Sends op `op`; resolves with its result. An abort of `hooks.signal` sends `cancel` and rejects with its reason. */
  request<T = unknown>(op: string, fields: WireMessage = {}, hooks: RequestHooks = {}): Promise<T> {
    if (this.closed) return Promise.reject(new DaemonReplyError('the daemon closed the connection', 'MCPWIRE_DAEMON_GONE'));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const signal = hooks.signal;
      const onAbort = () => {
        this.pending.delete(id);
        this.channel.send({ op: 'cancel', target: id });
        reject(signal!.reason instanceof Error ? signal!.reason : new Error(String(signal!.reason ?? 'aborted')));
      };
      const done = () => signal?.removeEventListener('abort', onAbort);
      this.pending.set(id, { resolve: (v) => (done(), resolve(v as T)), reject: (e) => (done(), reject(e)), hooks });
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      this.channel.send({ id, op, ...fields });
    });
  }

  close(): void {
    this.closed = true;
    this.channel.socket.destroy();
  }
}

/** The running daemon's connection, or undefined when none answers within `timeoutMs`. */
export function connectDaemon(paths: DaemonPaths = daemonPaths(), timeoutMs = 1000): Promise<DaemonConnection | undefined> {
  try {
    checkDir(paths.dir);
  } catch {
    return Promise.resolve(undefined); // missing, or reachable by others: never trusted
  }
  return new Promise((resolve) => {
    const socket = net.connect(paths.socket);
    const timer = setTimeout(() => (socket.destroy(), resolve(undefined)), timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      resolve(new DaemonConnection(new LineChannel(socket)));
    });
    socket.once('error', () => {
      clearTimeout(timer);
      resolve(undefined);
    });
  });
}
