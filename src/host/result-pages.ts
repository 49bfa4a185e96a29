/**
 * Cut results the agent can read on (what is cut is kept, and the agent is told where). When a tool result
 * is cut to the host's size cap, the whole (already redacted) result is kept here under a
 * `resultId`, and the truncation marker tells the agent to call `mcp_result_read` with that id
 * and a cursor; each call returns one page (at most `pageBytes`) and the next cursor.
 *
 * Bounds: at most `maxBytes` in total (default 16 MiB) and `maxEntries` results (default 64),
 * least recently used evicted first; each result lives `ttlMs` (default 10 min) after it was
 * stored or last read. A result larger than `maxBytes` on its own is not kept (the marker then
 * gives no handle). An evicted or expired id reads as an error naming why.
 *
 * Pages follow the content in order: a text block is cut where the page is full and continued
 * on the next page; a non-text block larger than a whole page cannot be cut and is skipped with
 * a note. A `structuredContent` that was dropped for size is served as a final JSON text block.
 */
import { randomBytes } from 'node:crypto';
import type { CallToolResult, ContentBlock } from '../mcp/types.js';
import { blockBytes, boundWithResume, cutText, DEFAULT_MAX_RESULT_BYTES, type BoundOptions, type ResumePoint, type ToolResultForAgent } from './tool-result.js';

/** Options of the result store. */
export interface ResultStoreOptions {
  /** Total bytes kept (default 16 MiB). */
  maxBytes?: number;
  /** Results kept (default 64). */
  maxEntries?: number;
  /** Lifetime after storing or the last read (default 10 min). */
  ttlMs?: number;
  /** Clock (default Date.now). */
  now?: () => number;
}

interface Stored {
  id: string;
  server: string;
  tool: string;
  blocks: ContentBlock[];
  bytes: number;
  expiresAt: number;
}

/** One page of a stored result. */
export interface ResultPage {
  content: ContentBlock[];
  nextCursor?: string;
}

const PAGE_RESERVE = 400;

/** The store (see the module comment). */
export class ResultStore {
  private readonly entries = new Map<string, Stored>();
  private total = 0;
  readonly maxBytes: number;
  readonly maxEntries: number;
  readonly ttlMs: number;
  private readonly now: () => number;
  /** Ids evicted for room (not for age), remembered briefly for a clearer error. */
  private readonly evicted = new Set<string>();

  constructor(options: ResultStoreOptions = {}) {
    this.maxBytes = options.maxBytes ?? 16 * 1024 * 1024;
    this.maxEntries = options.maxEntries ?? 64;
    this.ttlMs = options.ttlMs ?? 10 * 60_000;
    this.now = options.now ?? Date.now;
  }

  /** Results kept now and their total bytes. */
  get stats(): { entries: number; bytes: number } {
    this.sweep();
    return { entries: this.entries.size, bytes: this.total };
  }

  /** Keeps `blocks` under a new id; undefined when they are larger than the whole store. */
  put(server: string, tool: string, blocks: ContentBlock[]): string | undefined {
    const bytes = blocks.reduce((n, b) => n + blockBytes(b), 0);
    if (bytes > this.maxBytes || this.maxEntries < 1) return undefined;
    this.sweep();
    while (this.entries.size > 0 && (this.total + bytes > this.maxBytes || this.entries.size >= this.maxEntries)) {
      const oldest = this.entries.keys().next().value as string;
      this.drop(oldest);
      this.remember(oldest);
    }
    const id = `r_${randomBytes(9).toString('base64url')}`;
    this.entries.set(id, { id, server, tool, blocks, bytes, expiresAt: this.now() + this.ttlMs });
    this.total += bytes;
    return id;
  }

  /** True while `id` is kept. */
  has(id: string): boolean {
    this.sweep();
    return this.entries.has(id);
  }

  /**
   * One page of result `id` from `cursor` (default: the start), at most `pageBytes` of content.
   * An unknown, expired or evicted id, or a bad cursor, gives `{ error }`.
   */
  read(id: string, cursor: string | undefined, pageBytes: number): (ResultPage & { server: string; tool: string }) | { error: string } {
    this.sweep();
    const e = this.entries.get(id);
    if (e === undefined) {
      return { error: this.evicted.has(id) ? `result "${id}" was evicted to make room for newer results` : `unknown or expired result "${id}" (results are kept ${Math.round(this.ttlMs / 1000)} s)` };
    }
    const at = decodeResultCursor(cursor);
    if (at === undefined || at.block > e.blocks.length) return { error: 'invalid cursor: call again without a cursor' };
    // LRU: a read makes it the newest and extends its life.
    this.entries.delete(id);
    e.expiresAt = this.now() + this.ttlMs;
    this.entries.set(id, e);
    return { ...pageOf(e.blocks, at, pageBytes), server: e.server, tool: e.tool };
  }

