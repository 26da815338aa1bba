//! What several games share: name matching, reading order lines, road
//! networks, hex grids, square boards and results tables.

pub mod graph;
pub mod hex;
pub mod names;
pub mod parse;
pub mod squares;
pub mod table;
