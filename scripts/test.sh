#!/usr/bin/env bash
# Every test adjutant has: formatting, lints, unit tests, the integration
# tests (tests/it), and the adjudication cases (tests/cases). This is the
# README's test command and what .ci/run calls.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo fmt --all -- --check
cargo clippy --all-targets -- -D warnings
cargo test
