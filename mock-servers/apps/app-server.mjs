#!/usr/bin/env node
// A scripted MCP Apps server for the unhappy paths (test/apps/apps-mock-servers.test.ts): the stdio
// mock (../stdio-server.mjs) with a scenario of tools that have views, built here because the
// views are HTML. Tools:
//   probe {action}   view ui://mock/probe.html: initializes, then on its tool input does `action`:
//                    call-app-only | call-model-only | call-other | fetch (an undeclared origin) | flood |
//                    open-link (ui/open-link of https://example.com/docs?from=probe, the answer shown)
//   refresh          visibility ["app"] (the view may call it; the agent may not)
//   model_only       visibility ["model"] (the agent may call it; a view may not)
//   wrong_mime       view served as text/html (not text/html;profile=mcp-app)
//   missing          view ui://mock/missing.html, which the server does not have
//   silent           view that never sends ui/initialize
//   legacy           the deprecated flat _meta["ui/resourceUri"], a base64 blob view, metadata in resources/list only
// MOCK_APP_ROLE=other: instead a plain server with one tool, other_tool.
// MOCK_APP_ROLE=check: a correct app server (probe, refresh, legacy) for `mcpwire check`, with one
// bug planted by MOCK_APP_BUG (test/apps/apps-check.test.ts): not-ui | missing | mime | not-html |
// csp-key | csp-entry | permission | visibility | app-only-no-view. MOCK_APP_UPDATE=1 adds the stdio
// mock's builtin `update` {uri} (notifications/resources/updated for a subscribed URI).
const PROBE = String.raw`<!doctype html><html><head><meta charset="utf-8"><title>probe</title></head><body><h1>probe view</h1><script>
(() => {
  const send = (m) => window.parent.postMessage(m, '*');
  let id = 0; const pending = {};
  const req = (method, params) => new Promise((res) => { const i = ++id; pending[i] = res; send({ jsonrpc: '2.0', id: i, method, params }); });
  const log = (s) => { const p = document.createElement('pre'); p.textContent = s; document.body.appendChild(p); };
  // The browser queues the violation event as a task of its own: it may come after fetch() has
  // failed, so the fetch action waits for it (bounded) before it says it is done.
  let violated; const violation = new Promise((res) => { violated = res; });
  document.addEventListener('securitypolicyviolation', (e) => { log('CSP violation: ' + e.violatedDirective + ' ' + e.blockedURI); violated(); });
  async function run(action) {
    if (action === 'call-app-only') log('app-only: ' + JSON.stringify(await req('tools/call', { name: 'refresh', arguments: {} })));
    if (action === 'call-model-only') log('model-only: ' + JSON.stringify(await req('tools/call', { name: 'model_only', arguments: {} })));
    if (action === 'call-other') log('other: ' + JSON.stringify(await req('tools/call', { name: 'other_tool', arguments: {} })));
    if (action === 'fetch') { try { await fetch('http://127.0.0.1:9/undeclared'); log('fetch: done'); } catch (err) { log('fetch: failed ' + err.message); } await Promise.race([violation, new Promise((res) => setTimeout(res, 5000))]); }
    if (action === 'open-link') log('open-link: ' + JSON.stringify(await req('ui/open-link', { url: 'https://example.com/docs?from=probe' })));
    if (action === 'flood') for (let i = 0; i < 3000; i++) send({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'flood ' + i } });
    log('done ' + action);
  }
  window.addEventListener('message', (e) => {
    const m = e.data || {};
    if (m.id !== undefined && !m.method && pending[m.id]) { pending[m.id](m); delete pending[m.id]; return; }
    if (m.method === 'ui/notifications/tool-input') run(m.params.arguments.action);
    if (m.method === 'ui/resource-teardown') send({ jsonrpc: '2.0', id: m.id, result: {} });
  });
  req('ui/initialize', { protocolVersion: '2026-01-26', appInfo: { name: 'probe', version: '1' }, appCapabilities: {} }).then(() => {
    send({ jsonrpc: '2.0', method: 'ui/notifications/initialized' });
    log('initialized');
  });
})();
</script></body></html>`;
const SILENT = '<!doctype html><html><body><p>this view never initializes</p></body></html>';
const LEGACY = '<!doctype html><html><body><p>legacy</p></body></html>';

