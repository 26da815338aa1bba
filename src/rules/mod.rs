//! The games adjutant runs, one module each, registered in [`ALL`].

pub mod braccio;
pub mod ducs;
pub mod leaguer;
pub mod mantua;
pub mod shared;
pub mod tacticum;

use crate::engine::Ruleset;

/// Every ruleset, by name. Adding a game touches this list and its folder.
pub static ALL: &[&dyn Ruleset] =
    &[&mantua::Mantua, &leaguer::Leaguer, &ducs::Ducs, &tacticum::Tacticum, &braccio::Braccio];

pub fn find(name: &str) -> Option<&'static dyn Ruleset> {
    ALL.iter().copied().find(|r| r.info().name == name)
}
