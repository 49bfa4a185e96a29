/**
 * `trace html`: ONE self-contained HTML page (inline CSS and JS; a CSP forbids any network
 * access) with a sequence diagram of client ↔ server messages over time: a lifeline for the
 * client and one lane per server (per peer of a server several sessions or sessionless client
 * connections share: `peerLanes`), arrows by direction, events as markers on their server's lane.
 * Clicking a row shows its pretty-printed JSON; filters by method and server. The header names
 * each server's protocol era (`sessionEras`). The input rounds of a 2026-07-28 request
 * (`input_required` answers and the retries that follow, `inputRounds`) are grouped under the
 * original request: their rows are indented and marked `round n of #id`, and selecting any of
 * them shows the whole request — every round's request and answer — together.
 *
 * The trace is untrusted: it is embedded as JSON inside a non-executed <script> element with
 * `<`, `>`, `&`, U+2028 and U+2029 escaped, and the page builds every node with `textContent`,
 * never `innerHTML`.
 */
import { eraText, exchangeOf, inputRounds, pairExchanges, sessionEras, type ExchangeKey } from './read.js';
import type { TraceRecord } from './record.js';
import { orderByTime } from './show.js';

export interface HtmlOptions {
  /** Shown in the page title (e.g. the trace file name). */
  title?: string;
}

/**
 * One lane per peer: a server seen by several peers gets a lane per peer, named `server #n`;
 * requests pair with their answers within a lane only. A peer is a session (an HTTP tap relaying
 * several hosts' sessions, or several runs through a stdio tap), else, for the lines of a
 * sessionless HTTP exchange (2026-07-28 clients), the tap's client connection it came on, lanes
 * shared by connections one after the other (`peersOf`). A line of no peer (trace-start, the
 * tap's listen line) joins the next peer of its server, or the last one at the end (trace-end).
 */
export function peerLanes(records: TraceRecord[]): TraceRecord[] {
  const peerOf = peersOf(records);
  const peers = new Map<string, string[]>();
  records.forEach((r, i) => {
    const peer = peerOf[i];
    if (peer === undefined) return;
    const list = peers.get(r.server) ?? [];
    if (!list.includes(peer)) list.push(peer);
    peers.set(r.server, list);
  });
  if (![...peers.values()].some((l) => l.length > 1)) return records;
  const near = new Array<string | undefined>(records.length);
  const around = new Map<string, string>();
  for (let i = records.length - 1; i >= 0; i--) {
    const r = records[i];
    if (peerOf[i] !== undefined) around.set(r.server, peerOf[i]!);
    near[i] = peerOf[i] ?? around.get(r.server);
  }
  around.clear();
  for (let i = 0; i < records.length; i++) {
    const r = records[i];
    if (peerOf[i] !== undefined) around.set(r.server, peerOf[i]!);
    near[i] ??= around.get(r.server);
  }
  return records.map((r, i) => {
    const list = peers.get(r.server);
    if (!list || list.length < 2) return r;
    const peer = near[i];
    const n = peer === undefined ? 0 : list.indexOf(peer) + 1;
    return { ...r, server: `${r.server} #${n}` };
  });
}

/**
 * The peer of each line, when it shows: its session; else the session of another line of its
 * HTTP exchange (the initialize request, sent before the session existed, goes with it); else
 * the client connection the tap names on its exchange's `http` line (`connection`, per `tap`),
 * all a tap sees of which sessionless client sent a request (`connectionSlots`).
 */
function peersOf(records: TraceRecord[]): Array<string | undefined> {
  const sessions = new Map<ExchangeKey, string>();
  const connections = new Map<ExchangeKey, string>();
  for (const r of records) {
    const key = exchangeOf(r);
    if (key === undefined) continue;
    if (r.session !== undefined && !sessions.has(key)) sessions.set(key, r.session);
    const { connection, tap } = r as { connection?: unknown; tap?: unknown };
    if (typeof connection === 'number' && !connections.has(key)) connections.set(key, `${typeof tap === 'string' ? tap : ''}/${connection}`);
  }
  const peers = records.map((r): string | undefined => {
    if (r.session !== undefined) return `session ${r.session}`;
    const key = exchangeOf(r);
    if (key === undefined) return undefined;
    const session = sessions.get(key);
    if (session !== undefined) return `session ${session}`;
    const connection = connections.get(key);
    return connection === undefined ? undefined : `connection ${connection}`;
  });
  return connectionSlots(records, peers);
}

