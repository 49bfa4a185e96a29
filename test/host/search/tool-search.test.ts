/**
 * Tool search's ranking over a small catalog (src/host/search): identifiers split into words,
 * stems, the name and title boosts, filters, app-only tools, the index following changes, and
 * the agent mode's definitions and deferred-loading shape. Each ranking case is built so that it
 * fails when the piece it names is taken out (a boost set to 1, the case splitting or the stemmer
 * removed): the competing tool then ranks first.
 */
import { describe, expect, it } from 'vitest';
import type { Tool } from '../../../src/mcp/types.js';
import { adaptTools } from '../../../src/host/tools.js';
import { createToolIndex, type ToolIndex } from '../../../src/host/search/tool-index.js';
import { phraseOf, splitWords, termOf, termsOf } from '../../../src/host/search/words.js';
import { MAX_QUERY_POSTINGS, Vocabulary } from '../../../src/host/search/vocabulary.js';
import { porterStem } from '../../../src/host/search/porter.js';
import { deferredTools, pinnedTools, searchToolDefinitions, TOOL_SEARCH_NAMES } from '../../../src/host/search/agent-tools.js';

const t = (name: string, description: string, extra: Partial<Tool> = {}): Tool => ({ name, description, inputSchema: { type: 'object', properties: {} }, ...extra });

async function indexOf(servers: { server: string; tools: Tool[] }[]): Promise<ToolIndex> {
  const catalog = adaptTools(servers);
  const index = await createToolIndex();
  index.sync(catalog.tools.map((tool) => ({ tool, original: catalog.byName.get(tool.name)!.tool })));
  return index;
}

const top = (index: ToolIndex, q: string, o = {}) => index.search(q, o).map((h) => h.tool);

describe('words', () => {
  it('splits snake, kebab, camel and Pascal case, acronyms and dotted names', () => {
    expect(splitWords('browser_take_screenshot')).toEqual(['browser', 'take', 'screenshot']);
    expect(splitWords('read-text-file')).toEqual(['read', 'text', 'file']);
    expect(splitWords('getTinyImage')).toEqual(['get', 'Tiny', 'Image']);
    expect(splitWords('HTTPServer.listV2Items')).toEqual(['HTTP', 'Server', 'list', 'V2', 'Items']);
  });

  it('stems like Porter and drops function words', () => {
    expect(['listing', 'lists', 'listed'].map(porterStem)).toEqual(['list', 'list', 'list']);
    expect(['relational', 'conditional', 'hopefulness', 'directories'].map(porterStem)).toEqual(['relat', 'condit', 'hope', 'directori']);
    expect(termOf('The')).toBeNull();
    expect(termOf('Deleting')).toBe('delet');
  });
});

