//! The command line (DESIGN.md 2). Only this module and `main` use anyhow;
//! every error is printed with what would be accepted, and mapped to an exit
//! code.

mod demo;

use crate::config::Config;
use crate::desk::{Desk, NewGame};
use crate::engine::Viewer;
use anyhow::{anyhow, bail, Context, Result};
use clap::{Parser, Subcommand};
use std::io::Read;
use std::path::{Path, PathBuf};

#[derive(Parser, Debug)]
#[command(name = "adjutant", version, about = "A play-by-email game master with verifiable dice")]
pub struct Cli {
    /// Configuration file (default: ./adjutant.toml if present, else built-in defaults).
    #[arg(long, global = true)]
    config: Option<PathBuf>,
    /// Data folder: games, mail, spool.
    #[arg(long, global = true, default_value = "adjutant-data")]
    data: PathBuf,
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// List rulesets and their scenarios.
    Rulesets,
    /// Create a game, print its id, queue the welcome mail and first prompts.
    New {
        ruleset: String,
        #[arg(long)]
        scenario: Option<String>,
        /// ROLE=EMAIL, once per role.
        #[arg(long = "player", value_name = "ROLE=EMAIL")]
        players: Vec<String>,
        #[arg(long)]
        gm: Option<String>,
        /// Length of each step, e.g. 72h, 3d.
        #[arg(long)]
        deadline: Option<String>,
        /// committed (verifiable) or declared (physical dice, stated by the moderator).
        #[arg(long, default_value = "committed")]
        dice: String,
        #[arg(long)]
        id: Option<String>,
    },
    /// The daemon: handle mail, resolve steps, send replies (one pass with --once).
    Run {
        #[arg(long)]
        once: bool,
        /// Connect to the configured servers, say what works, and exit.
        #[arg(long)]
        check: bool,
    },
    /// Put a message into the local mailbox as that sender.
    Post {
        #[arg(long)]
        from: String,
        #[arg(long)]
        subject: Option<String>,
        /// Recipient (default: the game address); use a player's reply address.
        #[arg(long)]
        to: Option<String>,
        /// A body, or a whole RFC 5322 message; - or nothing for stdin.
        file: Option<PathBuf>,
    },
    /// Every game, its step, what it awaits and by when.
    Games,
    /// Print a view (ASCII), optionally write the SVG map.
    Show {
        game: String,
        #[arg(long = "as")]
        role: Option<String>,
        #[arg(long)]
        gm: bool,
        #[arg(long)]
        public: bool,
        #[arg(long)]
        svg: Option<PathBuf>,
        /// Also write the map as PNG (as mailed).
        #[arg(long)]
        png: Option<PathBuf>,
    },
    /// Verify a journal: chain, commitments, draws, replay; fairness statistics.
    Audit {
        /// A game id (in the data folder) or a journal file.
        game: String,
        #[arg(long)]
        json: bool,
        /// Also write the journal a moderator may publish (hidden facts
        /// withheld while the game lasts) to FILE.
        #[arg(long, value_name = "FILE")]
        export_public: Option<PathBuf>,
        /// Write the fairness report (HTML, plots inline; with --json, its
        /// figures as JSON) to FILE; with a data folder instead of a game,
        /// over all its games.
        #[arg(long, value_name = "FILE")]
        report: Option<PathBuf>,
    },
    /// Check the dice from the mails adjutant sent you (.eml files or Maildirs).
    Verify {
        mails: Vec<PathBuf>,
        /// The journal the moderator published (`audit --export-public`, or
        /// the whole journal after the game): the journal tips in the mails
        /// must all be in it.
        #[arg(long, value_name = "FILE")]
        journal: Option<PathBuf>,
    },
    /// Run adjudication case files.
    Case { files: Vec<PathBuf> },
    /// Play a scripted game through the real pipeline on the embedded default.
    Demo {
        ruleset: Option<String>,
        /// A scenario of the ruleset with a scripted demo of its own (the
        /// ruleset's first if none).
        #[arg(long)]
        scenario: Option<String>,
    },
}

/// Run the command line; returns the exit code.
pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { 2 } else { 0 };
        }
    };
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_env("ADJUTANT_LOG").unwrap_or_else(|_| "warn".into()))
        .init();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            2
        }
    }
}

