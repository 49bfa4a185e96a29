/**
 * File syntaxes other than plain JSON, converted to JSON text before the (synchronous) layer
 * parsers see them: the native format as YAML (`.yaml`/`.yml`), Codex's TOML
 * (`config.toml`) and OpenCode's JSONC (`opencode.json[c]`: comments and trailing commas). The
 * `yaml` and `smol-toml` packages are imported lazily, only when such a file exists.
 *
 * Parse errors are reported by line and column only: the parsers' own messages quote the text
 * around the error, and the text may hold a secret.
 */
import { existsSync } from 'node:fs';
import { parseJsonText } from './diagnostics.js';

/** How a file's text is written. */
export type FileSyntax = 'json' | 'jsonc' | 'yaml' | 'toml';

/** The syntax of a native config file, from its extension. */
export function nativeSyntax(file: string): 'json' | 'yaml' {
  return /\.ya?ml$/i.test(file) ? 'yaml' : 'json';
}

/**
 * The native file to read or edit for `file` (a `.json` path): `file` itself when it exists or
 * when no YAML sibling does, else its `.yaml` (then `.yml`) sibling. So a project may keep
 * `.mcpwire/config.yaml` instead of `config.json`, and `mcp add` edits that file.
 */
export function nativeFile(file: string, exists: (f: string) => boolean = existsSync): string {
  if (!/\.json$/i.test(file) || exists(file)) return file;
  for (const ext of ['.yaml', '.yml']) {
    const alt = file.replace(/\.json$/i, ext);
    if (exists(alt)) return alt;
  }
  return file;
}

/** Converts `text` of the given syntax to JSON text, or says where it is broken. */
export async function toJsonText(text: string, syntax: FileSyntax): Promise<{ ok: true; text: string } | { ok: false; message: string }> {
  if (syntax === 'json') return { ok: true, text };
  if (syntax === 'jsonc') {
    const stripped = stripJsonc(text);
    const parsed = parseJsonText(stripped);
    return parsed.ok ? { ok: true, text: stripped } : { ok: false, message: parsed.message.replace('JSON', 'JSON (with comments)') };
  }
  if (syntax === 'yaml') {
    const YAML = await import('yaml');
    const doc = YAML.parseDocument(text, { uniqueKeys: true, prettyErrors: true });
    const err = doc.errors[0];
    if (err !== undefined) {
      const pos = err.linePos?.[0];
      const what = err.code === 'DUPLICATE_KEY' ? 'a key is defined twice' : 'syntax error';
      // YAML reserves "@" and "`" at the start of a plain value (`command: @scope/server`)
      const hint = err.code === 'BAD_SCALAR_START' ? ': a value starting with "@" or "`" must be quoted, e.g. command: "@scope/server"' : '';
      return { ok: false, message: `not valid YAML (${what}${pos ? ` at line ${pos.line}, column ${pos.col}` : ''}${hint})` };
    }
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: 100 });
    } catch {
      return { ok: false, message: 'not valid YAML (too many aliases)' };
    }
    return { ok: true, text: JSON.stringify(value ?? {}) };
  }
  const { parse } = await import('smol-toml');
  try {
    return { ok: true, text: JSON.stringify(parse(text), (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v)) };
  } catch (err) {
    const e = err as { line?: unknown; column?: unknown };
    const at = typeof e.line === 'number' && typeof e.column === 'number' ? ` at line ${e.line}, column ${e.column}` : '';
    return { ok: false, message: `not valid TOML (syntax error${at})` };
  }
}

/**
 * JSONC → JSON: removes `//` and block comments and trailing commas before `}` or `]`, outside
 * strings. Line breaks are kept, so JSON error positions still point at the right line.
 */
export function stripJsonc(text: string): string {
  let out = '';
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (j < n && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < n && text[i] !== '\n') i++;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end < 0 ? n : end + 2;
      out += text.slice(i, stop).replace(/[^\n]/g, ' ');
      i = stop;
    } else if (c === ',') {
      let j = i + 1;
      // Skip whitespace and comments to see whether a closing bracket follows.
      for (;;) {
        while (j < n && /\s/.test(text[j])) j++;
        if (text[j] === '/' && text[j + 1] === '/') {
          while (j < n && text[j] !== '\n') j++;
        } else if (text[j] === '/' && text[j + 1] === '*') {
          const end = text.indexOf('*/', j + 2);
          j = end < 0 ? n : end + 2;
        } else break;
      }
      out += text[j] === '}' || text[j] === ']' ? ' ' : ',';
      i++;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}
