#!/usr/bin/env bash
# Runs the official MCP client conformance suite (@modelcontextprotocol/conformance, pinned in
# ./package.json with its own lockfile) against `node dist/cli/main.js conformance-client`.
#
#   bash spec-conformance/runner/run.sh                  # every scenario of --suite all, one at a time
#   CONFORMANCE_PARALLEL=1 bash spec-conformance/runner/run.sh   # the suite's own parallel --suite all
#   CONFORMANCE_SCENARIO=sse-retry bash spec-conformance/runner/run.sh   # one scenario
#   CONFORMANCE_FILTER='^(initialize|tools_call|sse-retry)$' bash …      # a subset
#   CONFORMANCE_SKIP_BUILD=1 …                           # use the existing dist/
#   CONFORMANCE_EXTENSIONS=1 bash …   # the auth extension scenarios (client credentials, SEP-990,
#                                     # DPoP, workload identity) of the newer suite, conformance-next
#                                     # (0.2.0-alpha.12): each with --spec-version 2025-11-25 --force
#   CONFORMANCE_REQUIREMENTS=2026-07-28 bash …   # the client scenarios a spec revision requires
#                                     # (conformance-next `list --client --requirements`), each run
#                                     # as `--requirements` runs it (--spec-version <rev> --force),
#                                     # judged against expected-failures-<rev>.yml; 2025-11-25 too.
#                                     # Combines with CONFORMANCE_SCENARIO / CONFORMANCE_FILTER.
#
# Either way failures are judged against expected-failures.yml (same rules as the suite's
# --expected-failures: an unexpected failure or a stale entry fails the run).
#
# The suite needs Node >= 22: it runs on the `node` package installed in this folder, never on
# the root's (a root node_modules/.bin/node would switch every npm script to Node 22). The
# client under test runs on the system node (the version mcpwire supports).
# Results: spec-conformance/results/<timestamp>/<scenario>-*/checks.json (git-ignored).
# If CONFORMANCE_SUMMARY names a file, "<passed> <failed>" scenario counts are written to it.
set -uo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
CLIENT_NODE="$(command -v node)"

if [ ! -x "$HERE/node_modules/.bin/node" ] || [ ! -f "$HERE/node_modules/@modelcontextprotocol/conformance/dist/index.js" ] \
  || [ "$HERE/package-lock.json" -nt "$HERE/node_modules/.package-lock.json" ]; then
  echo "conformance runner: npm ci (spec-conformance/runner)"
  (cd "$HERE" && npm ci --no-audit --no-fund) || { echo "conformance runner: npm ci failed" >&2; exit 1; }
fi
RUNNER_NODE="$HERE/node_modules/.bin/node"
CONFORMANCE="$HERE/node_modules/@modelcontextprotocol/conformance/dist/index.js"
# The newer suite, installed beside the pinned one as an npm alias (package.json `conformance-next`).
CONFORMANCE_NEXT="$HERE/node_modules/conformance-next/dist/index.js"
REQUIREMENTS="${CONFORMANCE_REQUIREMENTS:-}"
if [ "${CONFORMANCE_EXTENSIONS:-0}" = "1" ] || [ -n "$REQUIREMENTS" ]; then
  [ -f "$CONFORMANCE_NEXT" ] || { echo "conformance runner: conformance-next is not installed (npm ci in spec-conformance/runner)" >&2; exit 1; }
  CONFORMANCE="$CONFORMANCE_NEXT"
fi

if [ "${CONFORMANCE_SKIP_BUILD:-0}" != "1" ] || [ ! -f "$ROOT/dist/cli/main.js" ]; then
  (cd "$ROOT" && npm run --silent build) || { echo "conformance runner: build failed" >&2; exit 1; }
fi

# The command as the suite will run it (it appends the server URL). Until dist/cli/main.js
# registers `conformance-client`, go through a shim that loads the command module directly.
if grep -q "conformance-client" "$ROOT/dist/cli/main.js"; then
  CLIENT="$CLIENT_NODE $ROOT/dist/cli/main.js conformance-client"
else
  CLIENT="$CLIENT_NODE $HERE/client-shim.mjs"
fi

STAMP="$(date -u +%Y%m%dT%H%M%SZ)"
OUT="$ROOT/spec-conformance/results/$STAMP"
mkdir -p "$OUT"
echo "conformance: client = $CLIENT"
conformance() { (cd "$ROOT" && "$RUNNER_NODE" "$CONFORMANCE" "$@"); }
TIMEOUT="${CONFORMANCE_TIMEOUT_MS:-60000}"
BASELINE="$HERE/expected-failures.yml"
# A requirement set runs each scenario at that revision's wire, as `client --requirements` does
# (it implies --force: a frozen set may hold scenarios the suite dates otherwise).
REV_ARGS=()
if [ -n "$REQUIREMENTS" ]; then
  REV_ARGS=(--spec-version "$REQUIREMENTS" --force)
  BASELINE="$HERE/expected-failures-$REQUIREMENTS.yml"
fi

