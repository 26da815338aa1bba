//! The configuration file (`adjutant.toml`): every key is optional and
//! documented in config.example.toml; unknown keys are refused by name.

use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    pub game: GameAddress,
    pub inbound: Inbound,
    pub outbound: Outbound,
    pub limits: Limits,
    pub deadlines: Deadlines,
    pub publish: Publish,
    pub mail: MailPrefs,
    pub player: Player,
}

/// `[player]`: the computer player (`REPLACE <role> ADJUTANT`,
/// `[deadlines] missed = "adjutant"`, `adjutant selfplay`): how hard it
/// thinks at a decision, in imagined steps, the bound on its time.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Player {
    /// Submissions weighed (twice as many in Tacticum, whose submission
    /// is one action among hundreds: `Mind::breadth`).
    pub candidates: usize,
    /// Futures played for each.
    pub playouts: usize,
    /// Steps looked ahead in each.
    pub horizon: u32,
}

impl Default for Player {
    /// Well under a second a decision on a 2-core machine
    /// (docs/performance.md).
    fn default() -> Self {
        Player { candidates: 12, playouts: 4, horizon: 6 }
    }
}

/// `[mail]`: how letters are sent by default.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MailPrefs {
    /// The maps a letter carries unless its player chose (`MAPS`): "png",
    /// "svg", "both" or "none" (text only).
    pub maps: String,
}

impl Default for MailPrefs {
    /// The PNG alone: what every client shows, and with the SVG beside it
    /// the median Ducs and Braccio mail was over 128 KB (docs/performance.md).
    fn default() -> Self {
        MailPrefs { maps: "png".into() }
    }
}

/// The map attachments a player may choose.
pub const MAPS: [&str; 4] = ["png", "svg", "both", "none"];

/// `[publish]`: where the daemon keeps every game's public page current
/// (`adjutant publish --all` after each pass that changed a game).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Publish {
    /// A folder a web server serves; each game in `<dir>/<game>/`.
    pub dir: Option<String>,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            game: GameAddress::default(),
            inbound: Inbound::Maildir { path: None },
            outbound: Outbound::File { path: None },
            limits: Limits::default(),
            deadlines: Default::default(),
            publish: Publish::default(),
            mail: MailPrefs::default(),
            player: Player::default(),
        }
    }
}

/// The address games send from; players reply to `local+<game>.<token>@domain`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GameAddress {
    pub address: String,
    pub name: String,
    /// Where the operator hears of what concerns no moderator: a game with
    /// none that is held, a mail of no game set aside. None: the log only.
    pub operator: Option<String>,
}

impl Default for GameAddress {
    fn default() -> Self {
        GameAddress { address: "game@adjutant.local".into(), name: "adjutant".into(), operator: None }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, tag = "kind", rename_all = "lowercase")]
pub enum Inbound {
    /// The embedded default: a Maildir, `DATA/mail/inbox` unless `path` is set.
    Maildir { path: Option<String> },
    /// A mailbox on an IMAP server.
    Imap(ImapConfig),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, tag = "kind", rename_all = "lowercase")]
pub enum Outbound {
    /// The embedded default: one Maildir per recipient under
    /// `DATA/mail/outbox/<recipient>/`, unless `path` is set.
    File { path: Option<String> },
    /// An SMTP server (submission).
    Smtp(SmtpConfig),
    /// A local sendmail-compatible program.
    Sendmail {
        #[serde(default = "default_sendmail")]
        command: String,
    },
}

fn default_sendmail() -> String {
    "/usr/sbin/sendmail".into()
}

/// How a connection is protected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Security {
    /// TLS from the first byte (IMAPS 993, SMTPS 465).
    Tls,
    /// Plain first, then STARTTLS before anything else is said.
    Starttls,
    /// No encryption: refused unless the host is a loopback address and
    /// `allow_plain` is set.
    Plain,
}

