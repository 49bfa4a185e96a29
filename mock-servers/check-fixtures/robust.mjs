// Robustness knobs of the check fixture (core.mjs, server.mjs): each plants one defect that a
// check of `mcpwire check --robustness` (src/check/robustness/robustness.ts) must catch.

export const ROBUST_BUGS = {
  'rb-crash-wrong-type': 'robustness.wrong-types',
  'rb-hang-huge': 'robustness.huge-inputs',
  'rb-crash-deep': 'robustness.deep-nesting',
  'rb-unknown-field-error': 'robustness.unknown-fields',
  'rb-unknown-method-code': 'robustness.unknown-methods',
  'rb-dead-after-cancel': 'robustness.after-cancel',
  'rb-flood-drops': 'robustness.ping-flood',
  'rb-crash-utf8': 'robustness.invalid-utf8',
  'rb-crash-dup-id': 'robustness.duplicate-ids',
  'rb-leak-stack': 'robustness.error-leaks',
};

function depth(v, d = 0) {
  if (d > 600 || v === null || typeof v !== 'object') return d;
  return Math.max(d, ...Object.values(v).map((x) => depth(x, d + 1)));
}

/**
 * Before a request is dispatched: 'exit' (crash), 'hang' (never answered), an answer, or
 * undefined (dispatch as usual). `st` is the session's { seen: Set, cancels, pings: [] }.
 */
export function robustBefore(bugs, msg, st) {
  const { id, method, params } = msg;
  if (bugs.has('rb-crash-dup-id') && st.seen.has(JSON.stringify(id))) return 'exit';
  st.seen.add(JSON.stringify(id));
  if (bugs.has('rb-crash-wrong-type') && method === 'tools/call' && typeof params?.name !== 'string') return 'exit';
  if (bugs.has('rb-hang-huge') && JSON.stringify(msg).length > 100_000) return 'hang';
  if (bugs.has('rb-crash-deep') && depth(params) > 500) return 'exit';
  if (bugs.has('rb-unknown-field-error') && method === 'ping' && params && Object.keys(params).some((k) => k !== '_meta')) return { error: { code: -32602, message: 'Unrecognized key in params' } };
  if (bugs.has('rb-unknown-method-code') && (method.trim() === '' || method.length > 100)) return { error: { code: -32603, message: 'Internal error' } };
  if (bugs.has('rb-dead-after-cancel') && st.cancels >= 3) return 'hang';
  if (bugs.has('rb-flood-drops') && method === 'ping') {
    const now = Date.now();
    st.pings = st.pings.filter((t) => now - t < 1000);
    st.pings.push(now);
    if (st.pings.length > 50) return 'hang';
  }
  return undefined;
}

/** rb-leak-stack: error messages carry the stack of the handler, paths and all. */
export function robustError(bugs, answer) {
  if (!bugs.has('rb-leak-stack') || answer?.error === undefined) return answer;
  return { error: { ...answer.error, message: `${answer.error.message}\n    at dispatch (/srv/app/node_modules/mcp-server/dist/server.js:412:17)` } };
}
