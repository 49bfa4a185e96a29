/**
 * Results of the host tools (`host-tools.ts`) as ordinary tool results. Lists are merged over
 * servers, paginated with a host cursor (an opaque offset, independent of server cursors),
 * sanitized (names, descriptions and URIs are untrusted) and returned both as JSON text and as
 * `structuredContent`. Read/get results keep the server's content blocks. Everything is bounded
 * by `boundToolResult`.
 */
import type { ContentBlock, GetPromptResult, Prompt, ReadResourceResult, Resource, ResourceTemplate } from '../mcp/types.js';
import { sanitizeText } from './text.js';
import { boundToolResult, type BoundOptions, type ToolResultForAgent } from './tool-result.js';

/** Default number of items per page of a host list. */
export const DEFAULT_LIST_PAGE_SIZE = 100;
const DESC_MAX = 500;

/** Paging and bounding options of the list converters. */
export interface ListOptions extends BoundOptions {
  cursor?: string;
  pageSize?: number;
}

/** A tool error result with one text block. */
export function hostToolError(message: string): ToolResultForAgent {
  return { content: [{ type: 'text', text: message }], isError: true };
}

/** `mcp_resources_list`: resources then templates of each server, one page. */
export function resourcesListResult(
  entries: readonly { server: string; resources: readonly Resource[]; templates?: readonly ResourceTemplate[] }[],
  options: ListOptions = {},
): ToolResultForAgent {
  const items = entries.flatMap((e) => [
    ...e.resources.map((r) => compact({ server: e.server, uri: clean(r.uri, 2048, true), name: clean(r.name, 200, true), title: opt(r.title, 200), description: opt(r.description, DESC_MAX), mimeType: opt(r.mimeType, 100) })),
    ...(e.templates ?? []).map((t) => compact({ server: e.server, uriTemplate: clean(t.uriTemplate, 2048, true), name: clean(t.name, 200, true), title: opt(t.title, 200), description: opt(t.description, DESC_MAX), mimeType: opt(t.mimeType, 100) })),
  ]);
  return listPage('resources', items, options);
}

/** `mcp_prompts_list`: prompts of each server with their arguments, one page. */
export function promptsListResult(entries: readonly { server: string; prompts: readonly Prompt[] }[], options: ListOptions = {}): ToolResultForAgent {
  const items = entries.flatMap((e) =>
    e.prompts.map((p) =>
      compact({
        server: e.server,
        name: clean(p.name, 200, true),
        title: opt(p.title, 200),
        description: opt(p.description, DESC_MAX),
        arguments: Array.isArray(p.arguments)
          ? p.arguments.map((a) => compact({ name: clean(a.name, 200, true), description: opt(a.description, DESC_MAX), required: a.required === true ? true : undefined }))
          : undefined,
      }),
    ),
  );
  return listPage('prompts', items, options);
}

/** `mcp_resource_read`: a header line, then each content item as a content block. */
export function resourceReadResult(server: string, uri: string, result: ReadResourceResult, options: BoundOptions = {}): ToolResultForAgent {
  const contents = Array.isArray(result?.contents) ? result.contents : [];
  const header = `MCP resource ${clean(uri, 2048, true)} from server "${clean(server, 64, true)}" (${contents.length} item(s); untrusted content)`;
  const blocks: ContentBlock[] = [{ type: 'text', text: header }];
  for (const c of contents) {
    if (typeof c !== 'object' || c === null) continue;
    if ('text' in c && typeof c.text === 'string') blocks.push({ type: 'text', text: c.text });
    else if ('blob' in c && typeof c.blob === 'string') blocks.push(blobBlock(c.uri, c.blob, c.mimeType));
  }
  return boundToolResult({ content: blocks }, options);
}

/** `mcp_prompt_get`: the description, then each message as `role:` plus its content. */
export function promptGetResult(server: string, name: string, result: GetPromptResult, options: BoundOptions = {}): ToolResultForAgent {
  const blocks: ContentBlock[] = [];
  const desc = sanitizeText(result?.description, DESC_MAX);
  blocks.push({ type: 'text', text: `MCP prompt ${clean(server, 64, true)}/${clean(name, 200, true)}${desc ? `: ${desc}` : ''}` });
  for (const m of Array.isArray(result?.messages) ? result.messages : []) {
    const role = m?.role === 'assistant' ? 'assistant' : 'user';
    const content = m?.content;
    if (content?.type === 'text' && typeof content.text === 'string') blocks.push({ type: 'text', text: `${role}: ${content.text}` });
    else if (content && typeof content === 'object') blocks.push({ type: 'text', text: `${role}:` }, content);
  }
  return boundToolResult({ content: blocks }, options);
}

function blobBlock(uri: string, blob: string, mimeType: string | undefined): ContentBlock {
  if (mimeType?.startsWith('image/')) return { type: 'image', data: blob, mimeType };
  if (mimeType?.startsWith('audio/')) return { type: 'audio', data: blob, mimeType };
  return { type: 'resource', resource: mimeType !== undefined ? { uri, blob, mimeType } : { uri, blob } };
}

function listPage(key: 'resources' | 'prompts', items: Record<string, unknown>[], options: ListOptions): ToolResultForAgent {
  const offset = decodeCursor(options.cursor);
  if (offset === undefined || offset > items.length) return hostToolError('invalid cursor: call again without a cursor');
  const pageSize = Math.max(1, options.pageSize ?? DEFAULT_LIST_PAGE_SIZE);
  const page = items.slice(offset, offset + pageSize);
  const structured: Record<string, unknown> = { [key]: page };
  if (offset + pageSize < items.length) structured.nextCursor = encodeCursor(offset + pageSize);
  return boundToolResult({ content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured }, options);
}

/** Host cursors are `o<offset>` in base64url: opaque to the agent, trivial to check. */
export function encodeCursor(offset: number): string {
  return Buffer.from(`o${offset}`, 'utf8').toString('base64url');
}

function decodeCursor(cursor: string | undefined): number | undefined {
  if (cursor === undefined || cursor === '') return 0;
  const m = /^o(\d{1,9})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  return m ? Number(m[1]) : undefined;
}

function clean(s: unknown, max: number, singleLine = false): string {
  return sanitizeText(s, max, singleLine);
}

function opt(s: unknown, max: number): string | undefined {
  const v = sanitizeText(s, max);
  return v === '' ? undefined : v;
}

function compact(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}
