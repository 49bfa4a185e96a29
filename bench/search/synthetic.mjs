// A large synthetic tool catalog for the tool-search bench: deterministic (same tools every run).
// First a set of named SaaS-like servers (jira, slack, github, stripe, …) with realistic tools —
// the eval set's `synthetic` requests are labelled against these — then filler servers built
// from a common vocabulary (records, messages, files, pages, users…) until the catalog has the
// size asked for: distractors that share words with the real requests.

const STANDARD = ['create', 'get', 'list', 'update', 'delete', 'search'];

/** Named servers: resources and the extra operations a user would expect of them. */
const NAMED = {
  jira: { resources: ['issue', 'comment', 'sprint', 'project', 'board', 'attachment'], extra: [['close', 'issue'], ['assign', 'issue'], ['transition', 'issue']] },
  slack: { resources: ['channel', 'user', 'reaction', 'file', 'reminder'], extra: [['send', 'message'], ['pin', 'message'], ['archive', 'channel']] },
  github: { resources: ['repository', 'pull_request', 'issue', 'branch', 'release', 'member'], extra: [['merge', 'pull_request'], ['fork', 'repository'], ['request', 'review']] },
  calendar: { resources: ['event', 'calendar', 'attendee', 'reminder'], extra: [['find', 'free_time'], ['respond', 'invitation']] },
  stripe: { resources: ['customer', 'invoice', 'subscription', 'product', 'price'], extra: [['refund', 'payment'], ['capture', 'payment'], ['void', 'invoice']] },
  s3: { resources: ['bucket', 'object', 'policy'], extra: [['upload', 'object'], ['download', 'object'], ['copy', 'object'], ['presign', 'url']] },
  kubernetes: { resources: ['pod', 'deployment', 'service', 'namespace', 'config_map', 'secret'], extra: [['restart', 'pod'], ['scale', 'deployment'], ['rollback', 'deployment'], ['tail', 'pod_logs']] },
  datadog: { resources: ['monitor', 'dashboard', 'incident', 'metric'], extra: [['search', 'logs'], ['mute', 'monitor'], ['query', 'metrics']] },
  gmail: { resources: ['draft', 'label', 'thread', 'filter'], extra: [['send', 'message'], ['reply', 'message'], ['forward', 'message']] },
  sheets: { resources: ['spreadsheet', 'sheet', 'range', 'chart'], extra: [['append', 'row'], ['clear', 'range'], ['format', 'cells']] },
  notion: { resources: ['page', 'database', 'block', 'comment'], extra: [['archive', 'page'], ['duplicate', 'page'], ['query', 'database']] },
  salesforce: { resources: ['lead', 'opportunity', 'account', 'contact', 'case'], extra: [['convert', 'lead'], ['close', 'opportunity']] },
  zendesk: { resources: ['ticket', 'macro', 'organization', 'article'], extra: [['escalate', 'ticket'], ['merge', 'tickets']] },
  postgres: { resources: ['table', 'index', 'role', 'schema'], extra: [['run', 'query'], ['explain', 'query'], ['vacuum', 'table']] },
  pagerduty: { resources: ['incident', 'schedule', 'escalation_policy', 'service'], extra: [['acknowledge', 'incident'], ['resolve', 'incident']] },
  figma: { resources: ['file', 'component', 'comment', 'project'], extra: [['export', 'frame'], ['publish', 'library']] },
};

const FILLER_RESOURCES = [
  'record', 'message', 'file', 'page', 'user', 'group', 'report', 'task', 'note', 'folder', 'document', 'order', 'item', 'asset', 'device',
  'alert', 'job', 'queue', 'webhook', 'token', 'session', 'invoice', 'contact', 'ticket', 'workflow', 'template', 'tag', 'comment', 'image', 'backup',
];
const FILLER_VERBS = ['create', 'get', 'list', 'update', 'delete', 'search', 'archive', 'export', 'import', 'sync', 'approve', 'publish'];
const PRODUCTS = ['acme', 'orbit', 'nimbus', 'vertex', 'quill', 'harbor', 'lumen', 'cobalt', 'pylon', 'atlas', 'ember', 'fjord', 'glyph', 'halo', 'ion', 'jade'];

const words = (s) => s.replace(/_/g, ' ');
const plural = (s) => (s.endsWith('s') ? s : s.endsWith('y') ? `${s.slice(0, -1)}ies` : `${s}s`);
const title = (s) => s.charAt(0).toUpperCase() + s.slice(1);

/** The description a real server would write for one operation. */
function describe(product, verb, resource) {
  const r = words(resource);
  switch (verb) {
    case 'create': return `Creates a new ${r} in ${title(product)}. Returns the created ${r} with its id.`;
    case 'get': return `Retrieves one ${r} from ${title(product)} by its id, with all of its fields.`;
    case 'list': return `Lists ${plural(r)} in ${title(product)}, newest first, with pagination.`;
    case 'update': return `Updates fields of an existing ${r} in ${title(product)}. Only the given fields change.`;
    case 'delete': return `Deletes a ${r} from ${title(product)}. This cannot be undone.`;
    case 'search': return `Searches ${plural(r)} in ${title(product)} by a text query and filters.`;
    default: return `${title(verb)}s the ${r} in ${title(product)}.`;
  }
}

function schema(verb, resource) {
  const r = words(resource);
  const props = {};
  if (['get', 'update', 'delete'].includes(verb) || !STANDARD.includes(verb)) props[`${resource}_id`] = { type: 'string', description: `The ${r} id` };
  if (verb === 'create' || verb === 'update') {
    props.name = { type: 'string', description: `Name of the ${r}` };
    props.fields = { type: 'object', description: `Other fields of the ${r}`, additionalProperties: true };
  }
  if (verb === 'list' || verb === 'search') {
    props.limit = { type: 'integer', minimum: 1, maximum: 100, description: 'Page size' };
    props.cursor = { type: 'string', description: 'Cursor from the previous page' };
  }
  if (verb === 'search') props.query = { type: 'string', description: 'Text to look for' };
  return { type: 'object', properties: props, required: Object.keys(props).filter((k) => k.endsWith('_id') || k === 'query') };
}

function tool(product, verb, resource) {
  return { name: `${product}_${verb}_${resource}`, description: describe(product, verb, resource), inputSchema: schema(verb, resource) };
}

/** `[{ server, tools }]` with `size` tools in all (the named servers first, then filler). */
export function syntheticCatalog(size) {
  const servers = [];
  let count = 0;
  const push = (server, tools) => {
    const room = size - count;
    if (room <= 0) return;
    const kept = tools.slice(0, room);
    servers.push({ server, tools: kept });
    count += kept.length;
  };
  for (const [product, spec] of Object.entries(NAMED)) {
    const tools = spec.resources.flatMap((r) => STANDARD.map((v) => tool(product, v, r)));
    for (const [v, r] of spec.extra) tools.push(tool(product, v, r));
    push(product, tools);
  }
  for (let i = 0; count < size; i++) {
    const product = `${PRODUCTS[i % PRODUCTS.length]}${Math.floor(i / PRODUCTS.length) + 1}`;
    const resources = FILLER_RESOURCES.filter((_, k) => (k + i) % 3 === 0);
    push(product, resources.flatMap((r) => FILLER_VERBS.map((v) => tool(product, v, r))));
  }
  return servers;
}