describe('ranking', () => {
  it('finds a tool by the words of its camelCase name (fails without case splitting)', async () => {
    const index = await indexOf([
      { server: 'a', tools: [t('getTinyImage', 'Returns a small test picture.'), t('render', 'Render an image of a tiny size for previews.')] },
    ]);
    expect(top(index, 'get tiny image')[0]).toBe('getTinyImage');
  });

  it('finds a tool by the words of its snake_case name (fails without splitting at _)', async () => {
    const index = await indexOf([
      { server: 'a', tools: [t('list_allowed_directories', 'Shows where this server may go.'), t('roots', 'The allowed directories of the list of roots, as allowed directories.')] },
    ]);
    expect(top(index, 'list allowed directories')[0]).toBe('list_allowed_directories');
  });

  it('a match in the name outranks the same words in a description (fails without the name boost)', async () => {
    const index = await indexOf([
      { server: 'a', tools: [t('archive_entry', 'Delete file, then keep a copy.'), t('delete_file_in_storage_bucket', 'Takes an entry out of a bucket of the store, with its history.')] },
    ]);
    expect(top(index, 'delete file')[0]).toBe('delete_file_in_storage_bucket');
  });

  it('a match in the title outranks the same words in a description (fails without the title boost)', async () => {
    const index = await indexOf([
      { server: 'a', tools: [t('op1', 'Run it. Sends an email message; the email message goes out now.'), t('op2', 'Run it now.', { title: 'Send email' })] },
    ]);
    expect(top(index, 'send email')[0]).toBe('op2');
  });

  it('stems the query and the text alike: "deleting files" finds delete_file (fails without the stemmer)', async () => {
    const index = await indexOf([{ server: 'a', tools: [t('delete_file', 'Removes one.'), t('deleting', 'Old files.'), t('noop', 'Nothing.')] }]);
    const hits = index.search('deleting files');
    expect(hits[0]!.tool).toBe('delete_file');
    expect(hits[0]!.score).toBeGreaterThan(hits[1]!.score);
  });

  it('matches parameter names and descriptions, and the server id', async () => {
    const index = await indexOf([
      { server: 'weather', tools: [t('lookup', 'Looks up.', { inputSchema: { type: 'object', properties: { postalCode: { type: 'string', description: 'Where to look' } } } })] },
      { server: 'other', tools: [t('lookup', 'Looks up.')] },
    ]);
    expect(index.search('postal code')[0]).toMatchObject({ server: 'weather', tool: 'lookup' });
    expect(index.search('weather lookup')[0]).toMatchObject({ server: 'weather' });
  });

  it('synonyms: "remove a folder" finds delete_directory; a prefix finds the whole word', async () => {
    const index = await indexOf([{ server: 'a', tools: [t('delete_directory', 'Deletes it.'), t('move_file', 'Moves it.'), t('browser_take_screenshot', 'Captures the page.')] }]);
    expect(top(index, 'remove a folder')[0]).toBe('delete_directory');
    expect(top(index, 'screensh')[0]).toBe('browser_take_screenshot');
  });

  it('a prefix is a fallback: a word some tool holds as it is does not also match longer words (fails if every long word matches as a prefix)', async () => {
    const index = await indexOf([{ server: 'a', tools: [t('get_screen', 'Gets the screen size.'), t('take_screenshot', 'Captures the page.')] }]);
    expect(top(index, 'screen')).toEqual(['get_screen']);
    expect(top(index, 'screensh')).toEqual(['take_screenshot']);
  });

  it('counts words, not terms: a word found as itself and as its synonym mark is one word (fails if the stem and its mark count twice)', async () => {
    const index = await indexOf([
      { server: 'a', tools: [t('remove', 'Takes an entry away.'), t('erase_old', 'Clears entries past their date.')] },
    ]);
    expect(top(index, 'remove old')[0]).toBe('erase_old');
  });

  it('a query of common words over a large catalog: each word is still searched when the budget leaves terms out', async () => {
    const filler = [
      ...Array.from({ length: 1000 }, (_, i) => t(`approve_user_${i}`, 'Approves the user.')),
      ...Array.from({ length: 1000 }, (_, i) => t(`delete_record_${i}`, 'Deletes the record.')),
    ];
    const index = await indexOf([{ server: 'big', tools: filler }, { server: 'iam', tools: [t('delete_user_9', 'Deletes the user.'), t('get_zebra_record', 'Gets the zebra record by its id.')] }]);
    expect(index.search('delete a user', { limit: 3 })[0]).toMatchObject({ server: 'iam', tool: 'delete_user_9' });
    expect(index.search('get the zebra record by id', { limit: 3 })[0]).toMatchObject({ server: 'iam', tool: 'get_zebra_record' });
  });

  it('past the budget a word is still searched by its synonym mark: "make a folder" finds create_directory among thousands of create_… and …_folder tools (fails if a word keeps its rarest term)', async () => {
    const filler = [
      ...Array.from({ length: 1200 }, (_, i) => t(`create_record_${i}`, 'Creates a record.')),
      ...Array.from({ length: 400 }, (_, i) => t(`approve_folder_${i}`, 'Approves the folder.')),
      ...Array.from({ length: 1000 }, (_, i) => t(`list_item_${i}`, 'Lists items.')),
    ];
    const index = await indexOf([{ server: 'big', tools: [...filler, t('make_coffee', 'Brews coffee.')] }, { server: 'fs', tools: [t('create_directory', 'Creates a new directory.')] }]);
    expect(index.search('make a folder', { limit: 3 })[0]).toMatchObject({ server: 'fs', tool: 'create_directory' });
  });

  it('template clones do not fill the top: the same tool of many servers, or a family of one server, gives way to a different tool (fails without the alike-results decay)', async () => {
    // every `<server>_<verb>_alert` says the same as the others apart from its own name's words
    const clones = ['s1', 's2', 's3', 's4'].map((server) => ({ server, tools: ['export', 'archive'].map((verb) => t(`${server}_${verb}_alert`, `${verb[0]!.toUpperCase()}${verb.slice(1)}s the alert in ${server.toUpperCase()}.`)) }));
    const index = await indexOf([...clones, { server: 'web', tools: [t('handle_dialog', 'Accepts or dismisses a dialog: an alert, a confirm or a prompt box the page opened.')] }]);
    const hits = top(index, 'an alert', { limit: 5 });
    expect(hits[0]).toMatch(/_alert$/);
    expect(hits.slice(0, 3)).toContain('handle_dialog');
    // the clones are not dropped: they follow
    expect(top(index, 'an alert', { limit: 10 })).toHaveLength(9);
  });

  it('tools with descriptions of their own are not clones, however alike the query finds them (fails if alike means matched the same way only)', async () => {
    const index = await indexOf([
      { server: 'fs', tools: [t('read_file', 'Reads the whole of one file.'), t('move_file', 'Moves or renames one file.'), t('copy_file', 'Copies one file elsewhere.')] },
      { server: 'misc', tools: [t('file_stats', 'Counts lines and words.')] },
    ]);
    expect(top(index, 'file', { limit: 3 }).sort()).toEqual(['copy_file', 'move_file', 'read_file']);
  });

  it('a parameter\'s enum values are indexed: a choice the user names finds its tool (fails without the values)', async () => {
    const conditions = { type: 'string', description: 'Throttle the network.', enum: ['Offline', 'Slow 3G', 'Fast 4G'] };
    const index = await indexOf([
      { server: 'b', tools: [t('emulate', 'Emulates features of the page.', { inputSchema: { type: 'object', properties: { networkConditions: conditions } } }), t('list_requests', 'Lists the requests the page made.')] },
    ]);
    expect(top(index, 'pretend we are offline')).toEqual(['emulate']);
  });

  it('a parameter named after the tool\'s own object counts in the name only: a family of tools about one noun does not outrank, on that noun repeated, the tool matching the request\'s verb (fails if the parameter\'s copy counts)', async () => {
    const id = (noun: string) => ({ type: 'object' as const, properties: { [`${noun}_id`]: { type: 'string', description: `The ${noun} id` } } });
    const family = ['archive', 'mute', 'join', 'rename'].map((verb) => t(`hub_${verb}_channel`, `${verb[0]!.toUpperCase()}${verb.slice(1)}s one channel in Hub, by its id.`, { inputSchema: id('channel') }));
    const others = [{ server: 'letters', tools: [t('send_letter', 'Sends the letter.')] }, { server: 'misc', tools: Array.from({ length: 30 }, (_, i) => t(`task_${i}`, `Runs task ${i}.`)) }];
    const index = await indexOf([{ server: 'hub', tools: [...family, t('hub_send_message', 'Sends the message in Hub.', { inputSchema: id('message') })] }, ...others]);
    expect(top(index, 'post in the hub channel', { limit: 5 })[0]).toBe('hub_send_message');
  });

  it('"put" something into a field is typing it (fails without "put" in the typing group)', async () => {
    const index = await indexOf([{ server: 'web', tools: [t('type_text', 'Types text into the focused element.'), t('take_snapshot', 'Captures the page, with the bounding box of each element.')] }]);
    expect(top(index, 'put hello into the search box')[0]).toBe('type_text');
  });

  it('"open" a file or a note is reading or viewing it, as well as opening a page (fails without the open/read/view group)', async () => {
    const index = await indexOf([{ server: 'kb', tools: [t('read_journal', 'Returns the notes of the journal.'), t('open_nodes', 'Opens graph nodes by their names.')] }]);
    expect(top(index, 'open the journal')[0]).toBe('read_journal');
  });

  it('"how many" is a count, which a list answers (fails without the two-word phrase or "count" in the listing group)', async () => {
    const index = await indexOf([
      { server: 'billing', tools: [t('list_invoices', 'Lists invoices, newest first, with pagination.'), t('get_invoice', 'One invoice by its id.'), t('void_invoice', 'Voids an invoice.')] },
    ]);
    expect(top(index, 'how many invoices are there')[0]).toBe('list_invoices');
  });

  it('returns hits best first with scores, full schemas, limit and filters by server and read-only', async () => {
    const schema = { type: 'object', properties: { path: { type: 'string', description: 'file path' } }, required: ['path'] };
    const index = await indexOf([
      { server: 'fs', tools: [t('read_file', 'Read a file.', { inputSchema: schema as Tool['inputSchema'], annotations: { readOnlyHint: true } }), t('write_file', 'Write a file.')] },
      { server: 'git', tools: [t('read_file_at_commit', 'Read a file at a commit.')] },
    ]);
    const hits = index.search('read file', { limit: 2 });
    expect(hits).toHaveLength(2);
    expect(hits[0]).toMatchObject({ server: 'fs', tool: 'read_file', parameters: schema });
    expect(hits[0]!.score).toBeGreaterThanOrEqual(hits[1]!.score);
    expect(index.search('read file', { servers: ['git'] }).map((h) => h.server)).toEqual(['git']);
    expect(index.search('file', { readOnly: true }).map((h) => h.tool)).toEqual(['read_file']);
    expect(index.search('the of')).toEqual([]);
  });
});

