/**
 * The tool adapter: MCP tools of many servers → one catalog of agent tools with
 * public names (`tool-names.ts`), origin-naming sanitized descriptions, checked parameters
 * (`tool-schema.ts`) and a reverse lookup from public name to (server, tool). Pure: no I/O.
 *
 * Decisions:
 * - An oversized `inputSchema` (default cap 64 KiB) is exposed with the fallback schema by
 *   default (`oversizedSchema: 'fallback'`): the tool stays usable and the server still
 *   validates arguments. `oversizedSchema: 'omit'` leaves the tool out instead.
 * - A tool name listed twice by one server is exposed once (the first); `tools/call` could
 *   not tell the two apart anyway.
 * - Tools are ordered by (server id, tool name), so the catalog — and a prompt built from it —
 *   does not change when a server reorders its list.
 * - A tool the server's config denies (`permissions.deny`, `ServerTools.deny`) is left out of
 *   the catalog's `tools` (never offered, listed or counted). It keeps its public
 *   name in `byName`, so a call by that name is still refused as `config-deny` (not "unknown"),
 *   and the other tools' names do not change when the deny list does.
 */
import type { Tool, ToolAnnotations } from '../mcp/types.js';
import { matchesAny } from './permissions.js';
import { isModelVisible } from '../mcp/ui-meta.js';
import { HOST_TOOL_NAMES } from './host-tools.js';
import { sanitizeText } from './text.js';
import { assignToolNames, sha256Hex, type HashHex, type NameRequest } from './tool-names.js';
import { DEFAULT_MAX_SCHEMA_BYTES, toolParameters } from './tool-schema.js';

/** A tool as handed to the agent. */
export interface AdaptedTool {
  /** Public name, `mcp_<serverId>_<toolSlug>_<hash8>`. */
  name: string;
  /** `MCP <server>/<tool>` plus the server's sanitized, capped description. */
  description: string;
  /** JSON Schema of the arguments (the tool's own or the fallback). */
  parameters: Record<string, unknown>;
  /** Server id. */
  server: string;
  /** The tool's original name, for `tools/call`. */
  tool: string;
  /** Hints from the server, untrusted: never grant anything on their basis alone. */
  annotations?: ToolAnnotations;
  /**
   * The tool's `outputSchema` as the server listed it (an object schema within the schema cap;
   * left out otherwise): what its `structuredContent` conforms to. A result the host cut for size
   * has no `structuredContent` (see `resultId`), so check for it before validating.
   */
  outputSchema?: Record<string, unknown>;
}

/** Something the adapter noticed about one tool. */
export interface ToolDiagnostic {
  severity: 'error' | 'warning';
  code: 'schema_invalid' | 'schema_too_large' | 'schema_warning' | 'duplicate_tool' | 'invalid_tool';
  server: string;
  tool?: string;
  message: string;
  /** Whether the tool is in the catalog despite the problem. */
  exposed: boolean;
}

/** The tools one server listed. */
export interface ServerTools {
  server: string;
  tools: readonly Tool[];
  /** Tool-name patterns denied by config (`permissions.deny`, `*` wildcards): not in the catalog. */
  deny?: readonly string[];
}

/** The adapted catalog. */
export interface ToolCatalog {
  tools: AdaptedTool[];
  /** Reverse lookup: public name → server id and the original tool. */
  byName: Map<string, { server: string; tool: Tool }>;
  diagnostics: ToolDiagnostic[];
}

/** Options of `adaptTools`. */
export interface AdaptOptions {
  /** Cap on a serialized inputSchema in bytes (default 64 KiB). */
  maxSchemaBytes?: number;
  /** What to do with a tool whose schema is over the cap (default `fallback`). */
  oversizedSchema?: 'fallback' | 'omit';
  /** Cap on the server's description in characters (default 2000). */
  maxDescriptionChars?: number;
  /** Names to avoid besides the host tools. */
  reservedNames?: Iterable<string>;
  /** Hash for public names (default sha256; tests inject collisions). */
  hash?: HashHex;
}

/** Builds the catalog of adapted tools for all `servers` (see the module comment). */
export function adaptTools(servers: readonly ServerTools[], options: AdaptOptions = {}): ToolCatalog {
  const diagnostics: ToolDiagnostic[] = [];
  const requests: (NameRequest & { tool: Tool; denied: boolean })[] = [];
  for (const s of servers) {
    const seen = new Set<string>();
    for (const tool of s.tools) {
      const name = (tool as { name?: unknown } | null)?.name;
      if (typeof name !== 'string' || name === '') {
        diagnostics.push({ severity: 'error', code: 'invalid_tool', server: s.server, message: 'tool without a name skipped', exposed: false });
      } else if (seen.has(name)) {
        diagnostics.push({ severity: 'warning', code: 'duplicate_tool', server: s.server, tool: name, message: `tool "${label(name)}" listed more than once; the first is used`, exposed: false });
      } else {
        seen.add(name);
        const denied = s.deny !== undefined && s.deny.length > 0 && matchesAny(name, s.deny);
        requests.push({ serverId: s.server, toolName: name, tool, denied });
      }
    }
  }
  const taken = [...Object.values(HOST_TOOL_NAMES), ...(options.reservedNames ?? [])];
  const names = assignToolNames(requests, taken, options.hash ?? sha256Hex);
  const catalog: ToolCatalog = { tools: [], byName: new Map(), diagnostics };
  for (const [req, publicName] of names) {
    const r = req as NameRequest & { tool: Tool; denied: boolean };
    // Denied, and app-only tools (MCP Apps: "MUST NOT include tools in the agent's tool list when
    // their visibility does not include model"): findable by name, so a call is refused with the
    // reason (and a view's call can still reach an app-only tool), never listed.
    if (r.denied || !isModelVisible(r.tool)) {
      catalog.byName.set(publicName, { server: r.serverId, tool: r.tool });
      continue;
    }
    const adapted = adaptOne(r.serverId, r.tool, publicName, options, diagnostics);
    if (adapted === undefined) continue;
    catalog.tools.push(adapted);
    catalog.byName.set(publicName, { server: r.serverId, tool: r.tool });
  }
  return catalog;
}

