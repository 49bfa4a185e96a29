/**
 * `mcpwire check`'s MCP Apps checks (src/check/apps.ts): the extension's four example servers
 * pass, the scripted app server (mock-servers/apps, MOCK_APP_ROLE=check) passes clean, and each
 * planted bug fails the check that names it and no other. The unhappy-path server (its default
 * role) fails exactly the checks of its two server-side bugs (a view of the wrong MIME type, a
 * missing view); its other bugs are a view's doing at run time (test/apps-mock-servers.test.ts).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliHere } from '../support/cli-in-process.js';
import { node, root } from '../support/cli-process.js';
import { tempDirs } from '../support/temp-dirs.js';

const MOCK = join(root, 'mock-servers/apps/app-server.mjs');
const BUGS: Record<string, string> = {
  'not-ui': 'apps.view-readable',
  missing: 'apps.view-readable',
  mime: 'apps.view-mime',
  'not-html': 'apps.view-html',
  'csp-key': 'apps.csp-origins',
  'csp-entry': 'apps.csp-origins',
  permission: 'apps.known-values',
  visibility: 'apps.known-values',
  'app-only-no-view': 'apps.app-only-reachable',
};
/** The six apps checks (src/check/apps.ts), each run against every server here. */
const APPS_CHECKS = ['apps.app-only-reachable', 'apps.csp-origins', 'apps.known-values', 'apps.view-html', 'apps.view-mime', 'apps.view-readable'];
const example = (name: string) => ({ transport: 'stdio', command: node, args: [join(root, 'node_modules/@modelcontextprotocol', name, 'dist/index.js'), '--stdio'] });
const mock = (bug?: string) => ({ transport: 'stdio', command: node, args: [MOCK], env: { MOCK_APP_ROLE: 'check', ...(bug ? { MOCK_APP_BUG: bug } : {}) } });
const dir = tempDirs('mcpwire-apps-check-')();
const config = join(dir, 'config.json');
writeFileSync(
  config,
  JSON.stringify({
    version: 1,
    mcp: {
      servers: {
        vanilla: example('server-basic-vanillajs'),
        react: example('server-basic-react'),
        budget: example('server-budget-allocator'),
        sysmon: example('server-system-monitor'),
        clean: mock(),
        // the unhappy-path server of test/apps-mock-servers.test.ts as it is (its wrong_mime and missing views)
        unhappy: { transport: 'stdio', command: node, args: [MOCK] },
        ...Object.fromEntries(Object.keys(BUGS).map((b) => [`bug-${b}`, mock(b)])),
      },
    },
  }),
);

interface Report {
  servers: { id: string; report: { results: { id: string; status: string; detail?: string }[] } }[];
}
async function apps(): Promise<Map<string, Map<string, string>>> {
  const r = await runCliHere(['check', '--all', '--config', config, '--only', 'apps', '--json'], { timeoutMs: 280_000 });
  const out = new Map<string, Map<string, string>>();
  for (const s of (JSON.parse(r.stdout) as Report).servers) out.set(s.id, new Map(s.report.results.map((x) => [x.id, x.status])));
  return out;
}

describe('check: MCP Apps', () => {
  it('the example servers and the clean mock pass; each planted bug fails its check', { timeout: 300_000 }, async () => {
    const got = await apps();
    for (const id of ['vanilla', 'react', 'budget', 'sysmon', 'clean']) {
      const statuses = [...got.get(id)!.values()];
      expect(statuses.filter((s) => s === 'fail' || s === 'warn' || s === 'error'), id).toEqual([]);
      expect(got.get(id)!.get('apps.view-readable'), id).toBe('pass');
      expect(got.get(id)!.get('apps.view-mime'), id).toBe('pass');
      expect(got.get(id)!.get('apps.view-html'), id).toBe('pass');
    }
    expect([...got.get('clean')!.values()].every((s) => s === 'pass')).toBe(true);
    expect(got.get('sysmon')!.get('apps.app-only-reachable')).toBe('pass');
    const unhappy = got.get('unhappy')!;
    expect(unhappy.get('apps.view-readable')).toBe('fail'); // ui://mock/missing.html
    expect(unhappy.get('apps.view-mime')).toBe('fail'); // ui://mock/wrong.html served as text/html
    expect([...unhappy].filter(([, status]) => status === 'fail' || status === 'warn' || status === 'error').map(([id]) => id).sort()).toEqual(['apps.view-mime', 'apps.view-readable']);
    expect([...got.get('vanilla')!.keys()].filter((k) => k.startsWith('apps.')).sort()).toEqual(APPS_CHECKS);
    for (const [bug, check] of Object.entries(BUGS)) {
      const results = got.get(`bug-${bug}`)!;
      expect(results.get(check), bug).toBe(check === 'apps.app-only-reachable' ? 'warn' : 'fail');
      // caught by the check that names it, and by no other: each planted bug is one check's
      const flagged = [...results].filter(([, status]) => status === 'fail' || status === 'warn' || status === 'error').map(([id]) => id);
      expect(flagged, bug).toEqual([check]);
    }
  });
});
