//! What several games share: name matching, reading order lines, road
//! networks, hex grids, square boards, results tables and the two sides
//! of a two-player game, and the computer player's search.

pub mod graph;
pub mod hex;
pub mod names;
pub mod parse;
pub mod player;
pub mod sides;
pub mod squares;
pub mod table;
