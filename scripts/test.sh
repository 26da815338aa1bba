#!/usr/bin/env bash
# Every test adjutant has: formatting, lints, the API docs, unit tests, the integration
# tests (tests/it, including those of the mail path against a real Postfix
# and Dovecot started on loopback by scripts/with-mailstack.sh), and the
# adjudication cases (tests/cases). This is the README's test command and
# what .ci/run calls. It ends with one line summing every test binary's
# results.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo fmt -- --check
cargo clippy --all-targets -- -D warnings
# The API docs build without a broken link or a stray tag.
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --quiet
# Headless Chromium (Debian's package) renders the fairness report in a test.
if [ "$(id -u)" = 0 ] && ! [ -x /usr/bin/chromium ]; then
    apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends chromium >/dev/null ||
        { apt-get -o DPkg::Lock::Timeout=600 update >/dev/null && apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends chromium >/dev/null; }
fi
# strace kills the daemon at chosen system calls in the crash tests.
if [ "$(id -u)" = 0 ] && ! command -v strace >/dev/null; then
    apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends strace >/dev/null ||
        { apt-get -o DPkg::Lock::Timeout=600 update >/dev/null && apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends strace >/dev/null; }
fi
log=$(mktemp)
status=0
scripts/with-mailstack.sh cargo test --profile suite 2>&1 | tee "$log" || status=$?
passed=$(grep -Eo 'test result: [A-Za-z]+\. [0-9]+ passed' "$log" | grep -Eo '[0-9]+ passed' | awk '{s+=$1} END {print s+0}')
failed=$(grep -Eo '[0-9]+ failed;' "$log" | awk '{s+=$1} END {print s+0}')
rm -f "$log"
echo "tests: $passed passed, $failed failed"
exit "$status"
