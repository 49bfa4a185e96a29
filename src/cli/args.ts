/**
 * Argument parsing shared by the CLI commands: global options (`--stdio`, `--url`,
 * `--timeout-ms`, `--json`, `--trace`, `--header`, `--config`) and a shell-words splitter for
 * `--stdio "<command line>"`.
 */
import { readFile } from 'node:fs/promises';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { didYouMean } from './suggest.js';

export const GLOBAL_OPTIONS = {
  stdio: { type: 'string' },
  url: { type: 'string' },
  header: { type: 'string', multiple: true },
  /** `--env K=V` / `--env K` (pass the current value) for a `--stdio` server (target.ts). */
  env: { type: 'string', multiple: true },
  'timeout-ms': { type: 'string' },
  'protocol-version': { type: 'string' },
  json: { type: 'boolean' },
  trace: { type: 'string' },
  strict: { type: 'boolean' },
  config: { type: 'string' },
  /** Connect on its own even when `mcpwire daemon` runs (daemon-client.ts). */
  'no-daemon': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies NonNullable<ParseArgsConfig['options']>;

export class UsageError extends Error {}

type Options = NonNullable<ParseArgsConfig['options']>;
/** What `parse` returns for a command with own options `O`. */
export type Parsed<O extends Options> = ReturnType<
  typeof parseArgs<{ args: string[]; options: typeof GLOBAL_OPTIONS & O; allowPositionals: true; strict: true }>
>;

/** Parses argv with the global options plus the command's own. */
export function parse<O extends Options>(argv: string[], own: O): Parsed<O> {
  const options = { ...GLOBAL_OPTIONS, ...own };
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (err) {
    const e = err as Error & { code?: string };
    const unknown = e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /'(-[^']*)'/.exec(e.message)?.[1] : undefined;
    if (unknown !== undefined) {
      const name = unknown.replace(/^-+/, '').split('=')[0];
      throw new UsageError(`unknown option "${unknown}"${didYouMean(name, Object.keys(options), (o) => `"--${o}"`)}`);
    }
    throw new UsageError(e.message);
  }
}

/** Splits a command line like a POSIX shell would (quotes and backslashes; no expansion). */
export function splitCommandLine(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let has = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quote === "'") {
      if (ch === "'") quote = undefined;
      else cur += ch;
    } else if (quote === '"') {
      if (ch === '"') quote = undefined;
      else if (ch === '\\' && i + 1 < line.length && '"\\$`'.includes(line[i + 1])) cur += line[++i];
      else cur += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      has = true;
    } else if (ch === '\\' && i + 1 < line.length) {
      cur += line[++i];
      has = true;
    } else if (/\s/.test(ch)) {
      if (has || cur) out.push(cur);
      cur = '';
      has = false;
    } else {
      cur += ch;
    }
  }
  if (quote) throw new UsageError(`unterminated ${quote} quote in command line`);
  if (has || cur) out.push(cur);
  return out;
}

/** The inverse of splitCommandLine: each argument quoted for a POSIX shell where it needs it. */
export function joinCommandLine(args: readonly string[]): string {
  return args.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}

/**
 * `k=v` pairs from repeated options. For `--header`, the HTTP form `Name: value` is accepted too
 * (a `:` before any `=`), as curl takes it. An error never echoes the value (it may be a secret).
 */
export function keyValues(list: string[] | undefined, what: string): Record<string, string> {
  const out: Record<string, string> = {};
  (list ?? []).forEach((kv, n) => {
    const eq = kv.indexOf('=');
    const colon = what === '--header' ? kv.indexOf(':') : -1;
    if (colon > 0 && (eq < 0 || colon < eq)) {
      out[kv.slice(0, colon).trim()] = kv.slice(colon + 1).trim();
      return;
    }
    if (eq <= 0) throw new UsageError(`${what} must look like ${what === '--header' ? '"Name: value" or Name=value' : '<key>=<value>'} (occurrence ${n + 1})`);
    out[kv.slice(0, eq)] = kv.slice(eq + 1);
  });
  return out;
}

export function parseTimeout(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`--timeout-ms must be a positive number (got "${v}")`);
  return n;
}

export function parseJsonObject(text: string | undefined, what: string): Record<string, unknown> {
  if (text === undefined) return {};
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${what} is not valid JSON: ${(err as Error).message}`);
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw new UsageError(`${what} must be a JSON object`);
  return v as Record<string, unknown>;
}

/**
 * The text of `--args`: inline JSON, `@file.json` (read from that file) or `-` (read from
 * stdin). Undefined when not given.
 */
export async function argsText(value: string | undefined, stdin: NodeJS.ReadableStream = process.stdin): Promise<string | undefined> {
  if (value === undefined) return undefined;
  if (value === '-') {
    const chunks: Buffer[] = [];
    for await (const c of stdin) chunks.push(typeof c === 'string' ? Buffer.from(c) : (c as Buffer));
    return Buffer.concat(chunks).toString('utf8');
  }
  if (value.startsWith('@')) {
    try {
      return await readFile(value.slice(1), 'utf8');
    } catch (err) {
      throw new UsageError(`--args ${value}: cannot read the file (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
    }
  }
  return value;
}
