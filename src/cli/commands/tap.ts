/**
 * `mcpwire tap --trace t.jsonl [--name id] [--strict] -- <server command…>` — a transparent stdio
 * relay to put in any host's config in place of the server command.
 * `mcpwire tap --listen 127.0.0.1:PORT --upstream URL --trace t.jsonl [--name id] [--strict]` —
 * a reverse proxy for Streamable HTTP / legacy SSE servers.
 * Both write an mcpwire trace (redacted, 0600) of every message that passes.
 */
import { loadTap, type TraceWarning } from '../../index.js';
import { parseCommand } from '../command-args.js';
import { USAGES } from '../usages.js';

const USAGE = USAGES.tap;

function fail(message: string): number {
  process.stderr.write(`mcpwire tap: ${message}\n${USAGE}\n`);
  return 2;
}

function warn(w: TraceWarning): void {
  if (w.type === 'schema') {
    process.stderr.write(`mcpwire tap: schema: ${w.dir === 'out' ? 'host' : 'server'} ${w.kind} ${w.method ?? ''} ${w.instancePath || '/'}: ${w.message}\n`);
  } else {
    process.stderr.write(`mcpwire tap: trace: ${w.message}\n`);
  }
}

export default async function tap(argv: string[]): Promise<number> {
  const parsed = parseCommand(
    argv,
    { trace: { type: 'string' }, name: { type: 'string' }, strict: { type: 'boolean' }, listen: { type: 'string' }, upstream: { type: 'string' } },
    USAGE,
    fail,
  );
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  const trace = values.trace || process.env.MCPWIRE_TRACE;
  if (!trace) return fail('--trace <file> is required');
  const mod = await loadTap();

  if (values.listen !== undefined || values.upstream !== undefined) {
    if (!values.listen || !values.upstream) return fail('--listen and --upstream go together');
    if (positionals.length) return fail(`unexpected argument "${positionals[0]}" (an HTTP tap takes no command)`);
    const proxy = await mod.startHttpTap({ listen: values.listen, upstream: values.upstream, trace, name: values.name, strict: values.strict, onWarning: warn });
    process.stderr.write(`mcpwire tap: listening on ${proxy.url} → ${proxy.upstream}, tracing to ${trace}\n`);
    await new Promise<void>((resolve) => {
      const stop = () => resolve();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      process.once('SIGHUP', stop);
    });
    await proxy.close();
    return 0;
  }

  if (positionals.length === 0) return fail('give the server command after --, or --listen/--upstream for HTTP');
  const [command, ...args] = positionals;
  const exit = await mod.runStdioTap({ command, args, trace, name: values.name, strict: values.strict, onWarning: warn });
  if (exit.signal) {
    // Die the way the server did, so the host sees the same thing.
    process.kill(process.pid, exit.signal);
    await new Promise((r) => setTimeout(r, 1000));
    return 128 + 1;
  }
  // stdin may still be open (the host keeps it): leave now.
  process.exit(exit.code ?? 1);
}
