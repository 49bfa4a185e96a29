// The official conformance suite's reference names in the check fixture (core.mjs), so the
// built-in suite profile of `mcpwire check` (src/check/core/profile.ts) judges them with no
// --fixtures file; each knob plants one defect.

export const SUITE_BUGS = {
  'schema-keywords-dropped': 'tools.schema-preserved',
  'template-read-fails': 'resources.template-read',
  'static-text-wrong': 'resources.fixture-expect',
  'prompt-args-ignored': 'prompts.arguments-substituted',
  'tool-not-found-iserror': 'tools.fixture-expect',
};

const SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: { address: { $anchor: 'addressDef', type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
  properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' }, contactMethod: { type: 'string', enum: ['phone', 'email'] }, phone: { type: 'string' }, email: { type: 'string' } },
  allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
  if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
  then: { required: ['phone'] },
  else: { required: ['email'] },
  additionalProperties: false,
};

export function suiteTools(bugs) {
  let inputSchema = SCHEMA;
  if (bugs.has('schema-keywords-dropped')) {
    // What a schema-library round trip does: $schema, the $anchor and the conditionals are gone.
    const { $schema: _s, if: _i, then: _t, else: _e, ...rest } = SCHEMA;
    inputSchema = { ...rest, $defs: { address: { type: 'object', properties: SCHEMA.$defs.address.properties } } };
  }
  return [
    { name: 'test_simple_text', description: 'Returns simple text', inputSchema: { type: 'object' } },
    { name: 'test_error_handling', description: 'Always fails', inputSchema: { type: 'object' } },
    { name: 'json_schema_2020_12_tool', description: 'Tool with JSON Schema 2020-12 features', inputSchema },
  ];
}

/** A tools/call answer for the suite's tools, or undefined. */
export function callSuiteTool(bugs, name) {
  switch (name) {
    case 'test_simple_text':
      return { content: [{ type: 'text', text: 'This is a simple text response for testing.' }] };
    case 'test_error_handling':
      if (bugs.has('tool-not-found-iserror')) return { content: [{ type: 'text', text: `Tool ${name} not found` }], isError: true };
      return { content: [{ type: 'text', text: 'This tool intentionally returns an error for testing' }], isError: true };
    case 'json_schema_2020_12_tool':
      return { content: [{ type: 'text', text: 'ok' }] };
  }
  return undefined;
}

export const SUITE_RESOURCES = [{ uri: 'test://static-text', name: 'static-text', mimeType: 'text/plain' }];
export const SUITE_TEMPLATES = [{ uriTemplate: 'test://template/{id}/data', name: 'template' }];

/** A resources/read answer for the suite's URIs ({ result } or { error }), or undefined. */
export function readSuiteResource(bugs, uri) {
  if (uri === 'test://static-text') return { result: { contents: [{ uri, mimeType: bugs.has('static-text-wrong') ? 'application/json' : 'text/plain', text: 'This is the content of the static text resource.' }] } };
  const m = /^test:\/\/template\/([^/]+)\/data$/.exec(uri);
  if (m === null) return undefined;
  if (bugs.has('template-read-fails')) return { error: { code: -32002, message: 'Resource not found', data: { uri } } };
  return { result: { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify({ id: m[1], templateTest: true }) }] } };
}

export const SUITE_PROMPTS = [{ name: 'test_prompt_with_arguments', description: 'A prompt with arguments', arguments: [{ name: 'arg1', required: true }, { name: 'arg2', required: true }] }];

export function suitePromptText(bugs, args) {
  return bugs.has('prompt-args-ignored') ? 'Prompt with arguments' : `Prompt with arguments: arg1='${args?.arg1}', arg2='${args?.arg2}'`;
}

/** Form fields with defaults and every enum form (SEP-1034, SEP-1330), as the suite's elicitation tools ask. */
export function elicitFields(bugs) {
  return {
    age: { type: 'integer', default: 30 },
    score: { type: 'number', default: 95.5 },
    verified: { type: 'boolean', default: true },
    status: { type: 'string', enum: ['active', 'inactive', 'pending'], default: bugs.has('elicit-bad-default') ? 'archived' : 'active' },
    titled: { type: 'string', oneOf: [{ const: 'value1', title: 'First Option' }, { const: 'value2', title: 'Second Option' }] },
    legacy: { type: 'string', enum: ['opt1', 'opt2'], enumNames: ['Option One', 'Option Two'] },
    multi: { type: 'array', items: { type: 'string', enum: ['option1', 'option2'] }, default: ['option1'] },
    titledMulti: { type: 'array', items: { anyOf: [{ const: 'value1', title: 'First Choice' }, { const: 'value2', title: 'Second Choice' }] } },
  };
}
