/**
 * The gateway's view of the downstream servers beyond tools: the host keeps each connection
 * (reconnects, backoff, OAuth), and `host.client(id)` gives the client of a ready server's
 * current connection. Resources,
 * resource templates, prompts, completions and the log level go to those clients directly; what
 * they answer goes through the server's redaction (its configured secrets never reach the
 * gateway's client) before it leaves.
 *
 * Names: prompts are named by the gateway's naming mode (names.ts: the server's own name,
 * `<server>__<prompt>`, or `mcp_<server>_<prompt>`), by the last listing (a name not in it: the
 * servers are listed again); resource URIs are passed as the servers gave them, routed by the last listing, and a
 * URI no listing named (a template's expansion) is asked of each resources server in id order.
 */
import type { McpClient } from '../mcp/client.js';
import type { RequestInputOptions } from '../mcp/client-options.js';
import type { LoggingLevel, Prompt, Resource, ResourceTemplate } from '../mcp/types.js';
import type { McpHost, ResolvedServer } from '../host/index.js';
import { serverRedaction, type ServerRedaction } from '../host/redaction.js';
import { redactData } from '../host/tool-result.js';
import { JsonRpcError } from '../errors.js';
import { rpcMessage } from '../protocol/error-text.js';
import { assignNames, type NameTable, type NamingMode } from './names.js';
import { excerpt } from '../jsonrpc/types.js';
import { gatewayResource, gatewayTemplate } from './apps.js';

/** A URI a client sent is echoed in an error's `data` up to this long (and quoted bounded in its message). */
const MAX_ECHOED_URI = 2048;

/** -32602: what the spec names for an unknown prompt, a bad cursor or bad params. */
export function invalidParams(message: string): JsonRpcError {
  return new JsonRpcError(-32602, message);
}

export class Downstream {
  private readonly redactions = new Map<string, ServerRedaction>();
  /** Which server each listed resource URI came from (the last listing wins; first id on a tie). */
  private readonly uriOwner = new Map<string, string>();
  private logLevel: LoggingLevel | undefined;
  host: McpHost | undefined;
  /** The prompts' gateway names, by the last listing. */
  private promptTable: NameTable | undefined;
  /** The templates' gateway names, by the last listing. */
  private templateTable: NameTable | undefined;

  constructor(
    servers: readonly ResolvedServer[],
    private readonly names: NamingMode = 'host',
    private readonly report: (kind: 'prompt' | 'template', table: NameTable) => void = () => {},
  ) {
    for (const s of servers) this.redactions.set(s.id, serverRedaction(s));
  }

  /** A server became ready: it gets the log level the client chose (server.utilities.logging). */
  connected(id: string): void {
    const client = this.host?.client(id) as McpClient | undefined;
    if (this.logLevel !== undefined && client?.serverCapabilities?.logging !== undefined) client.setLoggingLevel(this.logLevel).catch(() => {});
  }

  /** Ready servers' clients (`host.client`: an `McpClient`, the gateway gives no `connect` of its own), by id order. */
  ready(feature?: 'resources' | 'prompts' | 'logging' | 'completions'): [string, McpClient][] {
    const out: [string, McpClient][] = [];
    for (const s of this.host?.status() ?? []) {
      const c = this.host?.client(s.id) as McpClient | undefined;
      if (c !== undefined && (feature === undefined || c.serverCapabilities?.[feature] !== undefined)) out.push([s.id, c]);
    }
    return out.sort(([a], [b]) => (a < b ? -1 : 1));
  }

  redact<T>(server: string, value: T): T {
    const r = this.redactions.get(server);
    return r === undefined ? value : redactData(value, r);
  }

  /** Error text of a downstream failure, with every server's secrets taken out. */
  errorText(err: unknown): string {
    const text = err instanceof Error ? err.message : String(err);
    return [...this.redactions.values()].reduce((t, r) => r.text(t), text);
  }

