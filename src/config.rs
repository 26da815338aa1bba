//! The configuration file (`adjutant.toml`): every key is optional and
//! documented in config.example.toml; unknown keys are refused by name.

use serde::Deserialize;
use std::path::Path;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    pub game: GameAddress,
    pub inbound: Inbound,
    pub outbound: Outbound,
    pub limits: Limits,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            game: GameAddress::default(),
            inbound: Inbound::Maildir { path: None },
            outbound: Outbound::File { path: None },
            limits: Limits::default(),
        }
    }
}

/// The address games send from; players reply to `local+<game>.<token>@domain`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GameAddress {
    pub address: String,
    pub name: String,
}

impl Default for GameAddress {
    fn default() -> Self {
        GameAddress { address: "game@adjutant.local".into(), name: "adjutant".into() }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, tag = "kind", rename_all = "lowercase")]
pub enum Inbound {
    /// The embedded default: a Maildir, `DATA/mail/inbox` unless `path` is set.
    Maildir { path: Option<String> },
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, tag = "kind", rename_all = "lowercase")]
pub enum Outbound {
    /// The embedded default: one Maildir per recipient under
    /// `DATA/mail/outbox/<recipient>/`, unless `path` is set.
    File { path: Option<String> },
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Limits {
    /// Refusals (and other replies to unidentified mail) sent to one address
    /// per hour; further ones are dropped silently, which stops mail loops.
    pub refusals_per_hour: u32,
    /// Largest inbound message handled, in bytes; larger ones are refused
    /// unread.
    pub max_message_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { refusals_per_hour: 5, max_message_bytes: 2 * 1024 * 1024 }
    }
}

impl Config {
    pub fn load(path: &Path) -> Result<Config, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read config {}: {e}", path.display()))?;
        toml::from_str(&text).map_err(|e| format!("cannot read config {}: {e}", path.display()))
    }
}
