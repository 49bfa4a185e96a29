// Runs the conformance-client command straight from dist/ when dist/cli/main.js does not (yet)
// register it: `node client-shim.mjs <url>` ≡ `node dist/cli/main.js conformance-client <url>`.
const { default: run } = await import(new URL('../../dist/cli/commands/conformance-client.js', import.meta.url).href);
process.exitCode = await run(process.argv.slice(2));
