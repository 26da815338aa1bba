#!/usr/bin/env bash
# Every test adjutant has: formatting, lints, unit tests, the integration
# tests (tests/it), and the adjudication cases (tests/cases). This is the
# README's test command and what .ci/run calls. It ends with one line
# summing every test binary's results.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo fmt --all -- --check
cargo clippy --all-targets -- -D warnings
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
cargo test 2>&1 | tee "$log" || status=$?
passed=$(grep -Eo 'test result: [A-Za-z]+\. [0-9]+ passed' "$log" | grep -Eo '[0-9]+ passed' | awk '{s+=$1} END {print s+0}')
failed=$(grep -Eo '[0-9]+ failed;' "$log" | awk '{s+=$1} END {print s+0}')
echo "tests: $passed passed, $failed failed"
exit "$status"