describe('a query\'s plan', () => {
  const vocabulary = (tools: string[][]): Vocabulary => {
    const v = new Vocabulary();
    for (const terms of tools) v.add(terms);
    return v;
  };

  it('each term once, weighted by how often it came; single letters dropped; two-word verbs', () => {
    const plan = new Vocabulary().planQuery("what's in the files, the FILE and a doc");
    expect(plan.terms).toEqual(['file', '~file', 'doc']);
    expect(plan.weights.get('file')).toBe(2);
    expect(plan.weights.get('~file')).toBe(3);
    expect(termOf('s')).toBeNull();
    expect(termOf('7')).toBe('7');
    expect(phraseOf('Look', 'up')).toBe('lookup');
    expect(new Vocabulary().planQuery('look up Carol').terms).toEqual([...termsOf('look')!, ...termsOf('lookup')!, 'up', 'carol']);
  });

  it('joins two neighbouring words when the catalog knows the joined word', () => {
    expect(vocabulary([['screenshot']]).planQuery('screen shot').terms).toContain('screenshot');
    expect(vocabulary([['other']]).planQuery('screen shot').terms).not.toContain('screenshot');
  });

  it('a tool\'s term counts once however many of its fields hold it, and counts out the same way (fails if each field\'s copy counts)', () => {
    const v = new Vocabulary();
    const fields = [['file', '~file'], ['file'], [], ['path', 'file'], ['fs']];
    v.addFields(fields);
    v.addFields([['file'], ['file', 'file']]);
    expect([v.count('file'), v.count('~file'), v.count('path')]).toEqual([2, 1, 1]);
    v.removeFields(fields);
    expect([v.count('file'), v.count('~file'), v.count('path')]).toEqual([1, 0, 0]);
  });

  it('past the budget, the most common terms are left out; each word keeps its broadest term within the budget, else its rarest unless most tools hold it', () => {
    // "make" is rare, its group's mark (shared with create) common: the mark stays, the rare word goes past the budget
    const common = vocabulary([...Array.from({ length: 1200 }, () => ['create', '~creat']), ['make', '~creat'], ...Array.from({ length: 400 }, () => ['folder', '~directori']), ...Array.from({ length: 1000 }, () => ['other'])]);
    expect(common.planQuery('make a folder').terms).toEqual(['~creat', '~directori']);
    // a mark held by more tools than the budget is too broad to keep: the word itself stays (fails without the cap: the plan would walk 1,610 tools for one word)
    const broad = vocabulary([...Array.from({ length: MAX_QUERY_POSTINGS + 100 }, () => ['site', '~page']), ...Array.from({ length: 10 }, () => ['page', '~page']), ...Array.from({ length: 2000 }, () => ['other'])]);
    expect(broad.planQuery('page').terms).toEqual(['page']);
    const v = vocabulary([...Array.from({ length: MAX_QUERY_POSTINGS }, () => ['id', 'record']), ...Array.from({ length: MAX_QUERY_POSTINGS }, () => ['id']), ['zebra', 'id']]);
    expect(v.planQuery('zebra record id').terms).toEqual(['zebra', 'record']);
    expect(v.planQuery('zebra id').terms).toEqual(['zebra']);
    expect(v.planQuery('id').terms).toEqual(['id']);
    expect(v.planQuery('unknown record').terms).toEqual(['unknown', 'record']);
  });
});