function adaptOne(server: string, tool: Tool, name: string, o: AdaptOptions, diagnostics: ToolDiagnostic[]): AdaptedTool | undefined {
  const schema = toolParameters(tool.inputSchema, o.maxSchemaBytes ?? DEFAULT_MAX_SCHEMA_BYTES);
  const omit = schema.status === 'too_large' && o.oversizedSchema === 'omit';
  if (schema.status !== 'ok') {
    const code = schema.status === 'too_large' ? 'schema_too_large' : schema.status === 'invalid' ? 'schema_invalid' : 'schema_warning';
    const what = omit ? 'tool not exposed' : schema.status === 'warning' ? 'schema used' : 'fallback schema used';
    diagnostics.push({
      severity: schema.status === 'warning' ? 'warning' : 'error',
      code,
      server,
      tool: tool.name,
      message: `tool "${label(tool.name)}": ${sanitizeText(schema.message, 400, true)}; ${what}`,
      exposed: !omit,
    });
  }
  if (omit) return undefined;
  const adapted: AdaptedTool = { name, description: toolDescription(server, tool, o.maxDescriptionChars ?? 2000), parameters: schema.parameters, server, tool: tool.name };
  const annotations = safeAnnotations(tool.annotations);
  if (annotations !== undefined) adapted.annotations = annotations;
  const output = outputSchemaOf(tool.outputSchema, o.maxSchemaBytes ?? DEFAULT_MAX_SCHEMA_BYTES);
  if (output !== undefined) adapted.outputSchema = output;
  return adapted;
}

/** An `outputSchema` worth passing on: an object schema (server.tools) no larger than the cap. */
function outputSchemaOf(schema: unknown, maxBytes: number): Record<string, unknown> | undefined {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return undefined;
  if ((schema as { type?: unknown }).type !== 'object') return undefined;
  let text: string;
  try {
    text = JSON.stringify(schema);
  } catch {
    return undefined;
  }
  return Buffer.byteLength(text, 'utf8') <= maxBytes ? (schema as Record<string, unknown>) : undefined;
}

/** `MCP <server>/<tool>` then the server's description (untrusted: sanitized and capped). */
export function toolDescription(server: string, tool: Tool, maxChars: number): string {
  const title = sanitizeText(tool.title ?? tool.annotations?.title, 200, true);
  const origin = `MCP ${label(server)}/${label(tool.name)}${title ? ` (${title})` : ''}`;
  const desc = sanitizeText(tool.description, maxChars);
  return desc ? `${origin}\n${desc}` : origin;
}

function label(s: string): string {
  return sanitizeText(s, 128, true);
}

const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;

/** Keeps only well-typed known annotation fields (sanitized title, boolean hints). */
function safeAnnotations(a: unknown): ToolAnnotations | undefined {
  if (typeof a !== 'object' || a === null) return undefined;
  const src = a as Record<string, unknown>;
  const out: ToolAnnotations = {};
  if (typeof src.title === 'string') out.title = sanitizeText(src.title, 200, true);
  for (const h of HINTS) if (typeof src[h] === 'boolean') out[h] = src[h] as boolean;
  return Object.keys(out).length > 0 ? out : undefined;
}

export { boundToolResult, DEFAULT_MAX_RESULT_BYTES, type BoundOptions, type ToolResultForAgent } from './tool-result.js';
export { FALLBACK_PARAMETERS, DEFAULT_MAX_SCHEMA_BYTES, toolParameters, type SchemaResult } from './tool-schema.js';
export { MAX_TOOL_NAME_LENGTH, publicToolName, toolNameHash, toolSlug, assignToolNames, sha256Hex, type HashHex, type NameRequest } from './tool-names.js';
export { HOST_TOOL_NAMES, hostToolDefinitions, isHostToolName, parseHostToolArgs, type HostToolCall, type HostToolDefinition, type HostToolName } from './host-tools.js';
export { hostToolError, promptGetResult, promptsListResult, resourceReadResult, resourcesListResult, encodeCursor, DEFAULT_LIST_PAGE_SIZE, type ListOptions } from './host-tool-results.js';
