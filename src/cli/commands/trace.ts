/**
 * `mcpwire trace show <file> [--color|--no-color]` — readable timeline
 * `mcpwire trace stats <file> [--json]` — per-method counts, errors, latency percentiles
 * `mcpwire trace html <file> [-o out.html]` — one self-contained HTML page (stdout without -o)
 */
import { writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { computeStats, formatStats, readTrace, renderHtml, renderShow, type ParsedTrace } from '../../index.js';

const USAGE = `usage:
  mcpwire trace show <file> [--color|--no-color]
  mcpwire trace stats <file> [--json]
  mcpwire trace html <file> [-o out.html]`;

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
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
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

export default async function trace(argv: string[]): Promise<number> {
  try {
    const { values, positionals } = parse(argv);
    const [sub, file, ...extra] = positionals;
    if (values.help || !sub) {
      process.stdout.write(`${USAGE}\n`);
      return values.help ? 0 : 2;
    }
    if (!['show', 'stats', 'html'].includes(sub)) throw new UsageError(`unknown trace subcommand "${sub}"`);
    if (!file) throw new UsageError(`trace ${sub} needs a trace file`);
    if (extra.length) throw new UsageError(`unexpected argument "${extra[0]}"`);
    const parsed = await readTrace(file);
    warnings(file, parsed);
    if (sub === 'show') {
      const text = renderShow(parsed.records, { color: useColor(values) });
      process.stdout.write(text ? `${text}\n` : '');
    } else if (sub === 'stats') {
      const stats = computeStats(parsed.records);
      process.stdout.write(values.json ? `${JSON.stringify(stats, null, 2)}\n` : `${formatStats(stats)}\n`);
    } else {
      const html = renderHtml(parsed.records, { title: basename(file), truncated: parsed.truncated });
      if (values.output) {
        await writeFile(values.output, html);
        process.stderr.write(`mcpwire: wrote ${values.output}\n`);
      } else {
        process.stdout.write(html);
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