describe('verbs split by their object, and owners', () => {
  it('a separable two-word verb is found with its object between ("roll the deployment back" is a rollback; fails without separable verbs: the list tool ranks first)', async () => {
    const index = await indexOf([
      { server: 'k8s', tools: [t('rollback_deployment', 'Returns a deployment to its previous revision.'), t('list_deployment', 'Lists the deployments.'), t('navigate_back', 'Goes one page back in the browser history.')] },
    ]);
    expect(top(index, 'roll the deployment back')[0]).toBe('rollback_deployment');
    // only verbs that English separates: "go … to" is not "go to"
    const plan = (q: string) => new Vocabulary().planQuery(q).terms;
    expect(plan('take him out of the graph')).toContain('~delet');
    expect(plan('go on to the page')).not.toContain('goto');
    expect(plan('turn the sound and the lights off')).not.toContain('disabl');
  });

  it('"how large" and "how big" ask for a size, as "how many" asks for a count (fails without them: the reading tool ranks first)', async () => {
    const index = await indexOf([
      { server: 'fs', tools: [t('get_file_info', 'Returns a file\'s metadata: size, modification time, permissions.'), t('read_file', 'Reads the contents of a file.'), t('write_file', 'Writes a file.')] },
    ]);
    expect(top(index, 'how large is notes.txt file')[0]).toBe('get_file_info');
    expect(top(index, 'how big is the file video.mp4')[0]).toBe('get_file_info');
  });

  it('an owner ("the customer\'s subscription") weighs less than what is asked about, and its \'s is not joined into a plural (fails without either: the customer tool ties or wins)', async () => {
    const index = await indexOf([
      { server: 'billing', tools: [t('get_customer', 'Gets a customer.'), t('get_subscription', 'Gets a subscription.'), t('list_plans', 'Lists plans.')] },
    ]);
    expect(top(index, "show the customer's subscription")[0]).toBe('get_subscription');
    expect(top(index, "show the subscription's customer")[0]).toBe('get_customer');
    const plan = new Vocabulary().planQuery("the customer's subscription");
    expect([plan.weights.get('custom'), plan.weights.get('subscript')]).toEqual([0.5, 1]);
  });
});