fn config(path: &Option<PathBuf>) -> Result<Config> {
    match path {
        Some(p) => Config::load(p).map_err(|e| anyhow!(e)),
        None if Path::new("adjutant.toml").exists() => Config::load(Path::new("adjutant.toml")).map_err(|e| anyhow!(e)),
        None => Ok(Config::default()),
    }
}

fn now() -> chrono::DateTime<chrono::Utc> {
    chrono::Utc::now()
}

fn run(cli: Cli) -> Result<i32> {
    let cfg = config(&cli.config)?;
    match cli.cmd {
        Cmd::Rulesets => {
            for r in crate::rules::ALL {
                let i = r.info();
                println!("{} — {}", i.name, i.title);
                for s in i.scenarios {
                    println!("  scenario {}: roles {} — {}", s.name, s.roles.join(", "), s.about);
                    if !s.variants.is_empty() {
                        println!("    variants (add with +): {}", s.variants.join(", "));
                    }
                }
                println!("  step kinds (deadline keys): {}", i.step_kinds.join(", "));
            }
            Ok(0)
        }
        Cmd::New { ruleset, scenario, players, gm, deadline, dice, id } => {
            let desk = Desk::open(&cli.data, cfg)?;
            let mut ps = Vec::new();
            for p in players {
                let (r, e) = p
                    .split_once('=')
                    .ok_or_else(|| anyhow!("--player {p:?}: write ROLE=EMAIL, e.g. --player france=bob@example.org"))?;
                ps.push((r.trim().to_lowercase(), e.trim().to_string()));
            }
            let req = NewGame { ruleset, scenario, players: ps, gm, deadline, dice, id };
            let id = desk.create(&req, now(), &mut crate::desk::os_random)?;
            {
                let _lock = desk.lock()?;
                desk.deliver()?;
            }
            println!("{id}");
            Ok(0)
        }
        Cmd::Run { once, check } => {
            let desk = Desk::open(&cli.data, cfg)?;
            if check {
                let (ok, lines) = desk.check();
                for l in lines {
                    println!("{l}");
                }
                return Ok(if ok { 0 } else { 1 });
            }
            if once {
                let r = match desk.cfg.inbound.clone() {
                    crate::config::Inbound::Imap(c) => {
                        let mut s = crate::mail::imap::connect(&c)?;
                        crate::mail::imap::ensure_folder(&mut s, &c.processed_folder)?;
                        let r = desk.imap_pass(&mut s, &c, &std::sync::atomic::AtomicBool::new(false))?;
                        let _ = s.logout();
                        r
                    }
                    _ => desk.run_once(now())?,
                };
                println!(
                    "{} messages: {} accepted, {} rejected, {} refused, {} dropped, {} duplicates; {} steps resolved; {} mails sent",
                    r.messages, r.accepted, r.rejected, r.refused, r.dropped, r.duplicates, r.resolved, r.sent
                );
                return Ok(0);
            }
            // SIGINT/SIGTERM set the flag; the desk finishes the message in
            // hand and stops.
            let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
            for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
                signal_hook::flag::register(sig, stop.clone())?;
            }
            desk.serve(&stop)?;
            Ok(0)
        }
        Cmd::Post { from, subject, to, file } => {
            let mut body = Vec::new();
            match file {
                Some(p) if p.as_os_str() != "-" => {
                    body = std::fs::read(&p).with_context(|| format!("cannot read {}", p.display()))?
                }
                _ => {
                    std::io::stdin().read_to_end(&mut body)?;
                }
            }
            let desk = Desk::open(&cli.data, cfg)?;
            let to = to.unwrap_or_else(|| desk.cfg.game.address.clone());
            let raw = wrap_message(&from, &to, subject.as_deref().unwrap_or("orders"), &body);
            let p = desk.post(&raw, now())?;
            println!("{}", p.display());
            Ok(0)
        }
        Cmd::Games => {
            let desk = Desk::open(&cli.data, cfg)?;
            for id in desk.game_ids()? {
                match desk.peek(&id) {
                    Ok(l) => {
                        let a = l.game.awaiting();
                        let waits: Vec<String> = a
                            .prompts
                            .keys()
                            .map(|r| if l.game.orders.contains_key(r) { format!("{r} (in)") } else { r.clone() })
                            .collect();
                        println!(
                            "{id}  {}  step {} ({})  {}{}{}",
                            l.game.rules.info().name,
                            l.game.step,
                            if l.game.ended { "ended" } else { a.kind.as_str() },
                            if waits.is_empty() {
                                "awaits nobody".to_string()
                            } else {
                                format!("awaits {}", waits.join(", "))
                            },
                            l.desk.deadline_at.as_deref().map(|d| format!("  by {d}")).unwrap_or_default(),
                            if l.desk.paused { "  PAUSED" } else { "" }
                        );
                    }
                    Err(e) => println!("{id}  cannot be read: {e}"),
                }
            }
            Ok(0)
        }
        Cmd::Show { game, role, gm, public, svg, png } => {
            let desk = Desk::open(&cli.data, cfg)?;
            let l = desk.peek(&game)?;
            let viewer = match (role, gm, public) {
                (Some(r), false, false) if l.game.roles.contains(&r) => Viewer::Role(r),
                (Some(r), false, false) => bail!("{r:?} is not a role of {game}; roles: {}", l.game.roles.join(", ")),
                (None, _, true) => Viewer::Public,
                (None, true, false) | (None, false, false) => Viewer::Moderator,
                _ => bail!("give one of --as ROLE, --gm, --public"),
            };
            let v = l.game.view(&viewer);
            print!("{}", crate::render::ascii::render(&v));
            let map = crate::render::svg::render(&v);
            if let Some(p) = svg {
                std::fs::write(&p, &map).with_context(|| format!("cannot write {}", p.display()))?;
            }
            if let Some(p) = png {
                let bytes = crate::render::png::from_svg(&map).map_err(anyhow::Error::msg)?;
                std::fs::write(&p, bytes).with_context(|| format!("cannot write {}", p.display()))?;
            }
            Ok(0)
        }
        Cmd::Audit { game, json, export_public, report } => {
            if let Some(out) = &report {
                write_report(&cli.data, &game, out, json)?;
                if Path::new(&game).is_dir() {
                    // A report over a whole data folder; audit games one by one.
                    return Ok(0);
                }
            }
            audit(&cli.data, &game, json, export_public.as_deref())
        }
        Cmd::Case { files } => {
            if files.is_empty() {
                bail!("name at least one case file, e.g. adjutant case tests/cases/mantua/*.toml");
            }
            let mut failed = 0;
            for f in &files {
                match crate::cases::run_file(f) {
                    Ok(()) => println!("ok    {}", f.display()),
                    Err(e) => {
                        failed += 1;
                        println!("FAIL  {e}");
                    }
                }
            }
            println!("{} passed, {failed} failed", files.len() - failed);
            Ok(if failed > 0 { 1 } else { 0 })
        }
        Cmd::Verify { mails, journal } => verify(&mails, journal.as_deref()),
        // Without a name, the first game registered (rules::ALL decides).
        Cmd::Demo { ruleset, scenario } => {
            let first = crate::rules::ALL.first().map(|r| r.info().name).unwrap_or_default();
            demo::run(&cli.data, cfg, ruleset.as_deref().unwrap_or(first), scenario.as_deref())
        }
    }
}

