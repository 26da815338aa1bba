#!/usr/bin/env bash
# The benchmarks whose figures the README quotes: the desk on the embedded
# default (benches/throughput.rs) and the mail path through a real Postfix
# and Dovecot on loopback (benches/mailpath.rs; root needed for the stack).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo bench --bench throughput
BENCH_PART=cold BENCH_GAMES=5000 cargo bench --bench throughput
BENCH_PART=rebuild cargo bench --bench throughput
BENCH_PART=maps BENCH_BACKLOG=1500 cargo bench --bench throughput
scripts/with-mailstack.sh cargo bench --bench mailpath
# The Braccio figures: mails per player per turn over 40 games, and a
# soak of 200 random battles (both in release).
BRACCIO_MAILS_GAMES=40 BRACCIO_GAMES=200 cargo test --release --test it braccio::mails braccio::random -- --nocapture
# Mailboxes of random games by mail, every ruleset, checked by both
# verifiers: 20 games of each, up to 200 passes (the suite plays 2 of 30).
WITNESS_GAMES=20 cargo test --release --test it witness::the_mailboxes_of_random_games -- --nocapture
# The computer player against random legal play: 40 games of each game it
# plays, sides alternating, with the time per decision, beside the baseline
# of random play on the same sides (docs/performance.md).
cargo build --release
for game in mantua ducs braccio tacticum; do
    target/release/adjutant selfplay "$game" --games 40 --seed 1 2>/dev/null
    target/release/adjutant selfplay "$game" --games 40 --seed 1 --baseline 2>/dev/null
done
