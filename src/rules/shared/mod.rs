//! What several games share: name matching and road networks.

pub mod graph;
pub mod names;
pub mod parse;