describe('the index follows the catalog', () => {
  it('adds, re-indexes and removes by difference; app-only tools are never indexed', async () => {
    const index = await createToolIndex();
    const sync = (tools: Tool[]) => {
      const c = adaptTools([{ server: 's', tools }]);
      index.sync(c.tools.map((tool) => ({ tool, original: c.byName.get(tool.name)!.tool })));
    };
    sync([t('alpha', 'first tool'), t('beta', 'second tool'), t('chart', 'draw a chart', { _meta: { ui: { visibility: ['app'] } } })]);
    expect(index.size).toBe(2);
    expect(top(index, 'chart')).toEqual([]);
    sync([t('alpha', 'now about zebras'), t('gamma', 'third tool'), t('chart', 'draw a chart', { _meta: { ui: { visibility: ['model', 'app'] } } })]);
    expect(top(index, 'zebras')).toEqual(['alpha']);
    expect(top(index, 'first')).toEqual([]);
    expect(top(index, 'second')).toEqual([]);
    expect(top(index, 'third')).toEqual(['gamma']);
    expect(top(index, 'chart')).toEqual(['chart']);
  });

  it('tools sharing parameter and server texts (split once, their term lists shared) are indexed, dropped and indexed again one by one', async () => {
    const schema = { type: 'object', properties: { record_id: { type: 'string', description: 'The record id' } } } as Tool['inputSchema'];
    const c = adaptTools(['east', 'west'].map((server) => ({ server, tools: [t('get_record', 'Gets one record.', { inputSchema: schema }), t('drop_record', 'Drops one record.', { inputSchema: schema })] })));
    const all = c.tools.map((tool) => ({ tool, original: c.byName.get(tool.name)!.tool }));
    const found = (index: ToolIndex, q: string) => index.search(q, { limit: 10 }).map((h) => `${h.server}/${h.tool}`).sort();
    const index = await createToolIndex();
    index.sync(all);
    expect(found(index, 'record id')).toEqual(['east/drop_record', 'east/get_record', 'west/drop_record', 'west/get_record']);
    index.sync(all.filter((e) => e.tool.server === 'west'));
    expect([index.size, found(index, 'record id'), found(index, 'east')]).toEqual([2, ['west/drop_record', 'west/get_record'], []]);
    index.sync(all);
    expect(found(index, 'record id')).toHaveLength(4);
    expect(found(index, 'east drop')[0]).toBe('east/drop_record');
  });

  it('an app-only tool handed to the index directly (not through the catalog, which already leaves it out) is not indexed either', async () => {
    const c = adaptTools([{ server: 's', tools: [t('chart', 'draw a chart')] }]);
    const index = await createToolIndex();
    index.sync([{ tool: c.tools[0]!, original: t('chart', 'draw a chart', { _meta: { ui: { visibility: ['app'] } } }) }]);
    expect([index.size, top(index, 'chart')]).toEqual([0, []]);
  });
});