/**
 * Connections → lanes: a connection takes the first lane of its server free when it starts
 * (whose connections have all had their last line), else a new one. A connection is not a
 * client: a client without keep-alive opens one per request, one with requests in parallel
 * several, and one idle for a while reconnects. Lanes as few as the connections open at once
 * keep each client's lines together when clients are no more than their connections, and never
 * draw two connections' lines interleaved in one lane.
 */
function connectionSlots(records: TraceRecord[], peers: Array<string | undefined>): Array<string | undefined> {
  const spans = new Map<string, { server: string; first: number; last: number }>();
  peers.forEach((peer, i) => {
    if (!peer?.startsWith('connection ')) return;
    const span = spans.get(peer);
    if (span) span.last = i;
    else spans.set(peer, { server: records[i].server, first: i, last: i });
  });
  if (spans.size === 0) return peers;
  // Per server: the last line of each lane's latest connection.
  const lanes = new Map<string, number[]>();
  const slot = new Map<string, string>();
  for (const [peer, span] of spans) {
    const ends = lanes.get(span.server) ?? [];
    let n = ends.findIndex((end) => end < span.first);
    if (n < 0) n = ends.push(span.last) - 1;
    else ends[n] = span.last;
    lanes.set(span.server, ends);
    slot.set(peer, `connections ${n + 1}`);
  }
  return peers.map((peer) => (peer === undefined ? undefined : (slot.get(peer) ?? peer)));
}

/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** JSON that is safe inside a <script> element (cannot close it or open a comment). */
export function scriptSafeJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

const CSS = `
:root { --bg:#fff; --fg:#1b1f24; --muted:#6a737d; --line:#d0d7de; --out:#0969da; --in:#1a7f37; --err:#cf222e; --ev:#9a6700; --sel:#fff8c5; }
* { box-sizing: border-box; }
body { margin:0; font: 13px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; color:var(--fg); background:var(--bg); }
header { position:sticky; top:0; z-index:3; background:#f6f8fa; border-bottom:1px solid var(--line); padding:8px 12px; display:flex; gap:12px; align-items:center; flex-wrap:wrap; }
header h1 { font-size:15px; margin:0 12px 0 0; }
header .count { color:var(--muted); }
input, select { font:inherit; padding:3px 6px; }
main { display:grid; grid-template-columns: minmax(0, 3fr) minmax(280px, 2fr); height: calc(100vh - 46px); }
#diagram { overflow:auto; border-right:1px solid var(--line); }
#lanes, .row { display:grid; grid-template-columns: 90px 1fr; }
#lanes { position:sticky; top:0; z-index:2; background:#fff; border-bottom:1px solid var(--line); font-weight:600; }
#lanes .track { height:28px; }
.lane-name { position:absolute; top:6px; transform:translateX(-50%); white-space:nowrap; max-width:200px; overflow:hidden; text-overflow:ellipsis; }
.time { color:var(--muted); text-align:right; padding:4px 8px; font-variant-numeric: tabular-nums; font-family: ui-monospace, monospace; font-size:12px; }
.track { position:relative; height:34px; }
.life { position:absolute; top:0; bottom:0; width:0; border-left:1px dashed var(--line); }
.row { cursor:pointer; }
.row:hover { background:#f6f8fa; }
.row.selected { background:var(--sel); }
.row.hidden { display:none; }
.arrow { position:absolute; top:19px; height:0; border-top:2px solid var(--out); }
.arrow.in { border-top-color:var(--in); border-top-style:dashed; }
.arrow.error { border-top-color:var(--err); }
.arrow::after { content:""; position:absolute; top:-6px; border:5px solid transparent; }
.arrow.out::after { right:-2px; border-left:8px solid var(--out); border-right:0; }
.arrow.in::after { left:-2px; border-right:8px solid var(--in); border-left:0; }
.arrow.error.out::after { border-left-color:var(--err); }
.arrow.error.in::after { border-right-color:var(--err); }
.label { position:absolute; top:1px; white-space:nowrap; overflow:hidden; text-overflow:ellipsis; font-family: ui-monospace, monospace; font-size:12px; transform:translateX(-50%); max-width:60%; }
.label .lat { color:var(--muted); margin-left:6px; }
.marker { position:absolute; top:12px; width:12px; height:12px; margin-left:-6px; border-radius:50%; background:var(--ev); }
.marker.schema, .marker.timeout, .marker.diagnostic { background:var(--err); }
.evlabel { position:absolute; top:9px; margin-left:12px; white-space:nowrap; color:var(--ev); font-size:12px; overflow:hidden; text-overflow:ellipsis; max-width:45%; }
aside { overflow:auto; padding:10px 14px; }
aside h2 { font-size:14px; margin:4px 0 8px; word-break:break-all; }
aside .meta { color:var(--muted); margin-bottom:8px; word-break:break-all; }
pre { margin:0; white-space:pre-wrap; word-break:break-word; font: 12px/1.45 ui-monospace, monospace; background:#f6f8fa; padding:10px; border-radius:6px; }
.empty { color:var(--muted); padding:20px; }
.row.round .track { margin-left:18px; border-left:3px solid var(--ev); }
.row.round-origin .track { border-left:3px solid var(--ev); }
`;

