// The built-in default scenario (the same content as scenarios/default.json; a test keeps the
// two equal) and scenario resolution: `"extends": "<name>"` merges a scenario onto a named
// base, key by key at the top level, with `behavior` merged one level deeper.

export const DEFAULT_SCENARIO = {
  serverInfo: { name: 'mcpwire-mock', title: 'mcpwire scripted mock server', version: '1.0.0' },
  instructions: 'A scripted mock MCP server for tests. Tools echo, add and progress are the useful ones.',
  tools: ['echo', 'add', 'slow', 'progress', 'structured', 'fail', 'blob', 'log', 'notify', 'update', 'ask', 'crash', 'never', 'ignoreCancel'],
  resources: [
    { uri: 'mem://readme', name: 'readme', title: 'Read me', mimeType: 'text/plain', text: 'Hello from the mock server.' },
    { uri: 'mem://config.json', name: 'config', mimeType: 'application/json', text: '{"debug":false}' },
    { uri: 'mem://pixel.png', name: 'pixel', mimeType: 'image/png', blob: 'iVBORw0KGgo=' },
  ],
  resourceTemplates: [
    {
      uriTemplate: 'mem://notes/{id}',
      name: 'note',
      mimeType: 'text/plain',
      text: 'Note {id}',
      completions: { id: ['1', '2', '10', '42'] },
    },
  ],
  prompts: [
    {
      name: 'greet',
      title: 'Greeting',
      description: 'Greets someone',
      arguments: [
        { name: 'name', description: 'Who to greet', required: true, completions: ['Alice', 'Alan', 'Bob'] },
        { name: 'style', description: 'formal or casual', completions: ['formal', 'casual'] },
      ],
      messages: [{ role: 'user', content: { type: 'text', text: 'Say hello to {{name}} in a {{style}} way.' } }],
    },
    { name: 'plain', description: 'A prompt without arguments', messages: [{ role: 'user', content: { type: 'text', text: 'Hi.' } }] },
  ],
};

/**
 * Applies `extends` (recursively, at most 8 deep). `load(name)` returns the named scenario
 * object; "default" always resolves to DEFAULT_SCENARIO.
 */
export function resolveScenario(scenario, load, depth = 0) {
  if (!scenario || scenario.extends === undefined) return scenario ?? DEFAULT_SCENARIO;
  if (depth > 8) throw new Error('scenario: "extends" nests too deep');
  const baseRaw = scenario.extends === 'default' ? DEFAULT_SCENARIO : load(scenario.extends);
  const base = resolveScenario(baseRaw, load, depth + 1);
  const { extends: _ignored, ...own } = scenario;
  const merged = { ...base, ...own };
  if (base.behavior || own.behavior) merged.behavior = { ...base.behavior, ...own.behavior };
  return merged;
}