  private drop(id: string): void {
    const e = this.entries.get(id);
    if (e === undefined) return;
    this.entries.delete(id);
    this.total -= e.bytes;
  }

  private remember(id: string): void {
    this.evicted.add(id);
    if (this.evicted.size > 1024) this.evicted.delete(this.evicted.values().next().value as string);
  }

  private sweep(): void {
    const t = this.now();
    for (const e of [...this.entries.values()]) if (e.expiresAt <= t) this.drop(e.id);
  }
}

/** Cursors are `<block>.<char>` in base64url: opaque to the agent, trivial to check. */
export function encodeResultCursor(p: ResumePoint): string {
  return Buffer.from(`${p.block}.${p.char}`, 'utf8').toString('base64url');
}

function decodeResultCursor(cursor: string | undefined): ResumePoint | undefined {
  if (cursor === undefined || cursor === '') return { block: 0, char: 0 };
  const m = /^(\d{1,9})\.(\d{1,12})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  return m ? { block: Number(m[1]), char: Number(m[2]) } : undefined;
}

/** The page of `blocks` from `at`, within `pageBytes` (see the module comment). */
function pageOf(blocks: ContentBlock[], at: ResumePoint, pageBytes: number): ResultPage {
  const content: ContentBlock[] = [];
  let room = Math.max(PAGE_RESERVE, pageBytes - PAGE_RESERVE);
  let i = at.block;
  let char = at.char;
  for (; i < blocks.length; i++, char = 0) {
    const b = blocks[i];
    const part: ContentBlock = b.type === 'text' && char > 0 ? { ...b, text: b.text.slice(char) } : b;
    const bytes = blockBytes(part);
    if (bytes <= room) {
      content.push(part);
      room -= bytes;
      continue;
    }
    if (part.type === 'text') {
      const cut = cutText(part, room);
      if (cut !== undefined) {
        content.push(cut.block);
        return { content, nextCursor: encodeResultCursor({ block: i, char: char + cut.chars }) };
      }
      if (content.length > 0) return { content, nextCursor: encodeResultCursor({ block: i, char }) };
      // not even one character fits: cannot happen with PAGE_RESERVE of room; skip defensively
    }
    if (content.length > 0) return { content, nextCursor: encodeResultCursor({ block: i, char: 0 }) };
    content.push({ type: 'text', text: `[mcpwire: content block ${i} (${b.type}, ${bytes} bytes) is larger than a page and cannot be returned]` });
    room -= 200;
  }
  return { content };
}

/**
 * Bounds a (redacted) tool result for the agent; when content was cut and `store` has room,
 * keeps the whole result there and puts the handle in the marker and in `resultId`.
 */
export function boundAndStore(
  result: CallToolResult,
  bound: BoundOptions,
  store: ResultStore | undefined,
  origin: { server: string; tool: string },
): ToolResultForAgent & { resultId?: string } {
  const first = boundWithResume(result, bound);
  if (store === undefined || first.result.truncated === undefined || first.resume === undefined && !first.structuredDropped) return first.result;
  const blocks = (Array.isArray(result.content) ? result.content : []).filter((b): b is ContentBlock => typeof b === 'object' && b !== null);
  if (first.structuredDropped) blocks.push({ type: 'text', text: `structuredContent: ${JSON.stringify(result.structuredContent)}` });
  const id = store.put(origin.server, origin.tool, blocks);
  if (id === undefined) return first.result;
  const resume = first.resume ?? { block: blocks.length - 1, char: 0 };
  const cursor = encodeResultCursor(resume);
  const suffix = `; the rest: call mcp_result_read with {"resultId":"${id}","cursor":"${cursor}"}`;
  const again = boundWithResume(result, bound, suffix).result;
  return { ...again, resultId: id };
}

/** Default page size of `mcp_result_read`: the host's result cap. */
export function defaultPageBytes(bound: BoundOptions): number {
  return bound.maxBytes ?? DEFAULT_MAX_RESULT_BYTES;
}