/** Where a record sits in a request's input rounds: the original request's index, its round (0: the original exchange) and how many rounds follow it. */
export interface RoundMark {
  of: number;
  round: number;
  rounds: number;
}

/** The input-round groups of `records` (by record index), and each server's era. */
export function roundMarks(records: TraceRecord[]): Record<number, RoundMark> {
  const index = new Map<TraceRecord, number>();
  records.forEach((r, i) => index.set(r, i));
  const marks: Record<number, RoundMark> = {};
  for (const chain of inputRounds(pairExchanges(records).exchanges)) {
    const of = index.get(chain[0].request)!;
    chain.forEach((ex, round) => {
      for (const r of [ex.request, ex.response]) if (r) marks[index.get(r)!] = { of, round, rounds: chain.length - 1 };
    });
  }
  return marks;
}

/** What answers each request (by the answer's record index): its latency and the request's method. */
export function answerMarks(records: TraceRecord[]): Record<number, { latency?: number; method?: string }> {
  const index = new Map<TraceRecord, number>();
  records.forEach((r, i) => index.set(r, i));
  const marks: Record<number, { latency?: number; method?: string }> = {};
  for (const [response, ex] of pairExchanges(records).byResponse) {
    marks[index.get(response)!] = { ...(ex.latencyMs !== undefined ? { latency: ex.latencyMs } : {}), ...(ex.request.method !== undefined ? { method: ex.request.method } : {}) };
  }
  return marks;
}

