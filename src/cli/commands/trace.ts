/**
 * `mcpwire trace show <file> [--follow] [--color|--no-color]` — readable timeline (time order,
 *   several processes' lines merged by wall clock); --follow keeps printing lines as they are
 *   appended (Ctrl-C stops)
 * `mcpwire trace stats <file> [--json]` — per-method counts, errors, latency percentiles
 * `mcpwire trace html <file> [-o out.html|-]` — one self-contained HTML page; without -o it is
 *   written next to the trace (`run.jsonl` → `run.html`) and its path printed; `-o -`: stdout
 * `mcpwire trace diff <a> <b> [--json] [--server <id>]` — protocol-level comparison; exit 1 on
 *   differences
 */
import { writeFile } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadTap, type ParsedTrace } from '../../index.js';
import { computeStats, formatStats, readTrace, renderHtml, renderShow } from '../../trace-api.js';
import { USAGES } from '../usages.js';

const USAGE = USAGES.trace;

class UsageError extends Error {}

function parse(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        color: { type: 'boolean' },
        'no-color': { type: 'boolean' },
        json: { type: 'boolean' },
        output: { type: 'string', short: 'o' },
        follow: { type: 'boolean', short: 'f' },
        server: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/**
 * Reads a trace, refusing a file none of whose lines is a trace record (a README, a config file,
 * another program's JSON lines): an empty report of it would read as "nothing happened". An
 * empty file is an empty trace (one being written may not have its first line yet).
 */
async function readTraceFile(file: string): Promise<ParsedTrace> {
  const parsed = await readTrace(file);
  const unreadable = parsed.badLines.length + (parsed.truncated ? 1 : 0);
  if (parsed.records.length === 0 && unreadable > 0) {
    throw new Error(`${file} is not a trace: none of its ${unreadable} line${unreadable === 1 ? ' is' : 's is'} a trace record (JSON with "t" and "event" or "dir", as --trace writes)`);
  }
  return parsed;
}

function warnings(file: string, parsed: ParsedTrace): void {
  if (parsed.truncated) process.stderr.write(`mcpwire: ${file}: last line is truncated (ignored)\n`);
  if (parsed.badLines.length) {
    const shown = parsed.badLines.slice(0, 5).join(', ');
    process.stderr.write(`mcpwire: ${file}: ${parsed.badLines.length} unreadable line(s) skipped (line ${shown}${parsed.badLines.length > 5 ? ', …' : ''})\n`);
  }
}

function useColor(values: { color?: boolean; 'no-color'?: boolean }): boolean {
  if (values['no-color']) return false;
  if (values.color) return true;
  return process.stdout.isTTY === true && !process.env.NO_COLOR;
}

/** `run.jsonl` → `run.html` beside it. */
export function htmlPathFor(file: string): string {
  const ext = extname(file);
  return join(dirname(file), `${basename(file, ext === '.html' ? '' : ext)}.html`);
}

async function follow(file: string, color: boolean): Promise<number> {
  const tap = await loadTap();
  const ctrl = new AbortController();
  const stop = () => ctrl.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  process.stdout.on('error', stop); // piped into head: stop quietly
  // Wall-clock times: a followed file is often written by several processes (taps), whose `t` clocks differ.
  const render = tap.createShowRenderer({ color, wallClock: true });
  await tap.followTrace(
    file,
    (records) => {
      const lines = records.map(render);
      if (!ctrl.signal.aborted) process.stdout.write(`${lines.join('\n')}\n`);
    },
    { signal: ctrl.signal },
  );
  process.off('SIGINT', stop);
  process.off('SIGTERM', stop);
  return 0;
}

export default async function trace(argv: string[]): Promise<number> {
  try {
    const { values, positionals } = parse(argv);
    const [sub, file, ...extra] = positionals;
    if (values.help || !sub) {
      process.stdout.write(`${USAGE}\n`);
      return values.help ? 0 : 2;
    }
    if (!['show', 'stats', 'html', 'diff'].includes(sub)) throw new UsageError(`unknown trace subcommand "${sub}"`);
    if (!file) throw new UsageError(`trace ${sub} needs a trace file`);
    if (sub === 'diff') {
      if (extra.length !== 1) throw new UsageError('trace diff needs two trace files');
      const [a, b] = await Promise.all([readTraceFile(file), readTraceFile(extra[0])]);
      warnings(file, a);
      warnings(extra[0], b);
      const tap = await loadTap();
      const d = tap.diffTraces(a.records, b.records, { server: values.server });
      process.stdout.write(values.json ? `${JSON.stringify(d, null, 2)}\n` : `${tap.formatDiff(d, tap.safeText)}\n`);
      return d.same ? 0 : 1;
    }
    if (extra.length) throw new UsageError(`unexpected argument "${extra[0]}"`);
    if (sub === 'show' && values.follow) return await follow(file, useColor(values));
    const parsed = await readTraceFile(file);
    warnings(file, parsed);
    if (sub === 'show') {
      const text = renderShow(parsed.records, { color: useColor(values) });
      process.stdout.write(text ? `${text}\n` : '');
    } else if (sub === 'stats') {
      const stats = computeStats(parsed.records);
      process.stdout.write(values.json ? `${JSON.stringify(stats, null, 2)}\n` : `${formatStats(stats)}\n`);
    } else {
      const html = renderHtml(parsed.records, { title: basename(file), truncated: parsed.truncated });
      if (values.output === '-') {
        process.stdout.write(html);
      } else {
        const out = values.output ?? htmlPathFor(file);
        await writeFile(out, html, { mode: 0o600 });
        // The path on stdout (scripts open it); where it came from on stderr only with -o.
        process.stdout.write(`${out}\n`);
      }
    }
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`mcpwire: ${err.message}\n${USAGE}\n`);
      return 2;
    }
    const e = err as NodeJS.ErrnoException;
    process.stderr.write(`mcpwire: ${e.code === 'ENOENT' ? `no such trace file: ${e.path ?? ''}` : e.message}\n`);
    return 1;
  }
}
