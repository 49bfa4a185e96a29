/**
 * The shapes of a `server.json` (schema 2025-12-11, `schema/server-json-2025-12-11.schema.json`)
 * and of the registry API's answers (`GET /v0.1/servers`, `/v0.1/servers/{name}/versions/{v}`),
 * as far as mcpwire reads them. Everything else in a document is carried but not interpreted.
 */

/** An `Input` of the schema: a value the user may give, with its hints. */
export interface InputSpec {
  description?: string;
  isRequired?: boolean;
  isSecret?: boolean;
  format?: string;
  default?: string;
  placeholder?: string;
  choices?: string[];
  /** Fixed by the publisher; `{name}` pieces come from `variables`. */
  value?: string;
  variables?: Record<string, InputSpec>;
}

export interface KeyValueInput extends InputSpec {
  name: string;
}

export interface ArgumentSpec extends InputSpec {
  type: 'positional' | 'named';
  name?: string;
  valueHint?: string;
  isRepeated?: boolean;
}

export interface TransportSpec {
  type: 'stdio' | 'streamable-http' | 'sse';
  url?: string;
  headers?: KeyValueInput[];
  variables?: Record<string, InputSpec>;
}

export interface PackageSpec {
  registryType: string;
  registryBaseUrl?: string;
  identifier: string;
  version?: string;
  fileSha256?: string;
  runtimeHint?: string;
  transport: TransportSpec;
  runtimeArguments?: ArgumentSpec[];
  packageArguments?: ArgumentSpec[];
  environmentVariables?: KeyValueInput[];
}

export interface ServerJson {
  $schema?: string;
  name: string;
  description: string;
  title?: string;
  version: string;
  websiteUrl?: string;
  repository?: { url: string; source: string; subfolder?: string };
  packages?: PackageSpec[];
  remotes?: TransportSpec[];
  _meta?: Record<string, unknown>;
}

/** One item of a list answer: the server.json and the registry's own metadata. */
export interface ServerResponse {
  server: ServerJson;
  _meta?: Record<string, unknown>;
}

export interface ServerList {
  servers: ServerResponse[];
  metadata?: { nextCursor?: string | null; count?: number };
}