describe('agent mode', () => {
  it('defines the search and call tools; pins by public name or server/tool pattern', () => {
    const defs = searchToolDefinitions();
    expect(defs.map((d) => d.name)).toEqual([TOOL_SEARCH_NAMES.search, TOOL_SEARCH_NAMES.call]);
    expect(defs[0]!.parameters).toMatchObject({ required: ['query'] });
    const c = adaptTools([{ server: 'fs', tools: [t('read_file', 'r'), t('write_file', 'w')] }, { server: 'mem', tools: [t('read_graph', 'g')] }]);
    expect(pinnedTools(c.tools, ['fs/read_*']).map((x) => x.tool)).toEqual(['read_file']);
    expect(pinnedTools(c.tools, [c.tools[2]!.name]).map((x) => x.tool)).toEqual(['read_graph']);
  });

  it('deferred loading: the API search tool first, every tool deferred but the pinned', () => {
    const c = adaptTools([{ server: 'fs', tools: [t('read_file', 'r'), t('write_file', 'w')] }]);
    const out = deferredTools(c.tools, { pinned: ['fs/read_file'] });
    expect(out[0]).toEqual({ type: 'tool_search_tool_bm25_20251119', name: 'tool_search_tool_bm25' });
    expect(out.slice(1)).toEqual([
      { name: c.tools[0]!.name, description: c.tools[0]!.description, input_schema: c.tools[0]!.parameters },
      { name: c.tools[1]!.name, description: c.tools[1]!.description, input_schema: c.tools[1]!.parameters, defer_loading: true },
    ]);
    expect(deferredTools([], { search: 'regex' })).toEqual([{ type: 'tool_search_tool_regex_20251119', name: 'tool_search_tool_regex' }]);
  });
});
