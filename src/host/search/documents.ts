/**
 * What tool search indexes of one tool: a document of plain text fields built from the adapted
 * tool (its public name, parameters as the host lists them, annotations) and the tool as the
 * server listed it (name, title, description, `_meta`). Server text is untrusted: every field is
 * sanitized and capped (`MAX_FIELD_CHARS`), so a server cannot grow the index without bound.
 *
 * App-only tools: the MCP Apps extension marks a tool the model must not see with
 * `_meta.ui.visibility` lacking `"model"` (e.g. `["app"]`); such a tool is indexed nowhere
 * (`isModelVisible`, src/mcp/ui-meta.ts). A missing or malformed `visibility` is the default, visible to the model.
 */
import type { Tool } from '../../mcp/types.js';
import { sanitizeText } from '../text.js';
import type { AdaptedTool } from '../tools.js';
import { splitWords } from './words.js';

/** Cap on the characters of one indexed field of one tool. */
export const MAX_FIELD_CHARS = 4000;

/** The indexed text of one tool. */
export interface ToolDocument {
  /** The tool's public name (the index's id). */
  id: string;
  /** The tool's own name split into words, plus the public name's words. */
  name: string;
  /** The tool's title (or annotations.title). */
  title: string;
  description: string;
  /** Parameter names (split into words) and their descriptions, nested objects' too. */
  params: string;
  /** The server's id (split) and its title or name. */
  server: string;
}

/** The search's view of a catalog entry. */
export interface IndexedTool {
  tool: AdaptedTool;
  /** The tool as its server listed it (for title, description, `_meta`). */
  original?: Tool;
  /** The server's title or name as it introduced itself, when known. */
  serverTitle?: string;
}

function capped(s: unknown): string {
  return sanitizeText(typeof s === 'string' ? s : '', MAX_FIELD_CHARS);
}

/** Parameter names and descriptions, depth-first, nested objects and array items included. */
function paramText(schema: unknown, out: string[], depth = 0, budget = { left: MAX_FIELD_CHARS }): void {
  if (depth > 3 || typeof schema !== 'object' || schema === null || budget.left <= 0) return;
  const s = schema as Record<string, unknown>;
  const props = s.properties;
  if (typeof props === 'object' && props !== null) {
    for (const [name, sub] of Object.entries(props as Record<string, unknown>)) {
      const desc = typeof sub === 'object' && sub !== null ? (sub as { description?: unknown }).description : undefined;
      const piece = `${splitWords(name).join(' ')} ${typeof desc === 'string' ? desc : ''}`.slice(0, budget.left);
      budget.left -= piece.length;
      out.push(piece);
      paramText(sub, out, depth + 1, budget);
    }
  }
  if (typeof s.items === 'object') paramText(s.items, out, depth + 1, budget);
}

/** The document of one tool (see the module comment). */
export function toolDocument(entry: IndexedTool): ToolDocument {
  const { tool, original } = entry;
  const params: string[] = [];
  paramText(tool.parameters, params);
  return {
    id: tool.name,
    name: splitWords(capped(tool.tool)).join(' '),
    title: capped(original?.title ?? original?.annotations?.title ?? tool.annotations?.title),
    description: capped(original?.description),
    params: sanitizeText(params.join(' '), MAX_FIELD_CHARS),
    server: `${splitWords(tool.server).join(' ')} ${capped(entry.serverTitle)}`.trim(),
  };
}

/** A key that changes when any indexed text of the document does. */
export function documentKey(d: ToolDocument): string {
  return `${d.name}\0${d.title}\0${d.description}\0${d.params}\0${d.server}`;
}