const MIME = 'text/html;profile=mcp-app';
const view = (uri) => ({ ui: { resourceUri: uri } });
const text = (t) => ({ content: [{ type: 'text', text: t }] });
const scenario =
  process.env.MOCK_APP_ROLE === 'other'
    ? { serverInfo: { name: 'other', version: '1.0.0' }, tools: [{ name: 'other_tool', inputSchema: { type: 'object' }, result: text('other ran') }] }
    : {
        serverInfo: { name: 'mock-apps', version: '1.0.0' },
        tools: [
          { name: 'probe', inputSchema: { type: 'object', properties: { action: { type: 'string' } } }, _meta: view('ui://mock/probe.html'), result: { ...text('probe ran'), structuredContent: { ok: true } } },
          { name: 'refresh', inputSchema: { type: 'object' }, _meta: { ui: { visibility: ['app'] } }, result: text('refreshed') },
          { name: 'model_only', inputSchema: { type: 'object' }, _meta: { ui: { visibility: ['model'] } }, result: text('model only ran') },
          { name: 'wrong_mime', inputSchema: { type: 'object' }, _meta: view('ui://mock/wrong.html'), result: text('wrong ran') },
          { name: 'missing', inputSchema: { type: 'object' }, _meta: view('ui://mock/missing.html'), result: text('missing ran') },
          { name: 'silent', inputSchema: { type: 'object' }, _meta: view('ui://mock/silent.html'), result: text('silent ran') },
          { name: 'legacy', inputSchema: { type: 'object' }, _meta: { 'ui/resourceUri': 'ui://mock/legacy.html' }, result: text('legacy ran') },
        ],
        resources: [
          { uri: 'ui://mock/probe.html', name: 'probe', mimeType: MIME, text: PROBE },
          { uri: 'ui://mock/wrong.html', name: 'wrong', mimeType: 'text/html', text: SILENT },
          { uri: 'ui://mock/silent.html', name: 'silent', mimeType: MIME, text: SILENT },
          { uri: 'ui://mock/legacy.html', name: 'legacy', mimeType: MIME, blob: Buffer.from(LEGACY).toString('base64'), _meta: { ui: { csp: { connectDomains: ['https://api.example.com'] }, prefersBorder: false } } },
        ],
      };
if (process.env.MOCK_APP_ROLE === 'check') {
  const bug = process.env.MOCK_APP_BUG ?? '';
  const keep = ['probe', 'refresh', 'legacy'];
  scenario.tools = scenario.tools.filter((t) => keep.includes(t.name));
  scenario.resources = scenario.resources.filter((r) => r.name === 'probe' || r.name === 'legacy');
  const tool = (n) => scenario.tools.find((t) => t.name === n);
  const res = (n) => scenario.resources.find((r) => r.name === n);
  res('legacy')._meta.ui.permissions = { clipboardWrite: {} };
  res('legacy')._meta.ui.csp.resourceDomains = ['https://*.cdn.example.com'];
  if (bug === 'not-ui') tool('probe')._meta = view('https://mock/probe.html');
  if (bug === 'missing') tool('probe')._meta = view('ui://mock/none.html');
  if (bug === 'mime') res('probe').mimeType = 'text/html';
  if (bug === 'not-html') res('probe').text = 'just text';
  if (bug === 'csp-key') res('legacy')._meta.ui.csp = { connect_domains: ['https://api.example.com'] };
  if (bug === 'csp-entry') res('legacy')._meta.ui.csp = { connectDomains: ["https://api.example.com/v1; script-src 'unsafe-eval'"] };
  if (bug === 'permission') res('legacy')._meta.ui.permissions = { camera: {}, usb: {} };
  if (bug === 'visibility') tool('refresh')._meta = { ui: { visibility: ['app', 'agent'] } };
  if (bug === 'app-only-no-view') scenario.tools = [tool('refresh')];
  if (process.env.MOCK_APP_UPDATE) scenario.tools.push('update'); // the stdio mock's builtin: notifications/resources/updated for a subscribed uri
}
process.env.MOCK_SCENARIO_JSON = JSON.stringify(scenario);
await import('../stdio-server.mjs');
