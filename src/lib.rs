//! adjutant: a play-by-email game master with verifiable dice.
//!
//! See ARCHITECTURE.md for the map of modules and the invariants they keep.

pub mod audit;
pub mod cases;
pub mod cli;
pub mod config;
pub mod desk;
pub mod dice;
pub mod engine;
pub mod export;
pub mod journal;
pub mod mail;
pub mod publish;
pub mod render;
pub mod report;
pub mod rules;
pub mod selfplay;
pub mod verify;
