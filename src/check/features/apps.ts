/**
 * Checks of an MCP Apps server (the `io.modelcontextprotocol/ui` extension, stable 2026-01-26,
 * "UI Resource Format" and "Resource Discovery"): each view a tool names is a `ui://` resource
 * that `resources/read` returns, with the MIME type `text/html;profile=mcp-app` and an HTML
 * document; `_meta.ui.csp` entries are origins under the defined keys; permissions and
 * visibility hold only defined values; a tool only an app may call has a view on its server to
 * call it. Not applicable to a server whose tools name no view and carry no `_meta.ui`.
 */
import { APP_MIME_TYPE, isViewCspOrigin, toolUiMeta, toolViewUri, VIEW_CSP_KEYS, VIEW_PERMISSION_KEYS } from '../../mcp/ui-meta.js';
import type { CheckContext, Session } from '../core/context.js';
import { isObject } from '../core/context.js';
import { declared, listAll } from '../core/lists.js';
import { describeOutcome, messageOf } from '../core/probe.js';
import { notApplicable, pass, skip, violated, type CheckDef, type Verdict } from '../core/types.js';

type Item = Record<string, unknown>;
interface Views {
  s: Session;
  tools: Item[];
  /** Each distinct view URI and the tools naming it. */
  uris: Map<string, string[]>;
}

/** The tools with `_meta.ui` or a view, or why the apps checks do not apply. */
async function appTools(ctx: CheckContext): Promise<Views | Verdict> {
  const s = await ctx.session();
  if (!declared(s, 'tools')) return notApplicable('the server does not declare tools');
  const list = await listAll(ctx, s, 'tools/list');
  if (list.failed !== undefined) return skip('blocked: tools/list failed');
  const tools = list.items.filter((t) => toolUiMeta(t) !== undefined || toolViewUri(t) !== undefined);
  if (tools.length === 0) return notApplicable('no tool carries MCP Apps metadata (_meta.ui)');
  const uris = new Map<string, string[]>();
  for (const t of tools) {
    const uri = toolViewUri(t);
    if (uri !== undefined) uris.set(uri, [...(uris.get(uri) ?? []), String(t.name)]);
  }
  return { s, tools, uris };
}

/** The read content of each view URI (memoized), or the outcome that was not a result. */
async function readViews(ctx: CheckContext, v: Views): Promise<Map<string, { content?: Item; problem?: string; evidence?: unknown }>> {
  return ctx.memo('apps:views', async () => {
    const out = new Map<string, { content?: Item; problem?: string; evidence?: unknown }>();
    for (const uri of [...v.uris.keys()].slice(0, 32)) {
      if (!uri.startsWith('ui://')) continue;
      const o = await v.s.probe.request('resources/read', { uri });
      if (o.kind !== 'result') {
        out.set(uri, { problem: `resources/read ${JSON.stringify(uri)} got ${describeOutcome(o)}`, evidence: messageOf(o) });
        continue;
      }
      const contents = o.result.contents;
      const list = Array.isArray(contents) ? contents.filter(isObject) : [];
      const content = list.find((c) => c.uri === uri) ?? list[0];
      out.set(uri, content === undefined ? { problem: `resources/read ${JSON.stringify(uri)} returned no content`, evidence: messageOf(o) } : { content });
    }
    return out;
  });
}

/** The views that could be read (URI and content), or why the content checks do not apply. */
async function readContents(ctx: CheckContext): Promise<[string, Item][] | Verdict> {
  const v = await appTools(ctx);
  if ('status' in v) return v;
  const read = [...(await readViews(ctx, v))].flatMap(([uri, r]): [string, Item][] => (r.content === undefined ? [] : [[uri, r.content]]));
  return read.length === 0 ? notApplicable('no view could be read (see apps.view-readable)') : read;
}

const viewReadable: CheckDef = {
  id: 'apps.view-readable',
  title: "each tool's view (_meta.ui.resourceUri) is a ui:// resource resources/read returns",
  clause: 'apps 2026-01-26 Resource Discovery',
  level: 'MUST',
  async run(ctx) {
    const v = await appTools(ctx);
    if ('status' in v) return v;
    if (v.uris.size === 0) return notApplicable('no tool names a view');
    for (const [uri, tools] of v.uris) {
      if (!uri.startsWith('ui://')) return violated(`tool ${JSON.stringify(tools[0])} names the view ${JSON.stringify(uri.slice(0, 200))}: a view URI MUST start with ui://`);
    }
    for (const [uri, r] of await readViews(ctx, v)) {
      if (r.problem !== undefined) return violated(`the view of tool ${JSON.stringify(v.uris.get(uri)![0])} MUST exist on the server: ${r.problem}`, r.evidence);
    }
    return pass(`${v.uris.size} views`);
  },
};

const viewMime: CheckDef = {
  id: 'apps.view-mime',
  title: `each view's content has the MIME type ${APP_MIME_TYPE}`,
  clause: 'apps 2026-01-26 UI Resource Format',
  level: 'MUST',
  async run(ctx) {
    const read = await readContents(ctx);
    if ('status' in read) return read;
    for (const [uri, content] of read) {
      if (content.mimeType !== APP_MIME_TYPE) return violated(`view ${JSON.stringify(uri)} has mimeType ${JSON.stringify(content.mimeType)}; it MUST be "${APP_MIME_TYPE}"`, { uri, mimeType: content.mimeType });
    }
    return pass();
  },
};

/** The HTML of a read content item (text, or base64 blob), or undefined. */
function htmlOf(c: Item): string | undefined {
  if (typeof c.text === 'string') return c.text;
  if (typeof c.blob === 'string') return Buffer.from(c.blob, 'base64').toString('utf8');
  return undefined;
}

