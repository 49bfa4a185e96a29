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
import { capText, sanitizeText } from '../text.js';
import type { AdaptedTool } from '../tools.js';
import { splitWords, termsOf, termOf } from './words.js';

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
  /** Parameter names (split into words), their descriptions and string choices (`enum`, `const`), nested objects' too. */
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

/** Printable ASCII only: nothing for `sanitizeText` to strip or collapse. */
const PLAIN = /^[\x20-\x7e]*$/;

/** `sanitizeText` of a field; text with nothing to strip (most of it) is only trimmed and capped, without its four rewrites. */
function clean(s: string, max: number): string {
  return PLAIN.test(s) ? capText(s.trim(), max) : sanitizeText(s, max);
}

function capped(s: unknown): string {
  return typeof s === 'string' ? clean(s, MAX_FIELD_CHARS) : '';
}

/** Identifiers already split (parameter names and server ids repeat across a catalog's tools); bounded. */
const spacedCache = new Map<string, string>();

/** An identifier's words, joined by spaces (`record_id` → `record id`). */
function spaced(identifier: string): string {
  let out = spacedCache.get(identifier);
  if (out === undefined) {
    out = splitWords(identifier).join(' ');
    if (spacedCache.size >= MAX_CACHED_FIELDS) spacedCache.clear();
    if (identifier.length <= MAX_CACHED_CHARS) spacedCache.set(identifier, out);
  }
  return out;
}

/** Parameter names, descriptions and string choices, depth-first, nested objects and array items included. */
function paramText(schema: unknown, out: string[], depth = 0, budget = { left: MAX_FIELD_CHARS }): void {
  if (depth > 3 || typeof schema !== 'object' || schema === null || budget.left <= 0) return;
  const s = schema as Record<string, unknown>;
  const props = s.properties;
  if (typeof props === 'object' && props !== null) {
    for (const name of Object.keys(props)) {
      const sub = (props as Record<string, unknown>)[name];
      const desc = typeof sub === 'object' && sub !== null ? (sub as { description?: unknown }).description : undefined;
      const piece = `${spaced(name)} ${typeof desc === 'string' ? desc : ''}${valuesOf(sub)}`.slice(0, budget.left);
      budget.left -= piece.length;
      out.push(piece);
      paramText(sub, out, depth + 1, budget);
    }
  }
  if (typeof s.items === 'object') paramText(s.items, out, depth + 1, budget);
}

/** Values of a parameter's `enum` indexed (the first this many strings; the field's cap bounds them too). */
const MAX_ENUM_VALUES = 50;

/**
 * A parameter's string values (`enum`, `const`), each after a space: a tool's choices are often
 * the very words a user says ("dark", "Slow 3G", "landscape") while its descriptions say only
 * "the color scheme" or "throttle network".
 */
function valuesOf(schema: unknown): string {
  if (typeof schema !== 'object' || schema === null) return '';
  const s = schema as { enum?: unknown; const?: unknown };
  let out = '';
  if (Array.isArray(s.enum)) for (const v of s.enum.slice(0, MAX_ENUM_VALUES)) if (typeof v === 'string') out += ` ${v}`;
  if (typeof s.const === 'string') out += ` ${s.const}`;
  return out;
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
    // one string for a text many tools share (the index keeps each tool's text)
    params: shared(clean(params.join(' '), MAX_FIELD_CHARS), MARKED_FIELDS.has('params'), paramsCache).text,
    server: shared(`${spaced(tool.server)} ${capped(entry.serverTitle)}`.trim(), MARKED_FIELDS.has('server'), serverCache).text,
  };
}

/** Fields whose words are indexed with their synonym marks too (a parameter's or the server's words with their stems only). */
export const MARKED_FIELDS: ReadonlySet<string> = new Set(['name', 'title', 'description', 'server']);

/** A document as index terms: each field its list of terms (what the engine indexes; see `tool-index.ts`). */
export interface TermDocument {
  id: string;
  name: readonly string[];
  title: readonly string[];
  description: readonly string[];
  params: readonly string[];
  server: readonly string[];
}

/**
 * Terms of parameter and server texts already seen: catalogs repeat them — a parameter's name and
 * description on every tool that takes it, a server's words on each of its tools —, so they are
 * split and stemmed once. (Names and descriptions are a tool's own: caching them costs more than
 * it saves.) Bounded (cleared when full, like the words' caches); the lists are shared, never changed.
 */
const paramsCache = new Map<string, SharedField>();
const serverCache = new Map<string, SharedField>();
const MAX_CACHED_FIELDS = 10_000;
/** Texts longer than this are not kept (a cache of long texts would hold megabytes). */
const MAX_CACHED_CHARS = 1000;

/** A text many tools may share, once, and its terms. */
interface SharedField {
  text: string;
  terms: readonly string[];
}

/** `text` and its terms from `cache`, or made and kept there (see `paramsCache`). */
function shared(text: string, marked: boolean, cache: Map<string, SharedField>): SharedField {
  const known = cache.get(text);
  if (known !== undefined) return known;
  const field = { text, terms: fieldTerms(text, marked) };
  if (text.length <= MAX_CACHED_CHARS) {
    if (cache.size >= MAX_CACHED_FIELDS) cache.clear();
    cache.set(text, field);
  }
  return field;
}

/** A field's text as index terms (see `MARKED_FIELDS`). */
function fieldTerms(text: string, marked: boolean): string[] {
  const out: string[] = [];
  for (const w of splitWords(text)) {
    if (marked) {
      const ts = termsOf(w);
      if (ts !== null) for (const t of ts) out.push(t);
    } else {
      const t = termOf(w);
      if (t !== null) out.push(t);
    }
  }
  return out;
}

/** The document as index terms, field by field (lists may be shared with other documents: never change them). */
export function termDocument(d: ToolDocument): TermDocument {
  const name = fieldTerms(d.name, MARKED_FIELDS.has('name'));
  return {
    id: d.id,
    name,
    title: fieldTerms(d.title, MARKED_FIELDS.has('title')),
    description: fieldTerms(d.description, MARKED_FIELDS.has('description')),
    // a parameter named after the tool's own object (`channel_id` of `get_channel`) says nothing
    // the name does not: its words count in the name only, so a family of tools about one noun
    // does not outrank, on that noun repeated, a tool matching the request's verb
    params: without(shared(d.params, MARKED_FIELDS.has('params'), paramsCache).terms, name),
    server: shared(d.server, MARKED_FIELDS.has('server'), serverCache).terms,
  };
}

/** `terms` less those in `name` (the very list when none is, so a shared list stays shared). */
function without(terms: readonly string[], name: readonly string[]): readonly string[] {
  let i = 0;
  while (i < terms.length && !name.includes(terms[i]!)) i++;
  if (i === terms.length) return terms;
  return terms.filter((t) => !name.includes(t));
}

/** A document's term lists, field by field. */
export function termFields(doc: TermDocument): readonly (readonly string[])[] {
  return [doc.name, doc.title, doc.description, doc.params, doc.server];
}

/** True when two documents index the same text. */
export function sameDocument(a: ToolDocument, b: ToolDocument): boolean {
  return a.name === b.name && a.title === b.title && a.description === b.description && a.params === b.params && a.server === b.server;
}