  async resources(signal: AbortSignal): Promise<Resource[]> {
    const lists = await this.each('resources', (c) => c.listResources({ signal }));
    this.uriOwner.clear();
    const out: Resource[] = [];
    for (const [server, listed] of lists) {
      for (const r of listed.map((x) => gatewayResource(server, x))) {
        if (this.uriOwner.has(r.uri)) continue; // two servers, one URI: the first id serves it (a ui:// view is the server's own: apps.ts)
        this.uriOwner.set(r.uri, server);
        out.push(r);
      }
    }
    return out;
  }

  /**
   * The servers' resource templates, their `name` as the naming mode names prompts (a name two
   * servers share kept apart in as-is mode; `<server>__<name>`; `mcp_<server>_<name>`); the
   * `uriTemplate` is the server's (a `ui://` one mapped as views are; expansions are read by URI, a completion's
   * `ref/resource` names it), so two servers offering one template: the first id completes it.
   */
  async templates(signal: AbortSignal): Promise<ResourceTemplate[]> {
    const lists = await this.each('resources', (c) => c.listResourceTemplates({ signal }));
    const all = lists.flatMap(([server, list]) => list.map((t) => ({ server, t })));
    const table = assignNames(this.names, all.map(({ server, t }) => ({ server, name: t.name, hostName: promptName(server, t.name) })));
    this.templateTable = table;
    this.report('template', table);
    return all.map(({ server, t }, i) => ({ ...gatewayTemplate(server, t), name: table.items[i]!.gateway }));
  }

  async prompts(signal: AbortSignal): Promise<Prompt[]> {
    const lists = await this.each('prompts', (c) => c.listPrompts({ signal }));
    const all = lists.flatMap(([server, list]) => list.map((p) => ({ server, p })));
    const table = assignNames(this.names, all.map(({ server, p }) => ({ server, name: p.name, hostName: promptName(server, p.name) })));
    this.promptTable = table;
    this.report('prompt', table);
    return all.map(({ p }, i) => ({ ...p, name: table.items[i]!.gateway }));
  }

  /** `resources/read`: the listing's server for a known URI, else each resources server in turn. */
  async readResource(uri: string, signal: AbortSignal, input?: RequestInputOptions): Promise<Record<string, unknown>> {
    const owner = this.uriOwner.get(uri);
    const candidates = this.ready('resources').filter(([id]) => owner === undefined || id === owner);
    // The URI is the client's text: quoted bounded, and in `data` only when short.
    let last: unknown = new JsonRpcError(-32002, `Resource not found: ${excerpt(uri, 200)}`, uri.length <= MAX_ECHOED_URI ? { uri } : undefined);
    for (const [server, client] of candidates) {
      try {
        return this.redact(server, (await client.readResource(uri, { signal, ...input })) as unknown as Record<string, unknown>);
      } catch (err) {
        last = err;
      }
    }
    throw this.upstreamError(last);
  }

  async getPrompt(name: string, args: Record<string, string> | undefined, signal: AbortSignal, input?: RequestInputOptions): Promise<Record<string, unknown>> {
    const target = await this.promptTarget(name, signal);
    try {
      return this.redact(target.server, (await target.client.getPrompt(target.prompt, args, { signal, ...input })) as unknown as Record<string, unknown>);
    } catch (err) {
      throw this.upstreamError(err);
    }
  }

  /** The server a `resources/read` of `uri` goes to, when the listing named it (else undefined: each is asked in turn). */
  /** `resources/read` of `uri` on `server` alone (a view the gateway mapped: apps.ts), redacted. */
  async readFrom(server: string, uri: string, signal: AbortSignal): Promise<Record<string, unknown>> {
    const target = this.ready('resources').find(([id]) => id === server) ?? this.ready().find(([id]) => id === server);
    if (target === undefined) throw new JsonRpcError(-32002, `Resource not found: ${uri}`, { uri });
    try {
      return this.redact(server, (await target[1].readResource(uri, { signal })) as unknown as Record<string, unknown>);
    } catch (err) {
      throw this.upstreamError(err);
    }
  }

  serverOfUri(uri: string): string | undefined {
    return this.uriOwner.get(uri);
  }

  /** The server of a prompt by its gateway name, when it is ready (else undefined). */
  async serverOfPrompt(name: string, signal: AbortSignal): Promise<string | undefined> {
    return (await this.promptTarget(name, signal).catch(() => undefined))?.server;
  }