const viewHtml: CheckDef = {
  id: 'apps.view-html',
  title: 'each view is an HTML document, in text or a base64 blob',
  clause: 'apps 2026-01-26 UI Resource Format',
  level: 'MUST',
  async run(ctx) {
    const read = await readContents(ctx);
    if ('status' in read) return read;
    for (const [uri, content] of read) {
      const html = htmlOf(content);
      if (html === undefined) return violated(`view ${JSON.stringify(uri)} has neither text nor blob: content MUST be provided via either`);
      if (!/^\s*(?:<!--[\s\S]*?-->\s*)*(?:<!doctype\s+html\b|<html\b)/i.test(html)) return violated(`view ${JSON.stringify(uri)} is not an HTML document (no <!doctype html> or <html> at its start): content MUST be a valid HTML5 document`, html.slice(0, 120));
    }
    return pass();
  },
};

/** The `_meta.ui` objects a server gives its views: on read content and on the resources/list entries. */
async function viewMetas(ctx: CheckContext, v: Views): Promise<{ where: string; ui: Item }[]> {
  const out: { where: string; ui: Item }[] = [];
  for (const [uri, r] of await readViews(ctx, v)) {
    const ui = (r.content?._meta as Item | undefined)?.ui;
    if (isObject(ui)) out.push({ where: `view ${JSON.stringify(uri)}`, ui });
  }
  if (declared(v.s, 'resources')) {
    const list = await listAll(ctx, v.s, 'resources/list');
    for (const r of list.items) {
      const ui = (r._meta as Item | undefined)?.ui;
      if (typeof r.uri === 'string' && r.uri.startsWith('ui://') && isObject(ui)) out.push({ where: `listed resource ${JSON.stringify(r.uri)}`, ui });
    }
  }
  return out;
}

const cspOrigins: CheckDef = {
  id: 'apps.csp-origins',
  title: "a view's _meta.ui.csp holds only the defined keys, each a list of origins (wildcard subdomains allowed)",
  clause: 'apps 2026-01-26 UI Resource Format',
  level: 'MUST',
  async run(ctx) {
    const v = await appTools(ctx);
    if ('status' in v) return v;
    let seen = 0;
    for (const { where, ui } of await viewMetas(ctx, v)) {
      if (ui.csp === undefined) continue;
      seen++;
      if (!isObject(ui.csp)) return violated(`${where}: _meta.ui.csp is not an object`, ui.csp);
      for (const [key, list] of Object.entries(ui.csp)) {
        if (!(VIEW_CSP_KEYS as readonly string[]).includes(key)) return violated(`${where}: _meta.ui.csp has the unknown key ${JSON.stringify(key)} (defined: ${VIEW_CSP_KEYS.join(', ')}); a host ignores it`, ui.csp);
        if (!Array.isArray(list)) return violated(`${where}: _meta.ui.csp.${key} is not an array of origins`, ui.csp);
        const bad = list.find((e) => !isViewCspOrigin(e));
        if (bad !== undefined) return violated(`${where}: _meta.ui.csp.${key} holds ${JSON.stringify(bad)}, which is not an origin (scheme://host[:port], *.wildcard subdomains allowed)`, ui.csp);
      }
    }
    return seen === 0 ? notApplicable('no view declares a csp') : pass(`${seen} csp declarations`);
  },
};

const knownValues: CheckDef = {
  id: 'apps.known-values',
  title: 'permissions and visibility hold only values the extension defines',
  clause: 'apps 2026-01-26 Resource Discovery',
  level: 'MUST',
  async run(ctx) {
    const v = await appTools(ctx);
    if ('status' in v) return v;
    for (const t of v.tools) {
      const vis = toolUiMeta(t)?.visibility;
      if (vis === undefined) continue;
      if (!Array.isArray(vis) || vis.some((x) => x !== 'model' && x !== 'app')) return violated(`tool ${JSON.stringify(t.name)}: _meta.ui.visibility must be an array of "model" and "app"`, vis);
    }
    for (const { where, ui } of await viewMetas(ctx, v)) {
      if (ui.permissions === undefined) continue;
      if (!isObject(ui.permissions)) return violated(`${where}: _meta.ui.permissions is not an object`, ui.permissions);
      const bad = Object.keys(ui.permissions).find((k) => !(VIEW_PERMISSION_KEYS as readonly string[]).includes(k));
      if (bad !== undefined) return violated(`${where}: _meta.ui.permissions has the unknown permission ${JSON.stringify(bad)} (defined: ${VIEW_PERMISSION_KEYS.join(', ')})`, ui.permissions);
    }
    return pass();
  },
};

const appOnlyReachable: CheckDef = {
  id: 'apps.app-only-reachable',
  title: 'a tool only an app may call (visibility ["app"]) has a view on its server to call it',
  clause: 'apps 2026-01-26 Resource Discovery',
  level: 'SHOULD',
  async run(ctx) {
    const v = await appTools(ctx);
    if ('status' in v) return v;
    const appOnly = v.tools.filter((t) => {
      const vis = toolUiMeta(t)?.visibility;
      return Array.isArray(vis) && vis.includes('app') && !vis.includes('model');
    });
    if (appOnly.length === 0) return notApplicable('no app-only tool');
    if (v.uris.size === 0) return violated(`tool ${JSON.stringify(appOnly[0].name)} is app-only (visibility ["app"]) but no tool of the server names a view: no host shows it to the model, and no view can call it`);
    return pass(`${appOnly.length} app-only tools, ${v.uris.size} views`);
  },
};

export const appsChecks: CheckDef[] = [viewReadable, viewMime, viewHtml, cspOrigins, knownValues, appOnlyReachable];
