/**
 * `mcpwire replay <trace> [--match strict|loose] [--server <id>] [--listen host:port]` — serves a
 * recorded trace as an MCP server (stdio by default; Streamable HTTP with --listen). At exit
 * (stdin closed, or SIGINT/SIGTERM with --listen) a summary goes to stderr; in strict mode any
 * request that was not recorded makes the exit code 1.
 */
import { loadTap } from '../../index.js';
import { readTrace } from '../../trace-api.js';
import { parseCommand } from '../command-args.js';
import { USAGES } from '../usages.js';

const USAGE = USAGES.replay;

function fail(message: string, code = 2): number {
  process.stderr.write(`mcpwire replay: ${message}\n${code === 2 ? `${USAGE}\n` : ''}`);
  return code;
}

export default async function replay(argv: string[]): Promise<number> {
  const parsed = parseCommand(argv, { match: { type: 'string' }, server: { type: 'string' }, listen: { type: 'string' } }, USAGE, fail);
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  const [file, ...extra] = positionals;
  if (!file) return fail('give the trace file to replay');
  if (extra.length) return fail(`unexpected argument "${extra[0]}"`);
  const mode = values.match ?? 'loose';
  if (mode !== 'strict' && mode !== 'loose') return fail(`--match ${mode}: expected strict or loose`);
  const mod = await loadTap();
  let script;
  try {
    const trace = await readTrace(file);
    script = mod.buildScript(trace.records, { server: values.server });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    return fail(e.code === 'ENOENT' ? `no such trace file: ${file}` : e.message, 1);
  }
  let summary;
  if (values.listen) {
    const srv = await mod.serveReplayHttp(script, { mode, listen: values.listen });
    process.stderr.write(`mcpwire replay: serving ${script.exchanges.length} recorded request(s) of ${script.server} at ${srv.url}\n`);
    await new Promise<void>((resolve) => {
      process.once('SIGINT', () => resolve());
      process.once('SIGTERM', () => resolve());
    });
    summary = srv.summary();
    await srv.close();
  } else {
    summary = await mod.serveReplayStdio(script, { mode });
  }
  process.stderr.write(`${mod.formatSummary(summary)}\n`);
  return mode === 'strict' && summary.mismatches.length > 0 ? 1 : 0;
}
