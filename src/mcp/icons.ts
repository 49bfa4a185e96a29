/**
 * Icons a server lists (basic "icons": on tools, resources, resource templates, prompts, its
 * `serverInfo`, a `resource_link` in content) reach the embedder only when safe to render:
 * basic#28 (2026-07-28: basic#58) — "Clients MUST reject icon URIs that use unsafe schemes and
 * redirects, such as `javascript:`, `file:`, `ftp:`, `ws:`, or local app URI schemes". An icon
 * is kept when its `src` is an `https:` URL (a host, no user or password in it) or a `data:` URI
 * of an image type on the allow list below; anything else (another scheme, a malformed URI, an
 * icon that is not an object) is dropped. mcpwire never fetches an icon: an embedder that does
 * checks every redirect target with `isSafeIconUri` too (docs/host.md).
 *
 * Screening works in place on a freshly parsed result, once per result, before the client hands
 * it on (and before the 2026-07-28 result cache keeps it). What was dropped is reported once per
 * client (one server) as the diagnostic `MCPWIRE_UNSAFE_ICON`, naming the method and the schemes,
 * never a URI.
 */
import type { EraCodec } from './eras/codec.js';
import type { Icon } from './types.js';

/** `data:` image types an icon may have (basic "icons": the MUST and SHOULD types, and GIF). */
const DATA_IMAGE_TYPES: ReadonlySet<string> = new Set(['image/png', 'image/jpeg', 'image/jpg', 'image/svg+xml', 'image/webp', 'image/gif']);

/** The `_meta` key of a 2026-07-28 result that carries the server's Implementation (eras/modern.ts). */
const META_SERVER_INFO = 'io.modelcontextprotocol/serverInfo';

/** Where the icons are in a result of each method: the list key whose items carry `icons`. */
const LISTED: Readonly<Record<string, string>> = {
  'tools/list': 'tools',
  'resources/list': 'resources',
  'resources/templates/list': 'resourceTemplates',
  'prompts/list': 'prompts',
};

/** True when `uri` is an icon URI safe to render: https (with a host, no credentials) or a data: image. */
export function isSafeIconUri(uri: unknown): boolean {
  if (typeof uri !== 'string' || uri.length === 0) return false;
  const colon = uri.indexOf(':');
  if (colon <= 0) return false;
  const scheme = uri.slice(0, colon).toLowerCase();
  if (scheme === 'data') return isImageData(uri.slice(colon + 1));
  // an authority right after the scheme (the URL parser would read `https:///x` as host `x`)
  if (scheme !== 'https' || !/^https:\/\/[^/\\?#@]/i.test(uri)) return false;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return false;
  }
  return url.protocol === 'https:' && url.hostname !== '' && url.username === '' && url.password === '';
}

/** `data:<type>[;params],<data>` with an allowed image type. */
function isImageData(rest: string): boolean {
  const comma = rest.indexOf(',');
  if (comma < 0) return false;
  const type = rest.slice(0, comma).split(';', 1)[0]!.trim().toLowerCase();
  return DATA_IMAGE_TYPES.has(type);
}

/** The scheme of a dropped icon, for the diagnostic: letters only, bounded; never the URI. */
function schemeOf(icon: unknown): string {
  const src = icon !== null && typeof icon === 'object' ? (icon as { src?: unknown }).src : undefined;
  if (typeof src !== 'string') return '(no src)';
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]{0,31}):/.exec(src);
  return m === null ? '(malformed)' : m[1]!.toLowerCase();
}

/**
 * The safe icons of `icons` (a server's `icons` value, any shape) and the schemes of those
 * dropped. `kept` is `icons` itself when nothing was dropped.
 */
export function safeIcons(icons: unknown): { kept: Icon[]; dropped: string[] } {
  if (!Array.isArray(icons)) return { kept: [], dropped: icons === undefined ? [] : ['(not a list)'] };
  const dropped: string[] = [];
  for (const icon of icons) if (!isSafeIcon(icon)) dropped.push(schemeOf(icon));
  if (dropped.length === 0) return { kept: icons as Icon[], dropped };
  return { kept: (icons as unknown[]).filter(isSafeIcon) as Icon[], dropped };
}