/* The page script: plain ES2020, builds everything with textContent. */
const JS = String.raw`
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('mcpwire-trace').textContent);
  var records = data.records;
  var servers = [];
  records.forEach(function (r) { var s = String(r.server); if (servers.indexOf(s) < 0) servers.push(s); });
  var CLIENT_X = 6;
  function laneX(server) {
    var i = servers.indexOf(server);
    if (servers.length === 1) return 70;
    return 32 + (i * 50) / (servers.length - 1);
  }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function str(v) { return v === undefined || v === null ? '' : String(v); }
  function idText(id) { return id === undefined || id === null ? '' : ' #' + (typeof id === 'string' ? JSON.stringify(id) : String(id)); }
  function lifelines(track) {
    var c = el('div', 'life'); c.style.left = CLIENT_X + '%'; track.appendChild(c);
    servers.forEach(function (s) { var l = el('div', 'life'); l.style.left = laneX(s) + '%'; track.appendChild(l); });
  }

  // answers paired with their requests (pairExchanges: by session, id and HTTP exchange), for latency labels
  var latency = new Map(); var methodOf = new Map(); var answers = data.answers || {};
  Object.keys(answers).forEach(function (k) {
    var r = records[Number(k)]; var a = answers[k];
    if (!r || !a) return;
    if (typeof a.latency === 'number') latency.set(r, a.latency);
    if (!r.method && typeof a.method === 'string') methodOf.set(r, a.method);
  });

  var rounds = data.rounds || {};
  var eras = (data.eras || []).map(function (e) { return str(e.server) + ' ' + str(e.text); });
  document.getElementById('count').textContent = records.length + ' records, ' + servers.length + ' server' + (servers.length === 1 ? '' : 's') + (data.truncated ? ' (last line truncated)' : '') + (eras.length ? ' · era: ' + eras.join(', ') : '');
  document.title = 'mcpwire trace' + (data.title ? ' — ' + data.title : '');
  document.getElementById('title').textContent = data.title || '';

  var sel = document.getElementById('filter-server');
  servers.forEach(function (s) { var o = el('option', '', s); o.value = s; sel.appendChild(o); });
  var dl = document.getElementById('methods');
  var seen = {};
  records.forEach(function (r) { var m = r.event !== undefined ? r.event : r.method; if (m && !seen[m]) { seen[m] = 1; var o = el('option'); o.value = String(m); dl.appendChild(o); } });

  var lanes = document.getElementById('lanes');
  lanes.appendChild(el('div', 'time', 't (ms)'));
  var lt = el('div', 'track');
  var cn = el('div', 'lane-name', 'client'); cn.style.left = CLIENT_X + 4 + '%'; lt.appendChild(cn);
  servers.forEach(function (s) { var n = el('div', 'lane-name', s); n.title = s; n.style.left = laneX(s) + '%'; lt.appendChild(n); });
  lanes.appendChild(lt);

  var rowsEl = document.getElementById('rows');
  var rows = [];
  records.forEach(function (r, i) {
    var mark = rounds[i];
    var row = el('div', 'row' + (mark ? (mark.round > 0 ? ' round' : ' round-origin') : ''));
    row.dataset.index = String(i);
    row.dataset.server = str(r.server);
    var isEvent = r.event !== undefined;
    var method = isEvent ? str(r.event) : str(r.method || methodOf.get(r) || '');
    row.dataset.method = method;
    row.dataset.kind = isEvent ? 'event' : str(r.kind);
    row.appendChild(el('div', 'time', typeof r.t === 'number' ? r.t.toFixed(3) : ''));
    var track = el('div', 'track');
    lifelines(track);
    var x = laneX(str(r.server));
    if (isEvent) {
      var m = el('div', 'marker ' + str(r.event).replace(/[^a-z-]/gi, '')); m.style.left = x + '%'; track.appendChild(m);
      var detail = r.event === 'lifecycle' ? str(r.from) + ' → ' + str(r.to) : r.event === 'transport' ? str(r.type) : r.event === 'schema' ? str(r.method) + ' ' + str(r.instancePath) + ': ' + str(r.message) : str(r.message || r.method || r.code || '');
      var lab = el('div', 'evlabel', str(r.event) + (detail ? ': ' + detail : ''));
      if (x > 60) { lab.style.right = (100 - x) + '%'; lab.style.marginRight = '12px'; lab.style.textAlign = 'right'; } else { lab.style.left = x + '%'; }
      track.appendChild(lab);
    } else {
      var a = el('div', 'arrow ' + (r.dir === 'out' ? 'out' : 'in') + (r.kind === 'error' || r.kind === 'invalid' ? ' error' : ''));
      a.style.left = CLIENT_X + '%'; a.style.width = (x - CLIENT_X) + '%';
      track.appendChild(a);
      var label = el('div', 'label', (mark && mark.round > 0 ? '↳ round ' + mark.round + ' of' + idText(records[mark.of].id) + ': ' : '') + (method || '?') + idText(r.id) + (r.kind === 'request' || r.kind === 'notification' ? '' : ' ' + str(r.kind)) + (mark && mark.round === 0 && r.kind === 'request' ? ' (' + mark.rounds + ' input round' + (mark.rounds === 1 ? '' : 's') + ')' : ''));
      if (latency.has(r)) label.appendChild(el('span', 'lat', latency.get(r).toFixed(3) + ' ms'));
      label.style.left = (CLIENT_X + x) / 2 + '%';
      track.appendChild(label);
    }
    row.appendChild(track);
    row.addEventListener('click', function () { select(i); });
    rowsEl.appendChild(row);
    rows.push(row);
  });
  if (!records.length) rowsEl.appendChild(el('div', 'empty', 'This trace has no records.'));

  var current = -1;
  function select(i) {
    if (current >= 0) rows[current].classList.remove('selected');
    current = i;
    rows[i].classList.add('selected');
    var r = records[i];
    var isEvent = r.event !== undefined;
    document.getElementById('detail-title').textContent = isEvent
      ? 'event: ' + str(r.event)
      : (r.dir === 'out' ? 'client → ' : str(r.server) + ' → client: ') + (r.dir === 'out' ? str(r.server) + ': ' : '') + str(r.kind) + ' ' + str(r.method || methodOf.get(r) || '') + idText(r.id);
    var meta = ['server ' + str(r.server), 'transport ' + str(r.transport), 't ' + str(r.t) + ' ms', str(r.ts)];
    if (r.session) meta.push('session ' + str(r.session));
    if (typeof r.exchange === 'number') meta.push('exchange ' + r.exchange);
    if (typeof r.bytes === 'number') meta.push(r.bytes + ' bytes');
    if (latency.has(r)) meta.push('latency ' + latency.get(r).toFixed(3) + ' ms');
    document.getElementById('detail-meta').textContent = meta.join(' · ');
    var shown = isEvent ? r : r.msg;
    var mark = rounds[i];
    if (mark) {
      // The whole request: the original exchange and every input round, in order.
      var group = [];
      records.forEach(function (g, j) { var m = rounds[j]; if (m && m.of === mark.of) group.push({ round: m.round, dir: g.dir === 'out' ? 'client → server' : 'server → client', msg: g.msg }); });
      meta.push('input round ' + mark.round + ' of ' + mark.rounds + ' (request' + idText(records[mark.of].id) + ')');
      document.getElementById('detail-meta').textContent = meta.join(' · ');
      shown = group;
    }
    document.getElementById('detail-json').textContent = JSON.stringify(shown, null, 2);
  }

  var methodInput = document.getElementById('filter-method');
  var eventsBox = document.getElementById('show-events');
  function applyFilter() {
    var q = methodInput.value.trim().toLowerCase();
    var s = sel.value;
    var showEvents = eventsBox.checked;
    var visible = 0;
    rows.forEach(function (row) {
      var ok = (!s || row.dataset.server === s) && (!q || row.dataset.method.toLowerCase().indexOf(q) >= 0) && (showEvents || row.dataset.kind !== 'event');
      row.classList.toggle('hidden', !ok);
      if (ok) visible++;
    });
    document.getElementById('visible').textContent = visible + ' shown';
  }
  methodInput.addEventListener('input', applyFilter);
  sel.addEventListener('change', applyFilter);
  eventsBox.addEventListener('change', applyFilter);
  document.addEventListener('keydown', function (ev) {
    if (ev.target === methodInput || current < 0) return;
    var step = ev.key === 'ArrowDown' || ev.key === 'j' ? 1 : ev.key === 'ArrowUp' || ev.key === 'k' ? -1 : 0;
    if (!step) return;
    for (var i = current + step; i >= 0 && i < rows.length; i += step) {
      if (!rows[i].classList.contains('hidden')) { select(i); rows[i].scrollIntoView({ block: 'nearest' }); ev.preventDefault(); break; }
    }
  });
  applyFilter();
})();
`;

