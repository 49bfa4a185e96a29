/**
 * A view's way to its own server through a `McpHost`: `tools/call` goes through `host.callTool`
 * as the caller `app` — the host's permissions, input validation, timeouts, redaction, bounded
 * results and traces apply, and a tool whose visibility lacks `"app"` is refused there. A view
 * can name only tools of its own server (apps spec: "Cross-server tool calls are always
 * blocked"); `tools/list` shows it only the tools it may call. Its server's list changes are
 * reported to the bridge, which tells the view.
 */
import type { McpHost } from '../host/host.js';
import type { HostCallResult } from '../host/outcome.js';
import type { CallToolResult, Tool } from '../mcp/types.js';
import { isAppCallable } from '../mcp/ui-meta.js';
import { ViewRequestError, type ListKind, type ViewServerLink } from './bridge-types.js';

/** The public (catalog) name of tool `tool` of server `server`, app-only tools included; undefined when the server lists no such tool. */
export function publicNameOf(host: McpHost, server: string, tool: string): string | undefined {
  for (const [name, entry] of host.catalog.byName) if (entry.server === server && entry.tool.name === tool) return name;
  return undefined;
}

/** The tools `server` listed (every visibility). */
export function serverTools(host: McpHost, server: string): Tool[] {
  return [...host.catalog.byName.values()].filter((e) => e.server === server).map((e) => e.tool);
}

/** A HostCallResult as the CallToolResult a view expects; a refusal or failure as a JSON-RPC error. */
export function viewToolResult(r: HostCallResult): CallToolResult {
  if (r.outcome !== 'ok' && r.outcome !== 'tool_error') {
    const text = r.content.map((b) => (b.type === 'text' ? b.text : '')).join(' ').trim();
    throw new ViewRequestError(text || `tools/call failed (${r.code})`, r.rpcError?.code ?? -32000);
  }
  const out: CallToolResult = { content: r.content, isError: r.isError };
  if (r.structuredContent !== undefined) out.structuredContent = r.structuredContent;
  if (r._meta !== undefined) out._meta = r._meta;
  return out;
}

function clientOf(host: McpHost, server: string) {
  const client = host.client(server);
  if (client === undefined) throw new ViewRequestError(`server "${server}" is not connected`);
  return client;
}

/** The link of a view of `server` through `host` (see the module comment). */
export function hostViewServer(host: McpHost, server: string): ViewServerLink {
  return {
    server,
    async callTool(name, args, { signal }) {
      const publicName = publicNameOf(host, server, name);
      if (publicName === undefined) throw new ViewRequestError(`no tool "${name.slice(0, 128)}" on this view's server "${server}"; a view may call only its own server's tools`);
      return viewToolResult(await host.callTool(publicName, args, { caller: 'app', signal }));
    },
    async listTools() {
      return serverTools(host, server).filter(isAppCallable);
    },
    readResource: (uri, { signal }) => clientOf(host, server).readResource(uri, { signal }),
    listResources: ({ signal }) => clientOf(host, server).listResources({ signal }),
    async listResourceTemplates({ signal }) {
      const c = clientOf(host, server);
      return c.listResourceTemplates === undefined ? [] : c.listResourceTemplates({ signal });
    },
    listPrompts: ({ signal }) => clientOf(host, server).listPrompts({ signal }),
    onListChanged: (listener) => followLists(host, server, listener),
  };
}

/**
 * The host's news of `server`'s lists, for its view: resources and prompts as the server
 * announced them; tools when the tools a view may call changed (the host re-lists on
 * `notifications/tools/list_changed`, then reports the server's status).
 */
function followLists(host: McpHost, server: string, listener: (kind: ListKind) => void): () => void {
  const keyOf = () => JSON.stringify(serverTools(host, server).filter(isAppCallable).map((t) => [t.name, t.description, t.inputSchema, t._meta]));
  let tools = keyOf();
  const onList = (e: { server: string; kind: 'resources' | 'prompts' }) => {
    if (e.server === server) listener(e.kind);
  };
  const onStatus = (s: { id: string }) => {
    if (s.id !== server) return;
    const now = keyOf();
    if (now === tools) return;
    tools = now;
    listener('tools');
  };
  host.on('listChanged', onList);
  host.on('status', onStatus);
  return () => {
    host.off('listChanged', onList);
    host.off('status', onStatus);
  };
}