/// A password, never in the config file itself: from an environment
/// variable or a file.
pub fn secret(env: &Option<String>, file: &Option<String>, what: &str) -> Result<String, String> {
    if let Some(v) = env {
        return std::env::var(v).map_err(|_| format!("{what}: the environment variable {v} (password_env) is not set"));
    }
    if let Some(f) = file {
        return std::fs::read_to_string(f)
            .map(|s| s.trim_end_matches(['\r', '\n']).to_string())
            .map_err(|e| format!("{what}: cannot read password_file {f}: {e}"));
    }
    Err(format!("{what}: give password_env or password_file"))
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImapConfig {
    pub host: String,
    pub port: u16,
    pub security: Security,
    #[serde(default)]
    pub allow_plain: bool,
    pub user: String,
    #[serde(default)]
    pub password_env: Option<String>,
    #[serde(default)]
    pub password_file: Option<String>,
    #[serde(default = "default_folder")]
    pub folder: String,
    #[serde(default = "default_processed")]
    pub processed_folder: String,
    /// Use IDLE when the server offers it.
    #[serde(default = "yes")]
    pub idle: bool,
    /// How long one IDLE lasts before it is re-issued (servers drop an IDLE
    /// after 30 minutes; RFC 2177 asks for a re-issue within 29).
    #[serde(default = "default_idle")]
    pub idle_seconds: u64,
    /// Seconds between polls when IDLE is off or not offered.
    #[serde(default = "default_poll")]
    pub poll_seconds: u64,
    /// Messages fetched and committed together.
    #[serde(default = "default_batch")]
    pub batch: usize,
    /// An extra CA certificate (PEM) to trust, for a server with a private CA.
    #[serde(default)]
    pub ca_file: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SmtpConfig {
    pub host: String,
    pub port: u16,
    pub security: Security,
    #[serde(default)]
    pub allow_plain: bool,
    /// Log in with this user (and the secret), or send without AUTH.
    #[serde(default)]
    pub user: Option<String>,
    #[serde(default)]
    pub password_env: Option<String>,
    #[serde(default)]
    pub password_file: Option<String>,
    #[serde(default)]
    pub ca_file: Option<String>,
    #[serde(default = "default_timeout")]
    pub timeout_seconds: u64,
    /// Longest wait between retries of a temporarily failing send.
    #[serde(default = "default_retry")]
    pub retry_max_seconds: u64,
}

fn default_folder() -> String {
    "INBOX".into()
}
fn default_processed() -> String {
    "adjutant-processed".into()
}
fn yes() -> bool {
    true
}
fn default_idle() -> u64 {
    25 * 60
}
fn default_poll() -> u64 {
    60
}
fn default_batch() -> usize {
    50
}
fn default_timeout() -> u64 {
    30
}
fn default_retry() -> u64 {
    3600
}

/// Plain text is only for a server on this machine, and only when asked.
pub fn plain_allowed(host: &str, allow: bool) -> bool {
    let loopback = host == "localhost" || host.parse::<std::net::IpAddr>().map(|a| a.is_loopback()).unwrap_or(false);
    allow && loopback
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Limits {
    /// Seconds between passes of `adjutant run` on a Maildir inbox.
    pub poll_seconds: u64,
    /// Refusals (and other replies to unidentified mail) sent to one address
    /// per hour; further ones are dropped silently, which stops mail loops.
    pub refusals_per_hour: u32,
    /// Largest inbound message handled, in bytes; larger ones are refused
    /// unread.
    pub max_message_bytes: usize,
    /// Lines of a reply's own text read; a longer submission is refused
    /// whole, unread.
    pub max_lines: usize,
    /// Problems listed in one rejection; the rest are counted.
    pub max_errors: usize,
    /// Characters of one PRESS message.
    pub max_press_chars: usize,
    /// Replies to one identified player an hour; past it one notice, then
    /// silence until the hour is over (their orders are still handled).
    pub replies_per_hour: u32,
    /// Steps one dice chain of a new game serves before it is renewed.
    pub chain_length: u32,
    /// Games a running daemon keeps in memory between passes (0: none);
    /// past it the least recently committed is read from disk again. A
    /// pass over a backlog keeps none (`Desk::keep`).
    pub games_in_memory: usize,
    /// Inbound messages of the local Maildir one group commit covers (at
    /// most 4,096): the journals are synced and the messages marked once a
    /// group, the snapshots written once a pass.
    pub group_messages: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            poll_seconds: 30,
            refusals_per_hour: 5,
            max_message_bytes: 25 * 1024 * 1024,
            max_lines: 500,
            max_errors: 50,
            max_press_chars: 2000,
            replies_per_hour: 60,
            chain_length: crate::dice::CHAIN_LEN,
            games_in_memory: 1000,
            group_messages: GROUP,
        }
    }
}

impl Config {
    pub fn load(path: &Path) -> Result<Config, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read config {}: {e}", path.display()))?;
        let c: Config = toml::from_str(&text).map_err(|e| format!("cannot read config {}: {e}", path.display()))?;
        if !["no-moves", "adjutant"].contains(&c.deadlines.missed.as_str()) {
            return Err(format!(
                "config {}: [deadlines] missed = {:?}: \"no-moves\" or \"adjutant\"",
                path.display(),
                c.deadlines.missed
            ));
        }
        if !MAPS.contains(&c.mail.maps.as_str()) {
            return Err(format!(
                "config {}: [mail] maps = {:?}: one of {}",
                path.display(),
                c.mail.maps,
                MAPS.join(", ")
            ));
        }
        Ok(c)
    }
}