/// Wrap a body in headers unless it already is a whole message.
pub fn wrap_message(from: &str, to: &str, subject: &str, body: &[u8]) -> Vec<u8> {
    // A whole message starts with a header line and has a blank line
    // before its body.
    let text = String::from_utf8_lossy(&body[..body.len().min(4096)]);
    let first = text.lines().next().unwrap_or("");
    let header_like = first
        .split_once(':')
        .map(|(k, _)| !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'))
        .unwrap_or(false);
    let is_message = header_like && (text.contains("\n\n") || text.contains("\r\n\r\n"));
    if is_message {
        return body.to_vec();
    }
    let n = chrono::Utc::now();
    let mut m = format!(
        "From: <{from}>\r\nTo: <{to}>\r\nSubject: {subject}\r\nDate: {}\r\nMessage-ID: <post.{}.{}@adjutant.local>\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n",
        n.to_rfc2822(),
        n.timestamp_nanos_opt().unwrap_or(0),
        &crate::dice::to_hex(&crate::dice::sha256(body))[..8]
    )
    .into_bytes();
    m.extend_from_slice(body);
    m
}

fn audit(data: &Path, game: &str, json: bool, export: Option<&Path>) -> Result<i32> {
    let p = Path::new(game);
    let path =
        if p.is_file() { p.to_path_buf() } else { crate::desk::store::game_dir(data, game).join("journal.toml") };
    if !path.exists() {
        bail!("no journal at {} (give a game id in {} or a journal file)", path.display(), data.display());
    }
    // The journal is read entry by entry: a long one is never held whole.
    let first: Vec<crate::journal::Entry> = crate::journal::read_first(&path)?.into_iter().collect();
    let redacted = crate::export::redacted(&first);
    let given_as_file = p.is_file();
    if !given_as_file && redacted {
        println!(
            "audit of {}: FAILED: the journal of game {game} in the data folder says it is a public export; a game's own journal never does",
            path.display()
        );
        return Ok(1);
    }
    if given_as_file && redacted {
        // A public export of a game in progress: what can be checked is.
        let entries = crate::journal::read(&path)?;
        return Ok(match crate::export::verify_public(&entries) {
            Ok(c) => {
                println!(
                    "audit of {} as a public export of game {} in progress (the file says so): OK as far as it goes",
                    path.display(),
                    c.game
                );
                println!(
                    "  hash chain, {} public links against the public anchor and {} public draws over {} steps verified",
                    c.links, c.draws, c.steps
                );
                println!("  not checked: the rules' replay, the orders and the private streams' draws, withheld until the game ends");
                0
            }
            Err(m) => {
                println!("audit of {}: FAILED at entry {}: {}", path.display(), m.seq, m.message);
                1
            }
        });
    }
    if let Some(out) = export {
        let entries = crate::journal::read(&path)?;
        let public =
            crate::export::export_public(&entries).map_err(|m| anyhow!("cannot export {}: {m}", path.display()))?;
        let text: String = public.iter().map(|e| e.to_text()).collect();
        std::fs::write(out, text).with_context(|| format!("cannot write {}", out.display()))?;
        println!("public journal written to {}", out.display());
    }
    // A game of this data folder: its journal must reach the tip adjutant
    // wrote last (kept apart, in DATA/secrets/).
    let tip = if given_as_file { None } else { crate::desk::store::read_tip(data, game) };
    let (mut last, mut at_tip) = (0u64, None);
    let stream = crate::journal::entries(&path)?.map(|r| {
        r.inspect(|e| {
            last = e.seq;
            if tip.as_ref().is_some_and(|t| t.seq == e.seq) {
                at_tip = Some(e.hash.clone());
            }
        })
        .map_err(|e| crate::audit::Mismatch { seq: last + 1, message: e.to_string() })
    });
    let verdict = crate::audit::replay_stream(stream);
    // A cut at an entry boundary replays cleanly: only the tip tells.
    if let (Some(t), true) = (&tip, verdict.is_ok()) {
        if let Err(m) = t.reached(at_tip.as_deref(), last) {
            println!("audit of {}: FAILED: {m}", path.display());
            return Ok(1);
        }
    }
    match verdict {
        Ok((_, s)) => {
            if json {
                let dice: Vec<String> = s
                    .dice
                    .iter()
                    .map(|d| {
                        format!(
                            "{{\"sides\":{},\"rolls\":{},\"counts\":{:?},\"chi_square\":{:.4},\"p_value\":{:.4}}}",
                            d.sides, d.rolls, d.counts, d.chi_square, d.p_value
                        )
                    })
                    .collect();
                println!(
                    "{{\"ok\":true,\"game\":\"{}\",\"entries\":{},\"steps\":{},\"draws\":{},\"declared\":{},\"ended\":{},\"dice\":[{}]}}",
                    s.game, s.entries, s.steps, s.draws, s.declared_draws, s.ended, dice.join(",")
                );
            } else {
                println!("audit of {} ({}): OK", s.game, path.display());
                println!(
                    "  {} entries, {} steps resolved, {} orders accepted, {} rejected, {} draws ({} declared, not verifiable); dice {}{}",
                    s.entries,
                    s.steps,
                    s.orders_accepted,
                    s.orders_rejected,
                    s.draws,
                    s.declared_draws,
                    s.dice_mode,
                    if s.ended { "; game ended" } else { "" }
                );
                println!("  hash chain, every commitment link, every draw and every state digest verified");
                for d in &s.dice {
                    let counts: Vec<String> =
                        d.counts.iter().enumerate().map(|(i, c)| format!("{}:{c}", i + 1)).collect();
                    println!(
                        "  d{}: {} rolls [{}] chi-square {:.3} (df {}), p = {:.3}",
                        d.sides,
                        d.rolls,
                        counts.join(" "),
                        d.chi_square,
                        d.sides - 1,
                        d.p_value
                    );
                }
            }
            Ok(0)
        }
        Err(m) => {
            if json {
                println!("{{\"ok\":false,\"entry\":{},\"error\":{:?}}}", m.seq, m.message);
            } else {
                println!("audit of {}: FAILED at entry {}: {}", path.display(), m.seq, m.message);
            }
            Ok(1)
        }
    }
}

/// Read .eml files and Maildirs (new/ and cur/) into mails, oldest first.
fn verify(paths: &[PathBuf], journal: Option<&Path>) -> Result<i32> {
    if paths.is_empty() {
        bail!("name the mails adjutant sent you: .eml files, or a Maildir folder");
    }
    let mut files = Vec::new();
    for p in paths {
        if p.is_dir() {
            for sub in [p.join("new"), p.join("cur"), p.clone()] {
                if let Ok(rd) = std::fs::read_dir(&sub) {
                    files.extend(rd.flatten().map(|e| e.path()).filter(|f| f.is_file()));
                }
            }
        } else {
            files.push(p.clone());
        }
    }
    let mut mails = Vec::new();
    for f in files {
        let raw = std::fs::read(&f).with_context(|| format!("cannot read {}", f.display()))?;
        let Some(m) = mail_parser::MessageParser::default().parse(&raw[..]) else { continue };
        mails.push(crate::verify::Mail {
            name: f.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default(),
            subject: m.subject().unwrap_or("").to_string(),
            date: m.date().map(|d| d.to_timestamp()),
            body: m.body_text(0).map(|b| b.to_string()).unwrap_or_default(),
        });
    }
    mails.sort_by_key(|m| m.date.unwrap_or(i64::MIN));
    let published = match journal {
        Some(p) => Some(crate::journal::read(p)?),
        None => None,
    };
    let r = crate::verify::verify_against(&mails, published.as_deref());
    for l in &r.lines {
        println!("{l}");
    }
    if r.failures == 0 {
        println!("VERIFIED: {} mails, every check held", mails.len());
        Ok(0)
    } else {
        println!("NOT VERIFIED: {} failure(s)", r.failures);
        Ok(1)
    }
}

/// The fairness report of one game, or of every game of a data folder.
fn write_report(data: &Path, game: &str, out: &Path, json: bool) -> Result<()> {
    let p = Path::new(game);
    let journals: Vec<PathBuf> = if p.is_dir() {
        let games = if p.join("games").is_dir() { p.join("games") } else { p.to_path_buf() };
        let mut v: Vec<PathBuf> = std::fs::read_dir(&games)?
            .flatten()
            .map(|e| e.path().join("journal.toml"))
            .filter(|j| j.exists())
            .collect();
        v.sort();
        v
    } else if p.is_file() {
        vec![p.to_path_buf()]
    } else {
        vec![crate::desk::store::game_dir(data, game).join("journal.toml")]
    };
    let mut games = Vec::new();
    for j in &journals {
        games.push(crate::report::gather(&crate::journal::read(j)?));
    }
    let text = if json { crate::report::render_json(&games) } else { crate::report::render(&games) };
    std::fs::write(out, text).with_context(|| format!("cannot write {}", out.display()))?;
    println!("fairness report of {} game(s) written to {}", games.len(), out.display());
    Ok(())
}