  /** `completion/complete`: a prompt reference by its gateway name, a resource template by its owner. */
  async complete(params: Record<string, unknown>, signal: AbortSignal): Promise<Record<string, unknown>> {
    const ref = params.ref as { type?: unknown; name?: unknown; uri?: unknown } | undefined;
    let server: string;
    let client: McpClient;
    let sent: Record<string, unknown> = params;
    if (ref?.type === 'ref/prompt' && typeof ref.name === 'string') {
      const t = await this.promptTarget(ref.name, signal);
      ({ server, client } = t);
      sent = { ...params, ref: { ...ref, name: t.prompt } };
    } else if (ref?.type === 'ref/resource' && typeof ref.uri === 'string') {
      const owner = await this.templateOwner(ref.uri, signal);
      if (owner === undefined) throw invalidParams(`no server offers the resource template ${excerpt(ref.uri, 200)}`);
      [server, client] = owner;
    } else {
      throw invalidParams('completion/complete: ref must be a ref/prompt with a name or a ref/resource with a uri');
    }
    if (client.serverCapabilities?.completions === undefined) return { completion: { values: [], hasMore: false } };
    try {
      return this.redact(server, await client.request('completion/complete', sent, { signal }));
    } catch (err) {
      throw this.upstreamError(err);
    }
  }

  /** The prompts' and templates' gateway names by their last listings (status.ts). */
  nameTables(): { prompt?: NameTable; template?: NameTable } {
    return { ...(this.promptTable ? { prompt: this.promptTable } : {}), ...(this.templateTable ? { template: this.templateTable } : {}) };
  }

  /** `logging/setLevel`, fanned out to every ready server with logging; remembered for later ones. */
  async setLevel(level: LoggingLevel): Promise<void> {
    this.logLevel = level;
    await Promise.all(this.ready('logging').map(([, c]) => c.setLoggingLevel(level).catch(() => {})));
  }

  /** A prompt by its gateway name: its server's client and its own name (the servers listed again when the last listing lacks it). */
  private async promptTarget(name: string, signal: AbortSignal): Promise<{ server: string; client: McpClient; prompt: string }> {
    if (!this.promptTable?.byName.has(name)) await this.prompts(signal);
    const item = this.promptTable?.byName.get(name);
    const client = item === undefined ? undefined : this.ready('prompts').find(([id]) => id === item.server)?.[1];
    if (item !== undefined && client !== undefined) return { server: item.server, client, prompt: item.name };
    throw invalidParams(`unknown prompt "${excerpt(name, 200)}" (or its server is not connected)`);
  }

  private async templateOwner(uriTemplate: string, signal: AbortSignal): Promise<[string, McpClient] | undefined> {
    for (const entry of this.ready('resources')) {
      const list = await entry[1].listResourceTemplates({ signal }).catch(() => []);
      if (list.some((t) => t.uriTemplate === uriTemplate)) return entry;
    }
    return undefined;
  }

  /** Asks every ready server with `feature`; one that fails is left out (the others still answer). */
  private async each<T>(feature: 'resources' | 'prompts', ask: (c: McpClient) => Promise<T[]>): Promise<[string, T[]][]> {
    const settled = await Promise.all(
      this.ready(feature).map(async ([id, c]): Promise<[string, T[]]> => {
        try {
          return [id, this.redact(id, await ask(c))];
        } catch {
          return [id, []];
        }
      }),
    );
    return settled;
  }

  /** A downstream failure as the gateway answers it: the server's JSON-RPC error kept (redacted), anything else -32603. */
  private upstreamError(err: unknown): JsonRpcError {
    if (err instanceof JsonRpcError) {
      const data = err.data === undefined ? undefined : [...this.redactions.values()].reduce((d, r) => redactData(d, r), err.data);
      return new JsonRpcError(err.rpcCode, this.errorText(rpcMessage(err)), data);
    }
    return new JsonRpcError(-32603, this.errorText(err));
  }
}

/** A prompt's (or a resource template's) host name at the gateway. */
export function promptName(server: string, prompt: string): string {
  return `mcp_${server}_${prompt}`;
}
