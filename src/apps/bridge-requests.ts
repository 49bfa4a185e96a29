/**
 * The view's requests and what the host answers: its `ui/*` requests go to the embedder's
 * callbacks (a capability the embedder did not give is refused), its MCP requests to its own
 * server through the `ViewServerLink` (only that server: a view has no way to name another).
 * Where the stable text and the 2.0.4 schema differ, both shapes are accepted: `ui/message`
 * content as one block or an array.
 */
import { ViewRequestError, type AppBridgeOptions, type BridgeState, type DisplayMode, type ViewContent } from './bridge-types.js';

type Msg = Record<string, unknown>;
const isObj = (v: unknown): v is Msg => v !== null && typeof v === 'object' && !Array.isArray(v);
const MODALITIES = { text: {}, image: {}, audio: {}, resource: {}, resourceLink: {}, structuredContent: {} };

/** `hostCapabilities` for `ui/initialize`: what the callbacks and the link offer, and the sandbox as granted. */
export function hostCapabilitiesOf(o: AppBridgeOptions): Msg {
  // listChanged: the host forwards the server's list changes to the view (ViewServerLink.onListChanged).
  const lists = o.server.onListChanged !== undefined ? { listChanged: true } : {};
  const caps: Msg = { serverTools: { ...lists }, serverResources: { ...lists } };
  if (o.on?.openLink) caps.openLinks = {};
  if (o.on?.log) caps.logging = {};
  if (o.on?.message) caps.message = MODALITIES;
  if (o.on?.updateModelContext) caps.updateModelContext = MODALITIES;
  caps.sandbox = { permissions: o.sandbox?.permissions ?? {}, csp: o.sandbox?.csp ?? {} };
  return caps;
}

interface Ctx {
  options: AppBridgeOptions;
  bridge: BridgeState;
  signal: AbortSignal;
}

const notOffered = (what: string) => new ViewRequestError(`this host does not offer ${what}`, -32601);

/** The answer to one view request (other than `ui/initialize`); throws `ViewRequestError` to refuse. */
export async function answerViewRequest(method: string, p: Msg, ctx: Ctx): Promise<unknown> {
  const on = ctx.options.on ?? {};
  const link = ctx.options.server;
  const signal = ctx.signal;
  switch (method) {
    case 'ping':
      return {};
    case 'ui/open-link': {
      if (on.openLink === undefined) throw notOffered('openLinks');
      const url = typeof p.url === 'string' ? p.url : '';
      if (!/^https?:\/\//i.test(url) || url.length > 4096) throw new ViewRequestError('ui/open-link: only an http(s) URL may be opened', -32602);
      return (await on.openLink(url)) ? {} : { isError: true };
    }
    case 'ui/message': {
      if (on.message === undefined) throw notOffered('message');
      return (await on.message({ role: typeof p.role === 'string' ? p.role : 'user', content: contentOf(p.content) })) ? {} : { isError: true };
    }
    case 'ui/update-model-context': {
      if (on.updateModelContext === undefined) throw notOffered('updateModelContext');
      const context: { content?: ViewContent[]; structuredContent?: Record<string, unknown> } = {};
      if (p.content !== undefined) context.content = contentOf(p.content);
      if (isObj(p.structuredContent)) context.structuredContent = p.structuredContent;
      ctx.bridge.modelContext = context;
      on.updateModelContext(context);
      return {};
    }
    case 'ui/request-display-mode':
      return { mode: await displayMode(p.mode, ctx) };
    case 'tools/call': {
      if (typeof p.name !== 'string') throw new ViewRequestError('tools/call: "name" must be a string', -32602);
      return link.callTool(p.name, isObj(p.arguments) ? p.arguments : {}, { signal });
    }
    case 'tools/list':
      return { tools: await link.listTools({ signal }) };
    case 'resources/read':
      if (typeof p.uri !== 'string') throw new ViewRequestError('resources/read: "uri" must be a string', -32602);
      return link.readResource(p.uri, { signal });
    case 'resources/list':
      return { resources: await link.listResources({ signal }) };
    case 'resources/templates/list':
      return { resourceTemplates: await link.listResourceTemplates({ signal }) };
    case 'prompts/list':
      return { prompts: await link.listPrompts({ signal }) };
    default:
      throw new ViewRequestError(`method not found: ${method.slice(0, 100)}`, -32601);
  }
}

/** `ui/message` / `ui/update-model-context` content: an array (2.0.4 schema) or one block (the stable text's example); non-objects dropped, at most 64. */
export function contentOf(content: unknown): ViewContent[] {
  const list = Array.isArray(content) ? content : content === undefined ? [] : [content];
  return list.filter(isObj).slice(0, 64);
}

/**
 * `ui/request-display-mode`: the resulting mode (apps spec: "MUST return the resulting mode"),
 * never one the view did not list in `availableDisplayModes` nor one the host does not offer.
 */
async function displayMode(asked: unknown, ctx: Ctx): Promise<DisplayMode> {
  const current: DisplayMode = ctx.bridge.hostContext.displayMode ?? 'inline';
  const hostModes = ctx.bridge.hostContext.availableDisplayModes ?? [current];
  const appModes = ctx.bridge.appCapabilities.availableDisplayModes;
  const appOk = !Array.isArray(appModes) || appModes.includes(asked);
  if (typeof asked !== 'string' || !hostModes.includes(asked as DisplayMode) || !appOk) return current;
  const mode = ctx.options.on?.requestDisplayMode ? await ctx.options.on.requestDisplayMode(asked as DisplayMode) : (asked as DisplayMode);
  if (mode !== current) ctx.bridge.setHostContext({ displayMode: mode });
  return mode;
}
