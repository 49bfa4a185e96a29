/**
 * The two pages of the double-iframe sandbox (apps spec, Security: web hosts "MUST use a double
 * iframe"; host and sandbox proxy on different origins). The host page (one origin) holds the
 * proxy iframe (the other origin) and relays between it and the host process (EventSource in,
 * POST out, in order). The proxy announces `ui/notifications/sandbox-proxy-ready`, builds the
 * view's iframe from `ui/notifications/sandbox-resource-ready` (srcdoc: the view inherits the
 * proxy's CSP, which the page server sends as an HTTP header; no `allow-same-origin`, so the
 * view has an opaque origin), and relays every other message, never originating one.
 */

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const js = (v: unknown) => JSON.stringify(v).replace(/</g, '\\u003c');

export interface HostPageInput {
  title: string;
  nonce: string;
  sandboxOrigin: string;
  proxyUrl: string;
  allow: string;
  prefersBorder?: boolean;
}

/** The host page (served at the host origin). */
export function hostPageHtml(p: HostPageInput): string {
  const border = p.prefersBorder === false ? 'none' : '1px solid #ccc';
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>${esc(p.title)}</title>
<style>body{margin:0;font:14px system-ui,sans-serif;background:#f6f6f6}header{padding:8px 12px;background:#222;color:#eee}
main{padding:12px}iframe{display:block;width:100%;height:600px;border:${border};background:#fff}#status{color:#888;margin-left:1em}</style></head>
<body><header>${esc(p.title)} <span id="status">connecting…</span></header>
<main><iframe id="proxy" title="app view" sandbox="allow-scripts allow-same-origin allow-forms" allow="${esc(p.allow)}" src="${esc(p.proxyUrl)}"></iframe></main>
<script nonce="${esc(p.nonce)}">
(() => {
  const SANDBOX = ${js(p.sandboxOrigin)};
  const base = location.pathname.replace(/[^/]*$/, '');
  const frame = document.getElementById('proxy');
  const status = document.getElementById('status');
  let chain = Promise.resolve();
  const out = (m) => { chain = chain.then(() => fetch(base + 'rpc', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(m) })).catch(() => {}); };
  const es = new EventSource(base + 'events');
  es.onopen = () => { status.textContent = ''; };
  es.onerror = () => { status.textContent = 'disconnected'; };
  es.addEventListener('end', () => { status.textContent = 'closed'; es.close(); });
  es.onmessage = (e) => { frame.contentWindow.postMessage(JSON.parse(e.data), SANDBOX); };
  window.addEventListener('message', (e) => {
    if (e.origin !== SANDBOX || e.source !== frame.contentWindow) return;
    const m = e.data;
    if (m && m.method === 'ui/notifications/size-changed' && m.params && typeof m.params.height === 'number' && m.params.height > 0) {
      frame.style.height = Math.min(Math.max(Math.ceil(m.params.height), 50), 10000) + 'px';
    }
    out(m);
  });
})();
</script></body></html>`;
}

/** The sandbox proxy page (served at the sandbox origin, with the view's CSP as a header). */
export function proxyPageHtml(hostOrigin: string): string {
  return `<!doctype html>
<html><head><meta charset="utf-8"><style>html,body{margin:0;height:100%}iframe{border:0;width:100%;height:100%;display:block}</style></head>
<body><script>
(() => {
  const HOST = ${js(hostOrigin)};
  const FEATURES = { camera: 'camera', microphone: 'microphone', geolocation: 'geolocation', clipboardWrite: 'clipboard-write' };
  let inner;
  const isSandboxMethod = (m) => m && typeof m.method === 'string' && m.method.startsWith('ui/notifications/sandbox-');
  window.addEventListener('message', (e) => {
    if (e.source === window.parent && e.origin === HOST) {
      const m = e.data;
      if (m && m.method === 'ui/notifications/sandbox-resource-ready') {
        if (inner) return;
        const p = m.params || {};
        inner = document.createElement('iframe');
        inner.setAttribute('sandbox', typeof p.sandbox === 'string' ? p.sandbox : 'allow-scripts allow-forms');
        inner.setAttribute('allow', Object.keys(p.permissions || {}).filter((k) => FEATURES[k]).map((k) => FEATURES[k]).join('; '));
        inner.srcdoc = String(p.html || '');
        document.body.appendChild(inner);
        return;
      }
      if (isSandboxMethod(m) || !inner) return;
      inner.contentWindow.postMessage(m, '*');
    } else if (inner && e.source === inner.contentWindow) {
      if (isSandboxMethod(e.data)) return;
      window.parent.postMessage(e.data, HOST);
    }
  });
  window.parent.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/sandbox-proxy-ready', params: {} }, HOST);
})();
</script></body></html>`;
}
