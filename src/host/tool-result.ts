/**
 * Bounding tool results for the agent (a returned payload has a size cap; what is over it is cut).
 * Size is measured as the UTF-8 bytes of each content block's JSON. Blocks are kept in order
 * while they fit; the first text block that does not fit is cut to the remaining room; every
 * later block is omitted; a marker text block then says how many bytes and blocks were left
 * out. `structuredContent` larger than its own cap is dropped as a whole (a cut JSON value is
 * not a value) and the marker says so. When content is cut, the marker's room is reserved, so
 * the kept content plus the marker stays within `maxBytes`.
 */
import type { CallToolResult, ContentBlock } from '../mcp/types.js';

/** Default cap on a result's content (256 KiB). */
export const DEFAULT_MAX_RESULT_BYTES = 256 * 1024;
const MARKER_RESERVE = 300;

/** A tool result as handed to the agent. */
export interface ToolResultForAgent {
  content: ContentBlock[];
  structuredContent?: Record<string, unknown>;
  /** The tool reported an error (`isError: true`): the agent sees a failed tool call. */
  isError: boolean;
  /** Present when something was left out. */
  truncated?: { omittedBytes: number; omittedBlocks: number };
}

/** Caps for `boundToolResult`. */
export interface BoundOptions {
  /** Cap on `content` in bytes (default 256 KiB). */
  maxBytes?: number;
  /** Cap on `structuredContent` in bytes (default: `maxBytes`). */
  maxStructuredBytes?: number;
}

const size = (v: unknown): number => Buffer.byteLength(JSON.stringify(v) ?? '', 'utf8');
/** JSON bytes of a content block (how results are measured). */
export const blockBytes = size;

/** Converts a `CallToolResult` into a bounded `ToolResultForAgent` (see the module comment). */
export function boundToolResult(result: CallToolResult, options: BoundOptions = {}): ToolResultForAgent {
  return boundWithResume(result, options).result;
}

/** Where a cut result stops: the first block not kept whole, and how many of its characters were kept. */
export interface ResumePoint {
  block: number;
  char: number;
}

/**
 * `boundToolResult`, also saying where the kept content stops (`resume`, when content was cut)
 * and whether `structuredContent` was dropped — what `result-pages.ts` needs to serve the rest.
 * `marker(text)` may add to the truncation marker (e.g. how to read the rest).
 */
export function boundWithResume(
  result: CallToolResult,
  options: BoundOptions = {},
  markerSuffix?: string,
): { result: ToolResultForAgent; resume?: ResumePoint; structuredDropped: boolean } {
  let resume: ResumePoint | undefined;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_RESULT_BYTES;
  const maxStructured = options.maxStructuredBytes ?? maxBytes;
  const raw: unknown[] = Array.isArray(result?.content) ? result.content : [];
  const blocks = raw.filter((b): b is ContentBlock => typeof b === 'object' && b !== null);
  const out: ToolResultForAgent = { content: [], isError: result?.isError === true };
  const sizes = blocks.map(size);
  const total = sizes.reduce((a, b) => a + b, 0);
  let omittedBytes = 0;
  let omittedBlocks = 0;
  if (total <= maxBytes) {
    out.content = [...blocks];
  } else {
    let room = Math.max(0, maxBytes - MARKER_RESERVE);
    let cutDone = false;
    blocks.forEach((block, i) => {
      if (!cutDone && sizes[i] <= room) {
        out.content.push(block);
        room -= sizes[i];
        return;
      }
      const cut = !cutDone && block.type === 'text' ? cutText(block, room) : undefined;
      if (!cutDone) resume = { block: i, char: cut?.chars ?? 0 };
      cutDone = true;
      if (cut !== undefined) {
        out.content.push(cut.block);
        omittedBytes += sizes[i] - cut.bytes;
        room -= cut.bytes;
      } else {
        omittedBytes += sizes[i];
        omittedBlocks++;
      }
    });
  }
  let structuredNote = '';
  const sc = result?.structuredContent;
  if (sc !== undefined && sc !== null && typeof sc === 'object') {
    const scBytes = size(sc);
    if (scBytes <= maxStructured) out.structuredContent = sc;
    else {
      omittedBytes += scBytes;
      structuredNote = `; structuredContent (${scBytes} bytes) omitted`;
    }
  }
  if (omittedBytes > 0) {
    out.truncated = { omittedBytes, omittedBlocks };
    out.content.push({ type: 'text', text: marker(omittedBytes, omittedBlocks, maxBytes, structuredNote + (markerSuffix ?? '')) });
  }
  return { result: out, resume, structuredDropped: structuredNote !== '' };
}

