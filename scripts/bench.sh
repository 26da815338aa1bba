#!/usr/bin/env bash
# The benchmarks whose figures the README quotes: the desk on the embedded
# default (benches/throughput.rs) and the mail path through a real Postfix
# and Dovecot started here on loopback (benches/mailpath.rs; root needed).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo bench --bench throughput
if [ "$(id -u)" = 0 ]; then
    scripts/mailstack.sh install
    MS=$(mktemp -d /tmp/adjutant-mailstack.XXXXXX)
    chmod 755 "$MS"
    trap 'scripts/mailstack.sh stop "$MS" >/dev/null 2>&1 || true; rm -rf "$MS"' EXIT
    scripts/mailstack.sh start "$MS"
    MAILSTACK_DIR="$MS" cargo bench --bench mailpath
else
    echo "bench.sh: not root: the mail-path benchmark needs the mail stack" >&2
fi
