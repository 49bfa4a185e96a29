/**
 * `mcpwire daemon start|stop|status|restart|reload [<id>]`: a background process that keeps the
 * configured servers connected between commands (docs/daemon.md). `start` spawns it with the
 * servers this command resolves from the config (all, or `<id>`), `reload` sends them again
 * (changed entries restart, unchanged ones keep their process and session), `stop` ends it.
 * With `<id>` and a daemon running, `start`/`stop`/`restart` act on that server alone.
 * `status` shows each server's state, pid, uptime and the requests it served (`--json` too).
 * While it runs, `call`, `tools`, `resources`, `templates`, `read`, `prompt` and `prompts` go
 * through it (cli/daemon-client.ts).
 */
import { connectDaemon as connectAny, DEFAULT_IDLE_MS, startDaemon, stopDaemon, daemonPaths, dirProblem, placeServer, type HeldStatus } from '../../daemon-api.js';
import { storeSettingFrom, type StoreHealth } from '../../host-api.js';
import { parseTimeout, UsageError } from '../args.js';
import { runCommand } from '../command.js';
import { cliAuth, CliFailure, CONFIG_OPTIONS, findServer, loadView, scrubber, type ConfigFlags } from '../config-target.js';
import { table } from '../layout.js';
import { printJson, safeText } from '../output.js';
import { USAGES } from '../usages.js';

const USAGE = USAGES.daemon;

const OWN = { imports: CONFIG_OPTIONS.imports, 'idle-ms': { type: 'string' } } as const;

interface DaemonStatus {
  pid: number;
  startedAt: number;
  lastRequestAt: number;
  idleMs: number;
  socket: string;
  log: string;
  traces: string;
  logs: string;
  servers: HeldStatus[];
  /** The token store's health (absent from a daemon of an older build). */
  store?: StoreHealth | null;
}

export default function daemon(argv: string[]): Promise<number> {
  return runCommand(argv, { usage: USAGE, options: OWN }, async ({ values, positionals }, run) => {
    const [action, id, extra] = positionals;
    if (action === undefined || extra !== undefined) throw new UsageError(USAGE);
    const servers = async () => {
      const config = await loadView(values as ConfigFlags);
      run.scrub = scrubber(config.servers);
      if (id !== undefined) return [placeServer(findServer(config, id))];
      // `keep_alive: true` on some entries: the daemon holds those alone; on none: every server.
      const marked = config.servers.filter((s) => s.config.keepAlive === true);
      // Each stdio server runs in this command's directory (or its entry's cwd from here), not the daemon's.
      return (marked.length > 0 ? marked : config.servers).map((s) => placeServer(s));
    };
    switch (action) {
      case 'start':
        if (id !== undefined && (await serverAction('start', id))) return 0;
        return start(await servers(), idleMs(values['idle-ms']));
      case 'stop':
        if (id !== undefined) return (await serverAction('stop', id)) ? 0 : notRunning();
        return stop();
      case 'restart':
        if (id !== undefined) return (await serverAction('restart', id)) ? 0 : notRunning();
        await stop();
        return start(await servers(), idleMs(values['idle-ms']));
      case 'reload':
        if (id !== undefined) throw new UsageError('daemon reload takes no server id: it reads the whole config again');
        return reload(await servers());
      case 'status':
        return status(id, values.json === true);
      default:
        throw new UsageError(`unknown daemon action "${safeText(action, 40)}"\n${USAGE}`);
    }
  });
}

/** The running daemon; a directory others could reach is an error here (the other commands just ignore it). */
async function connectDaemon(): ReturnType<typeof connectAny> {
  safeDir();
  return connectAny();
}

function safeDir(): void {
  const problem = dirProblem(daemonPaths().dir);
  if (problem !== undefined) throw new CliFailure(`the daemon's directory is not safe to use: ${problem}`);
}

/** `--idle-ms`, else `MCPWIRE_DAEMON_IDLE_MS`, else 30 minutes; 0 means never. */
function idleMs(flag: string | undefined): number {
  const text = flag ?? process.env.MCPWIRE_DAEMON_IDLE_MS;
  if (text === undefined || text === '') return DEFAULT_IDLE_MS;
  if (text === '0') return 0;
  const ms = parseTimeout(text);
  if (ms === undefined) throw new UsageError(`--idle-ms must be a number of milliseconds (got "${safeText(text, 40)}")`);
  return ms;
}

function notRunning(): number {
  process.stdout.write('no daemon running\n');
  return 1;
}

async function start(servers: Parameters<typeof startDaemon>[0], idle: number): Promise<number> {
  const { pid, already } = await startDaemon(servers, idle, undefined, cliAuth().storeSetting);
  if (already) {
    process.stdout.write(`daemon already running (pid ${pid}); "mcpwire daemon reload" sends it the current config\n`);
    return 0;
  }
  process.stdout.write(`daemon started (pid ${pid}), ${servers.length} server${servers.length === 1 ? '' : 's'}; log: ${daemonPaths().log}\n`);
  return status(undefined, false);
}

