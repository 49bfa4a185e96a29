#!/usr/bin/env node
// The scripted stdio mock (../stdio-server.mjs, its scenario from MOCK_SCENARIO_JSON or argv) with
// one more built-in tool for the gateway's multi round-trip tests:
//
//   askMany { parallel?: [{method, params}], then?: [{method, params}], progress?: boolean }
//     sends every `parallel` request to its client at once, then each `then` request one after
//     the other, and answers with all the answers, in that order, as JSON text
//     ([{result} | {error}, …]); isError when any answer is an error. With `progress`, it reports
//     progress (with the call's token) before the first request and after each answer.
//
// List it in the scenario's tools like any built-in: {"tools": ["askMany", "ask", "echo"]}.

import { BUILTIN_TOOLS } from '../lib/builtin-tools.mjs';

const request = { type: 'object', properties: { method: { type: 'string' }, params: { type: 'object' } }, required: ['method'] };

BUILTIN_TOOLS.askMany = {
  description: 'Sends `parallel` requests to the client at once, then `then` requests one by one; answers with every answer as JSON text',
  inputSchema: { type: 'object', properties: { parallel: { type: 'array', items: request }, then: { type: 'array', items: request }, progress: { type: 'boolean' } } },
  run: async ({ args, request: ask, progress }) => {
    const total = (args.then ?? []).length + 2;
    let step = 0;
    const report = () => args.progress === true && progress(++step, total, `step ${step}`);
    report();
    const answers = await Promise.all((args.parallel ?? []).map((r) => ask(String(r.method), r.params)));
    report();
    for (const r of args.then ?? []) {
      answers.push(await ask(String(r.method), r.params));
      report();
    }
    const failed = answers.some((a) => a.error !== undefined);
    return { content: [{ type: 'text', text: JSON.stringify(answers) }], ...(failed ? { isError: true } : {}) };
  },
};

await import('../stdio-server.mjs');
