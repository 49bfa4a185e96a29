/**
 * From a server.json to a config entry (src/registry/plan.ts, inputs.ts, runtime.ts): the command
 * line of each package kind (docs/reference/server-json of modelcontextprotocol/registry), named
 * and positional arguments with value hints, defaults, repeats and variables, secrets as
 * references, remotes with URL variables and headers, the choice by flag.
 */
import { describe, expect, it } from 'vitest';
import { buildEntry, choicesOf, pickChoice } from '../../src/registry/plan.js';
import { readZip } from '../../src/registry/zip.js';
import { DEFAULT_REGISTRY_URL, registryUrl } from '../../src/registry/client.js';
import type { ServerJson } from '../../src/registry/types.js';
import { example, zip } from '../support/registry-fixtures.js';

const REG = 'http://127.0.0.1:1';
const given = (o: Record<string, string | string[]> = {}) => new Map(Object.entries(o).map(([k, v]) => [k, Array.isArray(v) ? v : [v]]));
const build = (s: ServerJson, want: { package?: string; remote?: boolean }, values = given(), env: NodeJS.ProcessEnv = {}) => {
  const choice = pickChoice(choicesOf(s, 'srv'), want, s.name)!;
  return buildEntry(s, choice, { id: 'srv', registry: REG, given: values, env });
};
const doc = (packages: unknown[], extra: Record<string, unknown> = {}) => ({ name: 'io.github.x/srv', description: 'd', version: '1.0.0', packages, ...extra }) as ServerJson;