async function stop(): Promise<number> {
  safeDir();
  const pid = await stopDaemon();
  process.stdout.write(pid === undefined ? 'no daemon running\n' : `daemon stopped (pid ${pid})\n`);
  return 0;
}

/** `start|stop|restart <id>` on a running daemon; false when none runs. */
async function serverAction(action: 'start' | 'stop' | 'restart', id: string): Promise<boolean> {
  const conn = await connectDaemon();
  if (conn === undefined) return false;
  try {
    const s = await conn.request<{ state?: string } | undefined>('server', { action, server: id });
    process.stdout.write(`server "${safeText(id, 64)}": ${s?.state ?? 'unknown'}\n`);
    return true;
  } catch (err) {
    throw new CliFailure(err instanceof Error ? err.message : String(err));
  } finally {
    conn.close();
  }
}

async function reload(servers: Parameters<typeof startDaemon>[0]): Promise<number> {
  const conn = await connectDaemon();
  if (conn === undefined) return notRunning();
  try {
    const diff = await conn.request<{ added: string[]; removed: string[]; restarted: string[]; store?: StoreHealth | null }>('load', { servers });
    const part = (label: string, ids: string[]) => (ids.length > 0 ? [`${label}: ${ids.join(', ')}`] : []);
    const parts = [...part('added', diff.added), ...part('removed', diff.removed), ...part('restarted', diff.restarted)];
    process.stdout.write(`daemon reloaded${parts.length > 0 ? ` (${parts.join('; ')})` : ' (no changes)'}\n`);
    const held = diff.store == null ? undefined : (diff.store.url ?? diff.store.kind);
    const wanted = storeNamed();
    if (held !== undefined && wanted !== undefined && held !== wanted) {
      process.stdout.write(`note: the daemon keeps the store it started with (${safeText(held, 300)}); this config names ${safeText(wanted, 300)}: "mcpwire daemon restart" moves it\n`);
    }
    return 0;
  } finally {
    conn.close();
  }
}

/** The store this command's config names (MCPWIRE_STORE over `mcp.store`), as status shows it; undefined when it cannot be read. */
function storeNamed(): string | undefined {
  try {
    const s = storeSettingFrom(process.env, cliAuth().storeSetting);
    return s.kind === 'redis' ? s.shown : s.kind;
  } catch {
    return undefined;
  }
}

/** `1h 2m`, `3m 4s`, `5s`. */
function duration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const [h, m] = [Math.floor(s / 3600), Math.floor((s % 3600) / 60)];
  return h > 0 ? `${h}h ${m}m` : m > 0 ? `${m}m ${s % 60}s` : `${s}s`;
}

async function status(id: string | undefined, json: boolean): Promise<number> {
  const conn = await connectDaemon();
  if (conn === undefined) {
    if (json) printJson({ running: false });
    else process.stdout.write('no daemon running\n');
    return 1;
  }
  let st: DaemonStatus;
  try {
    st = await conn.request<DaemonStatus>('status');
  } finally {
    conn.close();
  }
  const rows = st.servers.filter((s) => id === undefined || s.id === id);
  if (id !== undefined && rows.length === 0) throw new CliFailure(`the daemon does not hold server "${safeText(id, 64)}"`);
  const now = Date.now();
  if (json) {
    printJson({ running: true, ...st, servers: rows.map((s) => ({ ...s, uptimeMs: s.connectedAt === undefined ? null : now - s.connectedAt })) });
    return 0;
  }
  const idle = st.idleMs === 0 ? 'no idle timeout' : `stops after ${duration(st.idleMs)} idle (idle ${duration(now - st.lastRequestAt)})`;
  process.stdout.write(`daemon pid ${st.pid}, up ${duration(now - st.startedAt)}, ${idle}\nsocket ${st.socket}\nlog ${st.log}\nservers' traces ${st.traces}, stderr ${st.logs}\n`);
  const s = st.store;
  if (s != null && (s.kind !== 'file' || s.state !== 'ok')) {
    const how = s.state === 'ok' ? 'ok' : `${s.state} since ${new Date(s.since).toISOString()}${s.lastError !== undefined ? `: ${s.lastError}` : ''}`;
    process.stdout.write(`token store ${safeText(s.url ?? s.kind, 300)} (${s.kind}, ${safeText(how, 300)})\n`);
  }
  if (rows.length === 0) {
    process.stdout.write('no servers held\n');
    return 0;
  }
  const cells = rows.map((s) => [
    safeText(s.id, 64),
    s.state,
    s.pid === undefined ? '-' : String(s.pid),
    s.connectedAt === undefined ? '-' : duration(now - s.connectedAt),
    String(s.calls),
    safeText(s.lastError ?? '', 200),
  ]);
  process.stdout.write(`${table(['server', 'state', 'pid', 'uptime', 'calls', 'last error'], cells)}\n`);
  return 0;
}
