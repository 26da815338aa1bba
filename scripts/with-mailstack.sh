#!/usr/bin/env bash
# Run a command with a real Postfix + Dovecot on loopback: install them
# (Debian packages), start them in a private folder, export MAILSTACK_DIR,
# run the command, and stop exactly what was started, whatever happens.
# Needs root; without it the command runs with no mail stack (and the
# mail-path tests say so, or fail under CI).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" != 0 ]; then
    echo "with-mailstack.sh: not root, so no mail stack" >&2
    if [ "${CI:-}" = true ]; then
        echo "with-mailstack.sh: CI must run the mail-path tests; run as root" >&2
        exit 1
    fi
    exec "$@"
fi
scripts/mailstack.sh install
MS=$(mktemp -d /tmp/adjutant-mailstack.XXXXXX)
chmod 755 "$MS"
trap 'scripts/mailstack.sh stop "$MS" >/dev/null 2>&1 || true; rm -rf "$MS"' EXIT
scripts/mailstack.sh start "$MS"
export MAILSTACK_DIR="$MS"
"$@"