if [ -n "${CONFORMANCE_SCENARIO:-}" ]; then
  conformance client --command "$CLIENT" --scenario "$CONFORMANCE_SCENARIO" "${REV_ARGS[@]}" --timeout "$TIMEOUT" -o "$OUT" 2>&1 | tee "$OUT/run.log"
  echo "$CONFORMANCE_SCENARIO ${PIPESTATUS[0]}" >>"$OUT/exit-codes.txt"
  "$CLIENT_NODE" "$HERE/summarize.mjs" "$OUT" /dev/null "${CONFORMANCE_SUMMARY:-}"
  exit $?
fi

if [ "${CONFORMANCE_EXTENSIONS:-0}" = "1" ]; then
  # Extensions are outside any spec revision: --force runs them at 2025-11-25. Not judged
  # against expected-failures.yml (that baseline is the pinned suite's); the counts are printed.
  EXTENSIONS=(client-credentials-jwt client-credentials-basic enterprise-managed-authorization dpop dpop-nonce wif-jwt-bearer)
  if [ -n "${CONFORMANCE_FILTER:-}" ]; then
    mapfile -t EXTENSIONS < <(printf '%s\n' "${EXTENSIONS[@]}" | grep -E "$CONFORMANCE_FILTER")
  fi
  echo "conformance: ${#EXTENSIONS[@]} auth extension scenarios of conformance-next (results in $OUT)"
  for s in "${EXTENSIONS[@]}"; do
    conformance client --command "$CLIENT" --scenario "auth/$s" --spec-version 2025-11-25 --force --timeout "$TIMEOUT" -o "$OUT" >>"$OUT/run.log" 2>&1
    echo "auth/$s $?" >>"$OUT/exit-codes.txt"
  done
  "$CLIENT_NODE" "$HERE/summarize.mjs" "$OUT" /dev/null "${CONFORMANCE_SUMMARY:-}"
  exit $?
fi

if [ -n "$REQUIREMENTS" ]; then
  # Exactly the client scenarios the revision requires (the "Client scenarios" block of the
  # listing; extension and added-after-release ones are reported by the suite, never scored).
  mapfile -t SCENARIOS < <(conformance list --client --requirements "$REQUIREMENTS" 2>/dev/null \
    | sed -n '/^Client scenarios/,/^$/s/^  - \([^ ]*\).*/\1/p')
  if [ "${#SCENARIOS[@]}" -eq 0 ]; then
    echo "conformance runner: could not list the client scenarios required for $REQUIREMENTS" >&2
    exit 1
  fi
  if [ -n "${CONFORMANCE_FILTER:-}" ]; then
    mapfile -t SCENARIOS < <(printf '%s\n' "${SCENARIOS[@]}" | grep -E "$CONFORMANCE_FILTER")
  fi
  echo "conformance: ${#SCENARIOS[@]} client scenarios required for $REQUIREMENTS (conformance-next), one at a time (results in $OUT)"
  for s in "${SCENARIOS[@]}"; do
    conformance client --command "$CLIENT" --scenario "$s" "${REV_ARGS[@]}" --timeout "$TIMEOUT" -o "$OUT" >>"$OUT/run.log" 2>&1
    echo "$s $?" >>"$OUT/exit-codes.txt"
  done
  "$CLIENT_NODE" "$HERE/summarize.mjs" "$OUT" "$BASELINE" "${CONFORMANCE_SUMMARY:-}"
  exit $?
fi

if [ "${CONFORMANCE_PARALLEL:-0}" = "1" ]; then
  # The suite's own parallel mode: every scenario's client starts at once. On a loaded 2-core
  # machine that makes timing checks (sse-retry: reconnect within retry+200 ms) unreliable.
  conformance client --command "$CLIENT" --suite "${CONFORMANCE_SUITE:-all}" --expected-failures "$BASELINE" \
    --timeout "$TIMEOUT" -o "$OUT" 2>&1 | tee "$OUT/run.log"
  rc=${PIPESTATUS[0]}
  "$CLIENT_NODE" "$HERE/summarize.mjs" "$OUT" "$BASELINE" "${CONFORMANCE_SUMMARY:-}" >/dev/null
  "$CLIENT_NODE" "$HERE/summarize.mjs" "$OUT" "$BASELINE"
  exit "$rc"
fi

# Default: every scenario of `--suite all` (as `conformance list --client` names them), one at
# a time, then the same baseline judgement as --expected-failures (summarize.mjs).
mapfile -t SCENARIOS < <(conformance list --client 2>/dev/null | sed -n 's/^  - \([^ ]*\).*/\1/p')
if [ "${#SCENARIOS[@]}" -eq 0 ]; then
  echo "conformance runner: could not list the client scenarios" >&2
  exit 1
fi
if [ -n "${CONFORMANCE_FILTER:-}" ]; then
  mapfile -t SCENARIOS < <(printf '%s\n' "${SCENARIOS[@]}" | grep -E "$CONFORMANCE_FILTER")
fi
echo "conformance: ${#SCENARIOS[@]} scenarios of --suite all, one at a time (results in $OUT)"
for s in "${SCENARIOS[@]}"; do
  conformance client --command "$CLIENT" --scenario "$s" --timeout "$TIMEOUT" -o "$OUT" >>"$OUT/run.log" 2>&1
  echo "$s $?" >>"$OUT/exit-codes.txt"
done
"$CLIENT_NODE" "$HERE/summarize.mjs" "$OUT" "$BASELINE" "${CONFORMANCE_SUMMARY:-}"