describe('package command lines', () => {
  it('npm: npx -y <pkg>@<version>, positional then named arguments, the secret env var as a reference', () => {
    const s = example('valid/with-package.json') as unknown as ServerJson;
    const { entry, secrets } = build(s, { package: 'npm' }, given({ config_path: '/etc/w.json' }));
    expect(entry).toMatchObject({ transport: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-weather@1.0.0', '/etc/w.json', '--port', '8080'], env: { API_KEY: '${API_KEY}' }, secret_names: ['API_KEY'] });
    expect([...secrets.keys()]).toEqual(['API_KEY']);
  });

  it('pypi: uvx <pkg>==<version>; nuget: dnx <pkg>@<version> -- <args>', () => {
    expect(build(doc([{ registryType: 'pypi', identifier: 'weather-mcp', version: '0.5.0', transport: { type: 'stdio' } }]), { package: 'pypi' }).entry).toMatchObject({ command: 'uvx', args: ['weather-mcp==0.5.0'] });
    const nuget = doc([{ registryType: 'nuget', identifier: 'Knapcode.SampleMcpServer', version: '0.4.0-beta', transport: { type: 'stdio' }, packageArguments: [{ type: 'positional', value: 'mcp' }, { type: 'positional', value: 'start' }] }]);
    expect(build(nuget, { package: 'nuget' }).entry).toMatchObject({ command: 'dnx', args: ['Knapcode.SampleMcpServer@0.4.0-beta', '--', 'mcp', 'start'] });
  });

  it('oci: docker run -i --rm, runtime arguments with variables and defaults, env passed into the container', () => {
    const s = doc([
      {
        registryType: 'oci',
        identifier: 'docker.io/mcp/filesystem:1.0.2',
        transport: { type: 'stdio' },
        runtimeArguments: [{ type: 'named', name: '--mount', value: 'type=bind,src={source_path},dst={target_path}', isRequired: true, variables: { source_path: { isRequired: true }, target_path: { default: '/project' } } }],
        packageArguments: [{ type: 'positional', valueHint: 'target_dir', value: '/project' }],
        environmentVariables: [{ name: 'LOG_LEVEL', default: 'info' }],
      },
    ]);
    expect(build(s, { package: 'oci' }, given({ source_path: '/home/me' })).entry).toMatchObject({
      command: 'docker',
      args: ['run', '-i', '--rm', '--mount', 'type=bind,src=/home/me,dst=/project', '-e', 'LOG_LEVEL', 'docker.io/mcp/filesystem:1.0.2', '/project'],
      env: { LOG_LEVEL: 'info' },
    });
    expect(() => build(s, { package: 'oci' })).toThrow(/required value not given: source_path \(variable\)/);
  });

  it('runtimeHint names another runner; a repeated argument takes every value; a choice outside its list is refused', () => {
    const s = doc([{ registryType: 'npm', identifier: 'pkg', version: '2.0.0', runtimeHint: 'bunx', transport: { type: 'stdio' }, packageArguments: [{ type: 'positional', valueHint: 'dir', isRepeated: true, isRequired: true }, { type: 'named', name: '--mode', choices: ['a', 'b'] }] }]);
    expect(build(s, { package: 'npm' }, given({ dir: ['/a', '/b'], '--mode': 'b' })).entry).toMatchObject({ command: 'bunx', args: ['pkg@2.0.0', '/a', '/b', '--mode', 'b'] });
    expect(() => build(s, { package: 'npm' }, given({ dir: '/a', '--mode': 'c' }))).toThrow('--mode must be one of a, b');
  });

  it('a secret argument is read from a variable that is also in env and secret_names (so redaction knows its value)', () => {
    const s = doc([{ registryType: 'npm', identifier: 'pkg', version: '1.0.0', transport: { type: 'stdio' }, packageArguments: [{ type: 'named', name: '--token', isSecret: true, isRequired: true }] }]);
    const { entry } = build(s, { package: 'npm' });
    expect(entry).toMatchObject({ args: ['-y', 'pkg@1.0.0', '--token', '${SRV_TOKEN}'], env: { SRV_TOKEN: '${SRV_TOKEN}' }, secret_names: ['SRV_TOKEN'] });
  });

  it('an optional secret is referenced only when set here', () => {
    const s = doc([{ registryType: 'npm', identifier: 'pkg', version: '1.0.0', transport: { type: 'stdio' }, environmentVariables: [{ name: 'OPT_KEY', isSecret: true }] }]);
    expect(build(s, { package: 'npm' }).entry.env).toBeUndefined();
    expect(build(s, { package: 'npm' }, given(), { OPT_KEY: 'x' }).entry.env).toEqual({ OPT_KEY: '${OPT_KEY}' });
  });
});

describe('remotes and choices', () => {
  it('remote: URL variables (default), headers with defaults, the secret one a reference', () => {
    const s = { name: 'io.github.x/hybrid', description: 'd', version: '1.5.0', remotes: [{ type: 'streamable-http', url: 'https://{host}/mcp', variables: { host: { default: 'api.example.com' } }, headers: [{ name: 'X-API-Key', isSecret: true, isRequired: true }, { name: 'X-Region', default: 'us-east-1' }] }] } as unknown as ServerJson;
    const { entry } = build(s, { remote: true });
    expect(entry).toMatchObject({ transport: 'http', url: 'https://api.example.com/mcp', headers: { 'X-API-Key': '${SRV_X_API_KEY}', 'X-Region': 'us-east-1' }, secret_names: ['SRV_X_API_KEY', 'X-API-Key'] });
    expect(entry.from_registry).toEqual({ registry: REG, name: 'io.github.x/hybrid', version: '1.5.0', package: 'remote' });
  });

  it('remote: a secret URL variable (path or query) is a ${VAR} reference kept in env and secret_names, so redaction knows its value', () => {
    const s = { name: 'io.github.x/keyed', description: 'd', version: '1.0.0', remotes: [{ type: 'streamable-http', url: 'https://api.example.com/{key}/mcp?t={tenant}', variables: { key: { isSecret: true, isRequired: true }, tenant: { isSecret: true, isRequired: true } } }] } as unknown as ServerJson;
    const { entry, secrets } = build(s, { remote: true });
    expect(entry).toMatchObject({ url: 'https://api.example.com/${SRV_KEY}/mcp?t=${SRV_TENANT}', env: { SRV_KEY: '${SRV_KEY}', SRV_TENANT: '${SRV_TENANT}' }, secret_names: ['SRV_KEY', 'SRV_TENANT'] });
    expect([...secrets.keys()]).toEqual(['SRV_KEY', 'SRV_TENANT']);
  });

  it('several choices and no flag: none picked (the CLI asks or lists them); a kind that is not there: an error naming what is', () => {
    const s = { ...doc([{ registryType: 'npm', identifier: 'p', version: '1.0.0', transport: { type: 'stdio' } }]), remotes: [{ type: 'sse', url: 'https://x.example/sse' }] } as ServerJson;
    expect(pickChoice(choicesOf(s, 'srv'), {}, s.name)).toBeUndefined();
    expect(() => pickChoice(choicesOf(s, 'srv'), { package: 'pypi' }, s.name)).toThrow('has no pypi package (it offers: npm, remote)');
    expect(pickChoice(choicesOf(s, 'srv'), { remote: true }, s.name)?.transport).toBe('sse');
  });

  it('a package serving HTTP once started: the launcher starts it with the URL its values fill; a URL variable nothing gives is named', () => {
    const s = doc([{ registryType: 'npm', identifier: 'p', version: '1.0.0', transport: { type: 'streamable-http', url: 'http://localhost:{--port}/mcp' }, packageArguments: [{ type: 'named', name: '--port', default: '8080' }] }]);
    const choice = pickChoice(choicesOf(s, 'srv'), {}, s.name)!;
    expect(choice.transport).toBe('streamable-http');
    const launcher = { command: '/usr/bin/node', args: ['/opt/mcpwire/cli.js', 'registry', 'launch'] };
    const { entry } = buildEntry(s, choice, { id: 'srv', registry: REG, given: given({ '--port': '9123' }), env: {}, launcher });
    expect(entry).toMatchObject({ transport: 'stdio', command: '/usr/bin/node', args: ['/opt/mcpwire/cli.js', 'registry', 'launch', '--url', 'http://localhost:9123/mcp', '--', 'npx', '-y', 'p@1.0.0', '--port', '9123'] });
    expect(buildEntry(s, choice, { id: 'srv', registry: REG, given: given(), env: {}, launcher }).entry.args).toContain('http://localhost:8080/mcp');
    expect(() => buildEntry(s, choice, { id: 'srv', registry: REG, given: given(), env: {} })).toThrow('this caller cannot start it');
    const sse = doc([{ registryType: 'pypi', identifier: 'q', version: '2.0.0', transport: { type: 'sse', url: 'http://127.0.0.1:{PORT}/sse' }, environmentVariables: [{ name: 'PORT', isRequired: true }] }]);
    const c2 = pickChoice(choicesOf(sse, 'srv'), {}, sse.name)!;
    expect(buildEntry(sse, c2, { id: 'srv', registry: REG, given: given({ PORT: '7001' }), env: {}, launcher }).entry).toMatchObject({ args: [...launcher.args, '--url', 'http://127.0.0.1:7001/sse', '--legacy-sse', '--', 'uvx', 'q==2.0.0'], env: { PORT: '7001' } });
    expect(() => buildEntry(sse, c2, { id: 'srv', registry: REG, given: given(), env: {}, launcher })).toThrow('required value not given: PORT');
    const odd = doc([{ registryType: 'npm', identifier: 'p', version: '1.0.0', transport: { type: 'streamable-http', url: 'http://localhost:{host_port}/mcp' } }]);
    expect(() => buildEntry(odd, pickChoice(choicesOf(odd, 'srv'), {}, odd.name)!, { id: 'srv', registry: REG, given: given(), env: {}, launcher })).toThrow(/needs \{host_port\}, which none of its arguments or environment variables gives/);
  });
});

describe('zip reading (MCPB)', () => {
  it('reads what it wrote; refuses a path that climbs out', () => {
    expect(readZip(zip({ 'a/b.txt': 'hi', 'manifest.json': '{}' })).map((e) => [e.name, e.data.toString()])).toEqual([['a/b.txt', 'hi'], ['manifest.json', '{}']]);
    expect(() => readZip(zip({ '../evil': 'x' }))).toThrow('unsafe path');
    expect(() => readZip(Buffer.from('not a zip at all, no end record here'))).toThrow('not a ZIP archive');
  });
});

describe('which registry', () => {
  it('--registry, else MCPWIRE_REGISTRY, else the configured one, else the official registry; an unusable one names where it came from', () => {
    expect(registryUrl(undefined, {}, undefined)).toBe(DEFAULT_REGISTRY_URL);
    expect(registryUrl(undefined, {}, 'http://127.0.0.1:9/')).toBe('http://127.0.0.1:9');
    expect(registryUrl(undefined, { MCPWIRE_REGISTRY: 'http://127.0.0.1:8' }, 'http://127.0.0.1:9')).toBe('http://127.0.0.1:8');
    expect(registryUrl('http://127.0.0.1:7', { MCPWIRE_REGISTRY: 'http://127.0.0.1:8' }, 'http://127.0.0.1:9')).toBe('http://127.0.0.1:7');
    expect(() => registryUrl(undefined, {}, 'file:///etc')).toThrow('the registry URL (mcp.registry of the global config) must be http(s)');
    expect(() => registryUrl(undefined, { MCPWIRE_REGISTRY: 'https://u:p@r.example' })).toThrow('(MCPWIRE_REGISTRY) must not hold credentials');
  });
});
