#!/usr/bin/env bash
# Every test adjutant has: formatting, lints, unit tests, the integration
# tests (tests/it, including those of the mail path against a real Postfix
# and Dovecot started here on loopback), and the adjudication cases
# (tests/cases). This is the README's test command and what .ci/run calls.
# It ends with one line summing every test binary's results.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo fmt --all -- --check
cargo clippy --all-targets -- -D warnings

# The mail stack: installed from Debian's packages and started in a private
# folder; stopped (only what we started) whatever happens next.
if [ "$(id -u)" = 0 ]; then
    scripts/mailstack.sh install
    MS=$(mktemp -d /tmp/adjutant-mailstack.XXXXXX)
    chmod 755 "$MS"
    trap 'scripts/mailstack.sh stop "$MS" >/dev/null 2>&1 || true; rm -rf "$MS"' EXIT
    scripts/mailstack.sh start "$MS"
    export MAILSTACK_DIR="$MS"
else
    echo "test.sh: not root, so no mail stack: the tests of the real mail path will say they were skipped" >&2
    if [ "${CI:-}" = true ]; then
        echo "test.sh: CI must run the mail-path tests; run as root" >&2
        exit 1
    fi
fi

log=$(mktemp)
status=0
cargo test 2>&1 | tee "$log" || status=$?
passed=$(grep -Eo 'test result: [A-Za-z]+\. [0-9]+ passed' "$log" | grep -Eo '[0-9]+ passed' | awk '{s+=$1} END {print s+0}')
failed=$(grep -Eo '[0-9]+ failed;' "$log" | awk '{s+=$1} END {print s+0}')
rm -f "$log"
echo "tests: $passed passed, $failed failed"
exit "$status"
