/**
 * The built-in profile of the official conformance suite's reference server: the tools,
 * resources, templates and prompts its server scenarios call by name (`test_simple_text`,
 * `test://static-text`, `test_prompt_with_arguments`, `json_schema_2020_12_tool`…) and what
 * those scenarios verify. A server built for the suite gets these expectations with no
 * `--fixtures` file; each applies only when the server lists that name, and `--fixtures` wins.
 */
import type { CheckContext, Expectations, PromptExpectation, ResourceExpectation, ToolFixture, ToolFixtures } from './context.js';

const SCHEMA_2020_12 = 'https://json-schema.org/draft/2020-12/schema';

/** Tools: called with no arguments; the content types the suite's scenarios look for. */
export const SUITE_TOOLS: ToolFixtures = {
  test_simple_text: { arguments: {}, expect: { isError: false, contentTypes: ['text'] } },
  test_image_content: { arguments: {}, expect: { isError: false, contentTypes: ['image'] } },
  test_audio_content: { arguments: {}, expect: { isError: false, contentTypes: ['audio'] } },
  test_embedded_resource: { arguments: {}, expect: { isError: false, contentTypes: ['resource'] } },
  test_multiple_content_types: { arguments: {}, expect: { isError: false, contentTypes: ['text', 'image', 'resource'] } },
  test_error_handling: { arguments: {}, expect: { isError: true } },
  // Called by elicitation.requests (on a connection declaring elicitation); judged by elicitation.defaults-enums.
  test_elicitation_sep1034_defaults: { arguments: {} },
  test_elicitation_sep1330_enums: { arguments: {} },
};

/**
 * A multi round-trip tool of the suite (input-required-result-* scenarios, 2026-07-28): it takes
 * no arguments and answers a first call with input_required. `checks` are the MRTR checks
 * (modern-mrtr.ts) whose rule the suite's scenarios test with it; no other check judges it there.
 */
export interface SuiteInputTool {
  arguments: Record<string, unknown>;
  checks: string[];
}

const asks = (...checks: string[]): SuiteInputTool => ({ arguments: {}, checks });

/**
 * The suite's input_required tools. Each is called once when listed (its first answer judged by
 * modern.input-required and modern.result-type); the scenarios retry these with wrong input:
 * `_elicitation` with a wrong key, extra keys, 12345 and null for the responses; `_tampered_state`
 * with a changed requestState; `_capabilities` without the elicitation capability. Three are
 * judged on good answers (modern-mrtr-answers.ts: a form accepted with a value per field, a
 * sampling answer, no roots): `_request_state` (its echoed state honoured, "state-ok"),
 * `_multiple_inputs` (three inputs answered at once complete it), `_multi_round` (a second round
 * with a new state, then complete); `_sampling` and `_list_roots` (modern-mrtr-single.ts: the
 * retry completes, the sampling tool's result with the sampled text), as the prompt is.
 */
export const SUITE_INPUT_TOOLS: Record<string, SuiteInputTool> = {
  test_input_required_result_elicitation: asks('modern.input-missing', 'modern.input-extra-ignored', 'modern.input-responses-validated'),
  test_input_required_result_sampling: asks('modern.input-sampling-answered'),
  test_input_required_result_list_roots: asks('modern.input-roots-answered'),
  test_input_required_result_request_state: asks('modern.request-state-honoured'),
  test_input_required_result_multiple_inputs: asks('modern.input-all-answered'),
  test_input_required_result_multi_round: asks('modern.input-rounds'),
  test_input_required_result_tampered_state: asks('modern.request-state-integrity'),
  test_input_required_result_capabilities: asks('modern.capabilities-per-request'),
};

/** The suite's input_required prompt (input-required-result-non-tool-request): prompts/get answers input_required first. */
export const SUITE_INPUT_PROMPTS: Record<string, { arguments: Record<string, string> }> = {
  test_input_required_result_prompt: { arguments: {} },
};

/** The profile entry of a listed tool, unless the user's `--fixtures` names it (then it is an ordinary callable tool). */
export function suiteInputTool(ctx: CheckContext, name: string): SuiteInputTool | undefined {
  return Object.hasOwn(SUITE_INPUT_TOOLS, name) && ctx.options.fixtures?.[name] === undefined ? SUITE_INPUT_TOOLS[name] : undefined;
}

/** json-schema-2020-12: the input schema the suite's tool must list, keywords preserved. */
export const SUITE_SCHEMAS: Record<string, Record<string, unknown>> = {
  json_schema_2020_12_tool: {
    $schema: SCHEMA_2020_12,
    type: 'object',
    $defs: { address: { $anchor: 'addressDef', type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
    properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' }, contactMethod: { type: 'string', enum: ['phone', 'email'] }, phone: { type: 'string' }, email: { type: 'string' } },
    allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
    if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
    then: { required: ['phone'] },
    else: { required: ['email'] },
    additionalProperties: false,
  },
};

export const SUITE_RESOURCES: Record<string, ResourceExpectation> = {
  'test://static-text': { mimeType: 'text/plain', kind: 'text' },
  'test://static-binary': { kind: 'blob' },
  // resources-templates-read: read through the template test://template/{id}/data.
  'test://template/123/data': {},
};

export const SUITE_PROMPTS: Record<string, PromptExpectation> = {
  test_simple_prompt: { arguments: {} },
  test_prompt_with_arguments: { arguments: { arg1: 'testValue1', arg2: 'testValue2' } },
};

/** The suite's tool fixtures for the listed tools the user's `--fixtures` does not name (merged into the options). */
export function adoptSuiteTools(ctx: CheckContext, listed: Array<Record<string, unknown>>): void {
  const add: Record<string, ToolFixture> = {};
  for (const t of listed) {
    const name = typeof t.name === 'string' ? t.name : '';
    if (Object.hasOwn(SUITE_TOOLS, name) && ctx.options.fixtures?.[name] === undefined) add[name] = SUITE_TOOLS[name];
  }
  if (Object.keys(add).length > 0) ctx.options.fixtures = { ...ctx.options.fixtures, ...add };
}

/** `--fixtures` expectations, else the suite profile's for the names the server lists. */
export function expectationsFor(ctx: CheckContext, listed: { tools: string[]; resources: string[]; templates: string[]; prompts: string[] }): Required<Expectations> & { fromProfile: Set<string> } {
  const user = ctx.options.expectations ?? {};
  const fromProfile = new Set<string>();
  const pick = <T>(own: Record<string, T> | undefined, suite: Record<string, T>, known: (k: string) => boolean): Record<string, T> => {
    const out: Record<string, T> = { ...own };
    for (const [k, v] of Object.entries(suite)) {
      if (out[k] === undefined && known(k)) {
        out[k] = v;
        fromProfile.add(k);
      }
    }
    return out;
  };
  return {
    schemas: pick(user.schemas, SUITE_SCHEMAS, (k) => listed.tools.includes(k)),
    resources: pick(user.resources, SUITE_RESOURCES, (k) => listed.resources.includes(k) || listed.templates.some((t) => templateMatches(t, k))),
    prompts: pick(user.prompts, SUITE_PROMPTS, (k) => listed.prompts.includes(k)),
    fromProfile,
  };
}

/** Whether `uri` is an expansion of the RFC 6570 template `t` (simple and reserved expressions). */
export function templateMatches(t: string, uri: string): boolean {
  let re = '^';
  for (const part of t.split(/(\{[^}]*\})/)) {
    if (part.startsWith('{') && part.endsWith('}')) re += part[1] === '+' || part[1] === '#' ? '.+' : '[^/?#]+';
    else re += part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`${re}$`).test(uri);
}