function isSafeIcon(icon: unknown): boolean {
  return icon !== null && typeof icon === 'object' && !Array.isArray(icon) && isSafeIconUri((icon as { src?: unknown }).src);
}

/**
 * Screens the `icons` of one object (a Tool, a Resource, serverInfo…) in place. Returns `dropped`
 * with the dropped schemes pushed, allocated only on the first drop (the hot path of a result
 * without unsafe icons allocates nothing).
 */
function screenOwner(owner: unknown, dropped: string[] | undefined): string[] | undefined {
  if (owner === null || typeof owner !== 'object') return dropped;
  const icons = (owner as { icons?: unknown }).icons;
  if (icons === undefined) return dropped;
  const r = safeIcons(icons);
  if (r.dropped.length === 0) return dropped;
  const out = dropped ?? [];
  out.push(...r.dropped);
  const o = owner as { icons?: unknown };
  if (r.kept.length > 0) o.icons = r.kept;
  else delete o.icons;
  return out;
}

/** `resource_link` blocks of a content list: they are Resources, with icons. */
function screenContent(content: unknown, dropped: string[] | undefined): string[] | undefined {
  if (!Array.isArray(content)) return dropped;
  for (let i = 0; i < content.length; i++) {
    const block: unknown = content[i];
    if (block !== null && typeof block === 'object' && (block as { type?: unknown }).type === 'resource_link') dropped = screenOwner(block, dropped);
  }
  return dropped;
}

const NONE: readonly string[] = Object.freeze([]);

/**
 * Drops the unsafe icons of a result of `method`, in place (listings, `tools/call` content,
 * `prompts/get` messages, a serverInfo in `_meta`). Returns the schemes dropped (empty: nothing was).
 */
export function screenResultIcons(method: string, result: unknown): readonly string[] {
  if (result === null || typeof result !== 'object') return NONE;
  const r = result as Record<string, unknown>;
  let dropped: string[] | undefined;
  const key = LISTED[method];
  if (key !== undefined) {
    const items = r[key];
    if (Array.isArray(items)) for (const item of items) dropped = screenOwner(item, dropped);
  } else if (method === 'tools/call') {
    dropped = screenContent(r.content, dropped);
  } else if (method === 'prompts/get' && Array.isArray(r.messages)) {
    for (const m of r.messages) if (m !== null && typeof m === 'object') dropped = screenContent([(m as { content?: unknown }).content], dropped);
  }
  // 2026-07-28: a result's `_meta` may name the server (its serverInfo, with icons)
  const meta = r._meta;
  if (meta !== null && typeof meta === 'object') dropped = screenOwner((meta as Record<string, unknown>)[META_SERVER_INFO], dropped);
  return dropped ?? NONE;
}

/** Drops the unsafe icons of a server's `serverInfo` (Implementation), in place. */
export function screenServerInfoIcons(info: unknown): readonly string[] {
  return screenOwner(info, undefined) ?? NONE;
}

/**
 * Makes `codec` hand on only safe icons: every final result it reads and the `serverInfo` its
 * opening establishes are screened; the first drop is reported through `report` (once: later
 * drops of the same client are silent).
 */
export function screenCodecIcons(codec: EraCodec, report: (code: string, message: string) => void): void {
  let reported = false;
  const tell = (where: string, dropped: readonly string[]): void => {
    if (dropped.length === 0 || reported) return;
    reported = true;
    const schemes = [...new Set(dropped)].slice(0, 8).join(', ');
    report(
      'MCPWIRE_UNSAFE_ICON',
      `${where}: dropped ${dropped.length} icon(s) whose URI is not https or a data: image (${schemes}); basic#28. Later unsafe icons of this server are dropped without a word`,
    );
  };
  const result = codec.result.bind(codec);
  codec.result = <T>(method: string, raw: unknown): T => {
    const r = result<T>(method, raw);
    tell(method, screenResultIcons(method, r));
    return r;
  };
  const open = codec.open.bind(codec);
  codec.open = async (io, options) => {
    const negotiated = await open(io, options);
    tell('serverInfo', screenServerInfoIcons(negotiated?.serverInfo));
    return negotiated;
  };
}
