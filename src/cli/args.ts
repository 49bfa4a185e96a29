/**
 * Argument parsing shared by the CLI commands: global options (`--stdio`, `--url`,
 * `--timeout-ms`, `--json`, `--trace`, `--header`, `--config`) and a shell-words splitter for
 * `--stdio "<command line>"`.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

export const GLOBAL_OPTIONS = {
  stdio: { type: 'string' },
  url: { type: 'string' },
  header: { type: 'string', multiple: true },
  'timeout-ms': { type: 'string' },
  json: { type: 'boolean' },
  trace: { type: 'string' },
  strict: { type: 'boolean' },
  config: { type: 'string' },
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
  try {
    return parseArgs({ args: argv, options: { ...GLOBAL_OPTIONS, ...own }, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message);
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

/** `k=v` pairs from repeated options. */
export function keyValues(list: string[] | undefined, what: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const kv of list ?? []) {
    const i = kv.indexOf('=');
    if (i <= 0) throw new UsageError(`${what} must look like key=value (got "${kv}")`);
    out[kv.slice(0, i)] = kv.slice(i + 1);
  }
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