/** Renders one self-contained HTML page for `records`. */
export function renderHtml(records: TraceRecord[], options: HtmlOptions & { truncated?: boolean } = {}): string {
  const ordered = peerLanes(orderByTime(records));
  const eras = sessionEras(ordered).map((e) => ({ server: e.server, text: eraText(e) }));
  const payload = { title: options.title ?? '', truncated: options.truncated === true, records: ordered, eras, rounds: roundMarks(ordered), answers: answerMarks(ordered) };
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>mcpwire trace${options.title ? ` — ${escapeHtml(options.title)}` : ''}</title>
<style>${CSS}</style>
</head>
<body>
<header>
  <h1>mcpwire trace <span id="title"></span></h1>
  <span class="count" id="count"></span>
  <label>method <input id="filter-method" type="search" list="methods" placeholder="filter by method" autocomplete="off"></label>
  <datalist id="methods"></datalist>
  <label>server <select id="filter-server"><option value="">all servers</option></select></label>
  <label><input id="show-events" type="checkbox" checked> events</label>
  <span class="count" id="visible"></span>
</header>
<main>
  <section id="diagram" aria-label="sequence diagram">
    <div id="lanes"></div>
    <div id="rows"></div>
  </section>
  <aside id="detail" aria-live="polite">
    <h2 id="detail-title">Click a message to see its JSON</h2>
    <div class="meta" id="detail-meta"></div>
    <pre id="detail-json"></pre>
  </aside>
</main>
<script type="application/json" id="mcpwire-trace">${scriptSafeJson(payload)}</script>
<script>${JS}</script>
</body>
</html>
`;
}