/// How many inbound Maildir messages a group commit covers at most.
pub const GROUP: usize = 4096;

/// The moderator's deadline policy (`[deadlines]`), as plain values: the
/// desk's `deadlines` module reads it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Deadlines {
    /// Length of a step when its kind has none of its own ("72h").
    pub default: Option<String>,
    /// Lengths per kind of step ("setup" = "7d", "battle turn" = "24h").
    pub kinds: BTreeMap<String, String>,
    /// A fixed clock time ("20:00") on `weekdays`, in `zone`: the deadline is
    /// the first such moment at least the step's length away.
    pub clock: Option<String>,
    pub weekdays: Vec<String>,
    /// The game's zone for clock deadlines (IANA name).
    pub zone: String,
    /// Orders are still taken this long after the deadline.
    pub grace: Option<String>,
    /// Reminders go this long before the deadline to roles not yet in.
    pub reminder: Option<String>,
    /// Once every awaited role is in, resolve after this delay (players may
    /// still revise); 0 resolves at once.
    pub early_delay: Option<String>,
    /// Steps missed in a row before a role is put in civil disorder.
    pub missed_for_disorder: u32,
    /// What plays a role in civil disorder: "no-moves" (the no-moves rule,
    /// until the moderator's REPLACE) or "adjutant" (the computer player,
    /// where the game has one, until REPLACE gives the side to a player).
    pub missed: String,
    /// "extend": a deadline falling in an announced absence moves to its
    /// end; "no-moves": the no-moves rule applies as usual.
    pub absent: String,
}

impl Default for Deadlines {
    fn default() -> Self {
        Deadlines {
            default: None,
            kinds: BTreeMap::new(),
            clock: None,
            weekdays: Vec::new(),
            zone: "UTC".into(),
            grace: None,
            reminder: None,
            early_delay: None,
            missed_for_disorder: 3,
            missed: "no-moves".into(),
            absent: "extend".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `Config::load` of `text` from a file of its own.
    fn load(name: &str, text: &str) -> Result<Config, String> {
        let dir = std::env::temp_dir().join(format!("adjutant-config-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("adjutant.toml");
        std::fs::write(&path, text).unwrap();
        let c = Config::load(&path);
        let _ = std::fs::remove_dir_all(&dir);
        c
    }

    #[test]
    fn a_value_outside_its_choices_is_refused_by_name_with_the_choices() {
        let e = load("missed", "[deadlines]\nmissed = \"hold\"\n").unwrap_err();
        assert!(e.contains("[deadlines] missed = \"hold\"") && e.contains("\"no-moves\" or \"adjutant\""), "{e}");
        let e = load("maps", "[mail]\nmaps = \"gif\"\n").unwrap_err();
        assert!(e.contains("[mail] maps = \"gif\"") && e.contains("png"), "{e}");
        let c = load("good", "[deadlines]\nmissed = \"adjutant\"\n[mail]\nmaps = \"none\"\n").unwrap();
        assert_eq!((c.deadlines.missed.as_str(), c.mail.maps.as_str()), ("adjutant", "none"));
    }
}
