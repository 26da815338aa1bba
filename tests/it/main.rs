//! One integration-test binary (link time on a 2-core machine), one module
//! per concern.

mod audit;
mod braccio;
mod computer;
mod conformance;
mod corpus;
mod crash;
mod daemon;
mod deadlines;
mod desk;
mod dice_vectors;
mod ducs;
mod fairness;
mod fullgame;
mod golden;
mod journal_format;
mod leaguer;
mod lobby;
mod publish;
mod realmail;
mod renewal;
mod rollback;
mod stack;
mod support;
mod tacticum;
mod tamper;
mod tidy;
mod verify;
mod witness;
