/**
 * The documents the local registry (mock-servers/registry-server.mjs) serves in the registry
 * tests and the docs: the example server.json files of modelcontextprotocol/registry
 * (test/fixtures/registry/, copied as published), the same examples adapted to what runs here
 * (the installed @modelcontextprotocol/server-memory; a remote on a loopback mock), a generated
 * catalog for paging, an MCPB bundle built here, and an `npx` stand-in that runs the installed
 * package instead of downloading it (npx -y would reach the network).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { root } from './cli-process.js';

const fixtures = path.join(root, 'test/fixtures/registry');
export const example = (file: string): Record<string, unknown> => JSON.parse(fs.readFileSync(path.join(fixtures, file), 'utf8')) as Record<string, unknown>;

export const SCHEMA_URL = 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';
export const memoryPkg = '@modelcontextprotocol/server-memory';
export const memoryVersion = (JSON.parse(fs.readFileSync(path.join(root, 'node_modules', memoryPkg, 'package.json'), 'utf8')) as { version: string }).version;
export const memoryBin = path.join(root, 'node_modules', memoryPkg, 'dist/index.js');
export const MEMORY = 'io.github.modelcontextprotocol/server-memory';

/** The repository's with-package example, adapted: the installed memory server at `version`. */
export function memoryDoc(version = memoryVersion): Record<string, unknown> {
  return {
    $schema: SCHEMA_URL,
    name: MEMORY,
    title: 'Memory',
    description: 'Knowledge-graph memory for an agent, kept in a JSON file.',
    version,
    repository: { url: 'https://github.com/modelcontextprotocol/servers', source: 'github', subfolder: 'src/memory' },
    packages: [
      {
        registryType: 'npm',
        identifier: memoryPkg,
        version,
        runtimeHint: 'npx',
        transport: { type: 'stdio' },
        environmentVariables: [{ name: 'MEMORY_FILE_PATH', description: 'Where the graph is kept', isRequired: true, format: 'filepath' }],
      },
    ],
  };
}

/** The repository's with-remote example, adapted: plain http (a loopback mock), its host a variable. */
export function remoteDoc(): Record<string, unknown> {
  const d = example('valid/with-remote.json');
  const remotes = d.remotes as { url: string }[];
  remotes[0].url = 'http://{host}/mcp';
  return d;
}

/** An OCI package (docker must be missing from the PATH the test gives). */
export function ociDoc(): Record<string, unknown> {
  return {
    $schema: SCHEMA_URL,
    name: 'io.github.example/database-manager',
    description: 'MCP server for database operations',
    version: '3.1.0',
    packages: [{ registryType: 'oci', identifier: 'docker.io/example/database-manager-mcp:3.1.0', transport: { type: 'stdio' } }],
  };
}

/** `n` generated servers (`io.example.catalog/server-0001`…), for paging. */
export function catalog(n: number): Record<string, unknown>[] {
  return Array.from({ length: n }, (_, i) => ({
    $schema: SCHEMA_URL,
    name: `io.example.catalog/server-${String(i + 1).padStart(4, '0')}`,
    description: `Generated catalog server ${i + 1}`,
    version: '1.0.0',
    remotes: [{ type: 'streamable-http', url: `https://catalog.example.com/${i + 1}/mcp` }],
  }));
}

/** A ZIP archive (stored entries) of `files`. */
export function zip(files: Record<string, string | Buffer>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, content] of Object.entries(files)) {
    const data = Buffer.isBuffer(content) ? content : Buffer.from(content);
    const n = Buffer.from(name);
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(n.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(n.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, n, data);
    centrals.push(central, n);
    offset += 30 + n.length + data.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Object.keys(files).length, 8);
  end.writeUInt16LE(Object.keys(files).length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

/** An MCPB bundle whose server is the installed memory server (its manifest launches node on it). */
export function memoryBundle(): Buffer {
  return zip({
    'manifest.json': JSON.stringify({ manifest_version: '0.2', name: 'memory', version: '1.0.0', server: { type: 'node', entry_point: 'server/index.mjs', mcp_config: { command: 'node', args: ['${__dirname}/server/index.mjs'] } } }),
    'server/index.mjs': `import ${JSON.stringify(memoryBin)};\n`,
  });
}

export const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** An MCPB server.json for a bundle served at `url`. */
export function bundleDoc(url: string, fileSha256: string): Record<string, unknown> {
  return {
    $schema: SCHEMA_URL,
    name: 'io.github.example/memory-bundle',
    description: 'The memory server as an MCP Bundle',
    version: '1.0.0',
    packages: [{ registryType: 'mcpb', identifier: url, fileSha256, transport: { type: 'stdio' } }],
  };
}

/**
 * A directory holding an `npx` that runs the installed memory server when asked for
 * `-y @modelcontextprotocol/server-memory@<version>` (and fails otherwise): the entry mcpwire
 * writes is run as written, without the network.
 */
export function npxShim(dir: string): string {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'npx');
  fs.writeFileSync(
    file,
    `#!/bin/sh\nif [ "$1" = "-y" ] && case "$2" in ${memoryPkg}@*) true;; *) false;; esac; then exec ${JSON.stringify(process.execPath)} ${JSON.stringify(memoryBin)}; fi\necho "npx stand-in: unexpected arguments: $*" >&2\nexit 1\n`,
    { mode: 0o755 },
  );
  return dir;
}
