/**
 * Import formats, read-only: the `mcpServers` map of Claude Desktop
 * (`claude_desktop_config.json`), Claude Code (`.mcp.json`) and Cursor (`.cursor/mcp.json`),
 * and the `servers` map of VS Code (`.vscode/mcp.json`). Each entry is converted to the
 * native shape (then validated like a native entry) after variable expansion (`expand.ts`).
 *
 * Mapping: `type: "stdio"` → stdio; `"http"` (alias `"streamable-http"`) → http; `"sse"` →
 * http with `legacySse`. Without `type`, `url` means http and `command` means stdio. A
 * `disabled: true` (Claude Desktop/Cline) or `enabled: false` disables the entry. Other keys
 * (`autoApprove`, `envFile`, …) belong to other tools and are ignored (`envFile` with a
 * warning, since its variables would be missing).
 */
import { expandEntry, type ExpandContext } from './expand.js';
import { isPlainObject, type EntryIssue } from './schema.js';

/** `mcpServers` (Claude Desktop / Claude Code / Cursor) or `vscode` (`servers`). */
export type ImportFormat = 'mcpServers' | 'vscode';

/** An import file to read, with its format. */
export interface ImportFile {
  path: string;
  format: ImportFormat;
  /**
   * Whether the file belongs to the project (its servers need trust). Default: true when the
   * file is inside the project directory (`cwd`).
   */
  project?: boolean;
}

/** One converted entry: native-shaped, plus what went wrong. */
export interface ConvertedEntry {
  entry: Record<string, unknown>;
  legacySse: boolean;
  /** Problems that disable the entry. */
  issues: EntryIssue[];
  /** Problems that do not. */
  warnings: EntryIssue[];
}

const COPIED = ['command', 'args', 'cwd', 'env', 'url', 'headers'] as const;

/** Converts one import entry to the native shape and expands its variables. */
export function convertImportEntry(raw: unknown, format: ImportFormat, ctx: ExpandContext): ConvertedEntry {
  const out: ConvertedEntry = { entry: {}, legacySse: false, issues: [], warnings: [] };
  if (!isPlainObject(raw)) {
    out.issues.push({ field: '', message: 'entry must be an object' });
    return out;
  }
  const kind = transportOf(raw);
  if (kind === undefined) {
    out.issues.push({ field: 'type', message: 'unknown or missing "type" (expected "stdio", "http" or "sse", or a "command" or "url")' });
  } else {
    out.entry.transport = kind === 'sse' ? 'http' : kind;
    out.legacySse = kind === 'sse';
  }
  for (const k of COPIED) if (raw[k] !== undefined) out.entry[k] = structuredClone(raw[k]);
  if (raw.disabled === true || raw.enabled === false) out.entry.enabled = false;
  if (raw.envFile !== undefined) out.warnings.push({ field: 'envFile', message: 'not supported; its variables are not loaded' });
  out.issues.push(...expandEntry(out.entry, format, ctx));
  return out;
}

function transportOf(raw: Record<string, unknown>): 'stdio' | 'http' | 'sse' | undefined {
  const t = raw.type ?? raw.transport;
  if (t === undefined) {
    if (typeof raw.url === 'string' && raw.command === undefined) return 'http';
    if (typeof raw.command === 'string' && raw.url === undefined) return 'stdio';
    return undefined;
  }
  if (t === 'stdio' || t === 'http' || t === 'sse') return t;
  if (t === 'streamable-http' || t === 'streamableHttp') return 'http';
  return undefined;
}
