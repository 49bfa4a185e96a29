// Loads a modern mock scenario: MOCK_SCENARIO_JSON (wins), a path, or a name under
// mock-servers/modern/scenarios/. `"extends": "default"` merges onto DEFAULT_MODERN_SCENARIO
// (top-level keys replace, `behavior` merges one level deep), as the handshake-era mocks do.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_MODERN_SCENARIO } from './engine.mjs';

const here = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

export function readModernScenarioFile(ref) {
  const candidates = [ref, path.join(here, 'scenarios', ref), path.join(here, 'scenarios', `${ref}.json`)];
  const file = candidates.find((f) => fs.existsSync(f) && fs.statSync(f).isFile());
  if (!file) throw new Error(`scenario not found: ${ref}`);
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

export function resolveModernScenario(raw, depth = 0) {
  if (!raw) return DEFAULT_MODERN_SCENARIO;
  if (raw.extends === undefined) return raw;
  if (depth > 8) throw new Error('scenario: "extends" nests too deep');
  const base = resolveModernScenario(raw.extends === 'default' ? DEFAULT_MODERN_SCENARIO : readModernScenarioFile(raw.extends), depth + 1);
  const { extends: _e, ...own } = raw;
  const merged = { ...base, ...own };
  if (base.behavior || own.behavior) merged.behavior = { ...base.behavior, ...own.behavior };
  return merged;
}

export function loadModernScenario(argRef) {
  const env = process.env.MOCK_SCENARIO_JSON;
  const raw = env ? JSON.parse(env) : argRef ? readModernScenarioFile(argRef) : undefined;
  return resolveModernScenario(raw);
}

/** The scenario the handshake-era engine (lib/mcp-scenario.mjs) serves for a dual server's legacy clients. */
export function legacyScenarioOf(sc) {
  if (sc.legacy) return sc.legacy;
  return { serverInfo: sc.serverInfo, instructions: sc.instructions, tools: ['echo', 'add', 'progress'], resources: sc.resources, prompts: sc.prompts, behavior: { quietViolations: sc.behavior?.quietViolations } };
}