/**
 * A tool result with the server's secrets taken out (see `redaction.ts`): every string through
 * `data` (the server's credentials only), and the text blocks of an `isError` result — error text
 * — through `text` (all configured secrets and the credential patterns). Image and audio data are
 * left alone. Returns the same object when nothing changed.
 */
export function redactToolResult<T extends { content?: unknown; structuredContent?: unknown; isError?: unknown }>(
  result: T,
  redaction: { text(s: string): string; data(s: string): string },
): T {
  if (result === null || typeof result !== 'object') return result;
  const asError = result.isError === true;
  const content = Array.isArray(result.content)
    ? mapList(result.content, (block) => {
        if (block === null || typeof block !== 'object') return block;
        const b = block as { type?: unknown; text?: unknown };
        if (b.type === 'image' || b.type === 'audio') return block;
        if (asError && b.type === 'text' && typeof b.text === 'string') {
          const text = redaction.text(redaction.data(b.text));
          return text === b.text ? block : { ...b, text };
        }
        return mapStrings(block, redaction.data, 0);
      })
    : result.content;
  const structured = result.structuredContent === undefined ? undefined : mapStrings(result.structuredContent, redaction.data, 0);
  if (content === result.content && structured === result.structuredContent) return result;
  const out = { ...result, content };
  if (structured !== undefined) out.structuredContent = structured;
  return out;
}

/** Every string of a JSON value (keys too) through `redaction.data`; copies only what changes. */
export function redactData<T>(value: T, redaction: { data(s: string): string }): T {
  return mapStrings(value, redaction.data, 0) as T;
}

function mapList(list: unknown[], fn: (v: unknown) => unknown): unknown[] {
  let out: unknown[] | undefined;
  list.forEach((v, i) => {
    const w = fn(v);
    if (w !== v) out ??= list.slice(0, i);
    if (out !== undefined) out.push(w);
  });
  return out ?? list;
}

/** Every string of a JSON value (keys too) through `fn`; copies only what changes. */
function mapStrings(v: unknown, fn: (s: string) => string, depth: number): unknown {
  if (typeof v === 'string') return fn(v);
  if (v === null || typeof v !== 'object' || depth > 64) return v;
  if (Array.isArray(v)) return mapList(v, (x) => mapStrings(x, fn, depth + 1));
  let out: Record<string, unknown> | undefined;
  const obj = v as Record<string, unknown>;
  const keys = Object.keys(obj);
  keys.forEach((k, i) => {
    const nk = fn(k);
    const nv = mapStrings(obj[k], fn, depth + 1);
    if ((nk !== k || nv !== obj[k]) && out === undefined) {
      out = {};
      for (const prev of keys.slice(0, i)) out[prev] = obj[prev];
    }
    if (out !== undefined) out[nk] = nv;
  });
  return out ?? v;
}

function marker(bytes: number, blocks: number, cap: number, note: string): string {
  return `[mcpwire: result truncated to the ${cap}-byte limit: ${bytes} bytes omitted, ${blocks} content block(s) omitted${note}]`;
}

/** The longest prefix of a text block whose JSON fits in `room` bytes, or undefined if none. */
export function cutText(block: Extract<ContentBlock, { type: 'text' }>, room: number): { block: ContentBlock; bytes: number; chars: number } | undefined {
  const text = typeof block.text === 'string' ? block.text : '';
  const make = (n: number): ContentBlock => ({ ...block, text: safePrefix(text, n) });
  if (size(make(0)) >= room) return undefined;
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (size(make(mid)) <= room) lo = mid;
    else hi = mid - 1;
  }
  if (lo === 0) return undefined;
  const kept = make(lo);
  return { block: kept, bytes: size(kept), chars: (kept as { text: string }).text.length };
}

/** `s.slice(0, n)` without splitting a surrogate pair. */
function safePrefix(s: string, n: number): string {
  const c = s.charCodeAt(n - 1);
  return c >= 0xd800 && c <= 0xdbff ? s.slice(0, n - 1) : s.slice(0, n);
}
