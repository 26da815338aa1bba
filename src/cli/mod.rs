//! The command line (README.md). Only this module and `main` use anyhow;
//! every error is printed with what would be accepted, and mapped to an exit
//! code.

mod demo;

use crate::config::Config;
use crate::desk::{Desk, NewGame};
use crate::engine::Viewer;
use anyhow::{anyhow, bail, Context, Result};
use clap::{Parser, Subcommand};
use std::collections::BTreeSet;
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
    /// Log errors only (`run` logs what it does by default; ADJUTANT_LOG,
    /// e.g. `debug`, overrides both).
    #[arg(short, long, global = true)]
    quiet: bool,
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// List rulesets and their scenarios.
    Rulesets,
    /// Create a game, print its id, queue the welcome mail and first prompts.
    New {
        /// The ruleset: mantua, leaguer, ducs, tacticum or braccio
        /// (`adjutant rulesets` lists them with their scenarios).
        ruleset: String,
        /// A scenario of the ruleset, with variants added by `+`
        /// (default: the ruleset's first).
        #[arg(long)]
        scenario: Option<String>,
        /// ROLE=EMAIL, once per role; every role of the scenario needs a
        /// player.
        #[arg(long = "player", value_name = "ROLE=EMAIL")]
        players: Vec<String>,
        /// The moderator's address: gets the moderator's view and may send
        /// moderator commands (PAUSE, EXTEND, REPLACE, RESOLVE NOW…).
        #[arg(long, value_name = "EMAIL")]
        gm: Option<String>,
        /// Length of each step, e.g. 72h, 3d (default: the [deadlines]
        /// policy of the configuration; none there: no deadline).
        #[arg(long)]
        deadline: Option<String>,
        /// committed (verifiable) or declared (physical dice, stated by the moderator).
        #[arg(long, default_value = "committed")]
        dice: String,
        /// The game's id, used in its address and mail subjects (default:
        /// the ruleset's name and six random hex digits).
        #[arg(long)]
        id: Option<String>,
        /// Leave the roles without --player free: players JOIN by mail at
        /// the game's plain address (LIST shows the game), and the game
        /// starts when the last role is taken.
        #[arg(long)]
        open: bool,
        /// With --open: each JOIN waits for the moderator's APPROVE or
        /// REFUSE by mail.
        #[arg(long, requires = "open")]
        approve: bool,
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
    /// Accept a held game's journal as it is (its tip file was lost, or no
    /// longer matches it): journaled, and every player is mailed the entry
    /// the game goes on from. The moderator can do the same by mail.
    Reanchor {
        game: String,
        /// Why, in a few words: every player is told.
        #[arg(required = true, num_args = 1..)]
        reason: Vec<String>,
    },
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
    /// Check the dice and the history from the mails adjutant sent you
    /// (Maildirs, mbox files, .eml files, or folders of them), game by game.
    Verify {
        mails: Vec<PathBuf>,
        /// A journal the operator published (`audit --export-public`, or the
        /// whole journal after the game): every journal tip the mails of
        /// its game carry must be in it. May be given once a game.
        #[arg(long, value_name = "FILE")]
        journal: Vec<PathBuf>,
    },
    /// Write a game's public page, a static site any web server serves:
    /// index.html (the public map, each step's public results and dice),
    /// the public journal, and a verifier that checks it in the reader's
    /// browser. `publish GAME DIR`, or `publish --all DIR` for every game.
    Publish {
        /// GAME DIR, or DIR with --all.
        #[arg(required = true, num_args = 1..=2, value_name = "GAME DIR")]
        args: Vec<String>,
        /// Every game of the data folder, each in DIR/<game>/, with an index.
        #[arg(long)]
        all: bool,
        /// Write into a folder that holds other files.
        #[arg(long)]
        force: bool,
    },
    /// Run adjudication case files.
    Case {
        files: Vec<PathBuf>,
        /// Also print each step's events (with their audience), what is then
        /// awaited, and the final state: what a case may assert.
        #[arg(long)]
        verbose: bool,
    },
    /// Play adjutant's computer player against random legal play (or
    /// against itself) through the engine, without mail, sides alternating
    /// from game to game; prints `adjutant won W of N`.
    Selfplay {
        /// mantua, ducs, braccio or tacticum.
        ruleset: String,
        /// A scenario of the ruleset (default: its first).
        #[arg(long)]
        scenario: Option<String>,
        #[arg(long, default_value_t = 20)]
        games: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// random or adjutant: who plays the other sides.
        #[arg(long, default_value = "random")]
        against: String,
        /// Random legal play takes adjutant's side too: what random play
        /// wins on the same sides, seeds and scenario, the baseline that
        /// adjutant's rate is read against.
        #[arg(long)]
        baseline: bool,
    },
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
    // The daemon says what it does (listening, passes with work, sends,
    // errors); a one-shot command speaks only of trouble.
    let level = match (&cli.cmd, cli.quiet) {
        (_, true) => "error",
        (Cmd::Run { .. }, false) => "info",
        _ => "warn",
    };
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_env("ADJUTANT_LOG").unwrap_or_else(|_| level.into()))
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
        Cmd::Selfplay { ruleset, scenario, games, seed, against, baseline } => {
            selfplay(&cfg, &ruleset, scenario, games, seed, &against, baseline)
        }
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
        Cmd::New { ruleset, scenario, players, gm, deadline, dice, id, open, approve } => {
            let desk = Desk::open(&cli.data, cfg)?;
            let mut ps = Vec::new();
            for p in players {
                let (r, e) = p
                    .split_once('=')
                    .ok_or_else(|| anyhow!("--player {p:?}: write ROLE=EMAIL, e.g. --player france=bob@example.org"))?;
                ps.push((r.trim().to_lowercase(), e.trim().to_string()));
            }
            let req = NewGame { ruleset, scenario, players: ps, gm, deadline, dice, id, open, approve };
            let id = desk.create(&req, now(), &mut crate::desk::os_random)?;
            {
                let _lock = desk.lock()?;
                desk.deliver()?;
            }
            println!("{id}");
            Ok(0)
        }
        Cmd::Run { once, check } => {
            // One pass (cron's way) keeps no game warm for a next pass it
            // will not make: over a backlog, the kept games are most of its
            // memory (docs/performance.md).
            let mut cfg = cfg;
            if once {
                cfg.limits.games_in_memory = 0;
            }
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
                desk.publish_changed()?;
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
                        let free: Vec<&String> =
                            l.game.roles.iter().filter(|r| !l.desk.players.contains_key(*r)).collect();
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
                            if !free.is_empty() && !l.game.ended {
                                format!("open: free {}", free.iter().map(|r| r.as_str()).collect::<Vec<_>>().join(", "))
                            } else if waits.is_empty() {
                                "awaits nobody".to_string()
                            } else {
                                format!("awaits {}", waits.join(", "))
                            },
                            // To the minute, in the operator's zone; an
                            // ended game has no deadline left.
                            l.desk
                                .deadline_at
                                .as_deref()
                                .filter(|_| !l.game.ended)
                                .map(|d| format!(
                                    "  by {}",
                                    crate::desk::deadlines::show(d, Some(&desk.cfg.deadlines.zone))
                                ))
                                .unwrap_or_default(),
                            if l.desk.paused { "  PAUSED" } else { "" }
                        );
                        if !l.desk.observers.is_empty() {
                            println!("    observers: {}", l.desk.observers.join(", "));
                        }
                    }
                    Err(crate::desk::Error::Store(crate::desk::store::Error::Held { message, .. })) => {
                        println!("{id}  HELD: {message}")
                    }
                    Err(e) => println!("{id}  cannot be read: {e}"),
                }
            }
            let aside = desk.set_aside();
            if !aside.is_empty() {
                println!("set aside: {} mail(s), unread:", aside.len());
                for l in aside {
                    println!("  {l}");
                }
            }
            Ok(0)
        }
        Cmd::Reanchor { game, reason } => {
            let desk = Desk::open(&cli.data, cfg)?;
            let seq = desk.reanchor_by_operator(&game, &reason.join(" "), now())?;
            {
                let _lock = desk.lock()?;
                desk.deliver()?;
            }
            println!("game {game} re-anchored at journal entry {seq}; every player was told");
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
                // The picture a mail carries: a large field cropped.
                let picture = v.boards.first().and_then(crate::render::svg::picture);
                let bytes =
                    crate::render::png::from_svg(picture.as_ref().unwrap_or(&map)).map_err(anyhow::Error::msg)?;
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
        Cmd::Publish { args, all, force } => {
            let desk = Desk::open(&cli.data, cfg)?;
            match (all, args.as_slice()) {
                (false, [game, dir]) => {
                    publish(&cli.data, game, Path::new(dir), force)?;
                    println!("game {game} published in {dir}: open {dir}/index.html through a web server");
                }
                (true, [dir]) => {
                    let dir = Path::new(dir);
                    let mut listed = Vec::new();
                    for id in desk.game_ids()? {
                        publish(&cli.data, &id, &dir.join(&id), force)?;
                        let l = desk.peek(&id)?;
                        let status = if l.game.ended { "over".to_string() } else { format!("step {}", l.game.step) };
                        listed.push((id, l.game.rules.info().title.to_string(), status));
                    }
                    std::fs::write(dir.join("index.html"), crate::publish::index(&listed))
                        .with_context(|| format!("cannot write {}", dir.display()))?;
                    println!("{} games published in {}", listed.len(), dir.display());
                }
                (true, _) => bail!("publish --all takes one folder: adjutant publish --all DIR"),
                (false, _) => bail!("publish takes a game and a folder: adjutant publish GAME DIR (or --all DIR)"),
            }
            Ok(0)
        }
        Cmd::Case { files, verbose } => {
            if files.is_empty() {
                bail!("name at least one case file, e.g. adjutant case tests/cases/mantua/*.toml");
            }
            let mut failed = 0;
            for f in &files {
                if verbose {
                    match crate::cases::explain(f) {
                        Ok(text) => println!("{}:\n{text}", f.display()),
                        Err(e) => println!("{}: {e}", f.display()),
                    }
                }
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
        Cmd::Verify { mails, journal } => verify(&mails, &journal),
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
    // wrote last (kept apart, in DATA/secrets/), which a game of this
    // adjutant has from its first entry.
    let tip = if given_as_file { None } else { crate::desk::store::read_tip(data, game) };
    let kept = first.first().and_then(|e| e.body::<crate::journal::kinds::Created>().ok()).is_some_and(|c| c.tip_kept);
    if !given_as_file && tip.is_none() && kept {
        println!(
            "audit of {}: FAILED: {} is missing: nothing vouches that the journal was not cut at its end (any entries after its last could have been removed). Restore the file from a backup; or, if the end was lost, accept the journal as it is (REANCHOR by the moderator, or adjutant reanchor), which tells every player",
            path.display(),
            crate::desk::store::tip_path(data, game).display()
        );
        return Ok(1);
    }
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
                    "{{\"ok\":true,\"game\":\"{}\",\"entries\":{},\"steps\":{},\"draws\":{},\"declared\":{},\"ended\":{},\"rollbacks\":{},\"voided_draws\":{},\"dice\":[{}]}}",
                    s.game, s.entries, s.steps, s.draws, s.declared_draws, s.ended, s.rollbacks, s.voided_draws, dice.join(",")
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
                if s.rollbacks > 0 {
                    println!(
                        "  rolled back {} time(s) by the moderator: {} draws of undone steps verified, counted below for no one",
                        s.rollbacks, s.voided_draws
                    );
                }
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

/// Check the mails under `paths` (Maildirs, mbox files, .eml files, and
/// folders of them), game by game, against the journals published.
/// Exit 0 when every game verifies, 1 when a check fails, 3 when no mail
/// of adjutant's is among them, 4 when nothing failed but a game's dice
/// could not be checked (its welcome mail is missing).
fn verify(paths: &[PathBuf], journals: &[PathBuf]) -> Result<i32> {
    use crate::verify::{read_mail, Published, Read};
    if paths.is_empty() {
        bail!("name the mails adjutant sent you: a Maildir or mail folder, an mbox file, or .eml files");
    }
    let found = crate::mail::stored::read(paths).map_err(|e| anyhow!(e))?;
    let (mut mails, mut skipped, mut others) = (Vec::new(), Vec::new(), 0usize);
    for s in &found.messages {
        match read_mail(&s.name, &s.raw) {
            Read::Ours(m) => mails.push(*m),
            Read::NotOurs => others += 1,
            Read::Skipped { game, why } => skipped.push((game, s.name.clone(), why)),
        }
    }
    let mut read = Vec::new();
    for p in journals {
        read.push((p.display().to_string(), crate::journal::read(p)?));
    }
    let published: Vec<Published> = read.iter().map(|(n, e)| Published { name: n, entries: e }).collect();
    let games: BTreeSet<String> = mails.iter().map(|m| m.game.clone()).collect();
    for p in &published {
        match p.game() {
            Some(g) if games.contains(&g) => {}
            Some(g) => bail!("{} is the journal of game {g}, of which these mails hold none", p.name),
            None => bail!("{} is not a journal of adjutant's (its first entry names no game)", p.name),
        }
    }
    let loose: Vec<(String, String)> =
        skipped.iter().filter(|(g, _, _)| g.is_none()).map(|(_, n, w)| (n.clone(), w.clone())).collect();
    let verdicts = crate::verify::verify_games(mails, skipped, &published);
    for v in &verdicts {
        let state = if v.failures > 0 {
            format!("NOT VERIFIED ({} failure(s))", v.failures)
        } else if v.incomplete.is_some() {
            "NOT CHECKED".to_string()
        } else {
            "VERIFIED".to_string()
        };
        let last = v.last_entry.map(|k| format!(", the history up to journal entry {k}")).unwrap_or_default();
        println!("game {}: {state}: {} mail(s), {} draw(s) regenerated{last}", v.game, v.mails, v.dice);
        for l in &v.lines {
            println!("  {l}");
        }
        if let Some(why) = &v.incomplete {
            println!("  {why}");
        }
        for (name, why) in &v.skipped {
            println!("  skipped {name}: {why}");
        }
    }
    for (name, why) in &loose {
        println!("skipped {name}: {why}");
    }
    if others > 0 || found.other_files > 0 {
        println!(
            "ignored: {others} mail(s) not from an adjutant game, {} file(s) that are not mail",
            found.other_files
        );
    }
    if verdicts.is_empty() {
        println!(
            "no mail of an adjutant game among these ({} message(s) read): nothing to verify",
            found.messages.len()
        );
        return Ok(3);
    }
    let failed = verdicts.iter().filter(|v| v.failures > 0).count();
    let unchecked = verdicts.iter().filter(|v| v.failures == 0 && v.incomplete.is_some()).count();
    if failed > 0 {
        println!(
            "NOT VERIFIED: {failed} of {} game(s) failed a check (the FAIL lines say what and which mail)",
            verdicts.len()
        );
        Ok(1)
    } else if unchecked > 0 {
        println!(
            "NOT CHECKED: nothing contradicts, but {unchecked} of {} game(s) could not be checked (said above)",
            verdicts.len()
        );
        Ok(4)
    } else {
        println!("VERIFIED: {} game(s), every check held", verdicts.len());
        Ok(0)
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

/// Write game `game`'s public page into `dir`: a folder that is empty,
/// missing, or one `publish` wrote for this game before (else `force`).
fn publish(data: &Path, game: &str, dir: &Path, force: bool) -> Result<()> {
    let path = crate::desk::store::game_dir(data, game).join("journal.toml");
    if !crate::desk::store::valid_id(game) || !path.exists() {
        bail!("there is no game {game:?} in {}; adjutant games lists them", data.display());
    }
    let mark = dir.join(crate::publish::MARK);
    let ours = std::fs::read_to_string(&mark).is_ok_and(|m| m.lines().next() == Some(game));
    let empty = std::fs::read_dir(dir).map(|mut d| d.next().is_none()).unwrap_or(true);
    if !empty && !ours && !force {
        bail!("{} holds other files; give an empty or new folder, or --force to write the page into it", dir.display());
    }
    let entries = crate::journal::read(&path)?;
    let files = crate::publish::site(&entries).map_err(|m| anyhow!("cannot publish {game}: {m}"))?;
    std::fs::create_dir_all(dir).with_context(|| format!("cannot make {}", dir.display()))?;
    for (name, bytes) in files {
        let p = dir.join(&name);
        std::fs::write(&p, bytes).with_context(|| format!("cannot write {}", p.display()))?;
    }
    Ok(())
}

fn selfplay(
    cfg: &Config,
    ruleset: &str,
    scenario: Option<String>,
    games: usize,
    seed: u64,
    against: &str,
    baseline: bool,
) -> Result<i32> {
    use crate::selfplay::{Player, Result as R};
    let rules = crate::rules::find(ruleset).ok_or_else(|| {
        let known: Vec<_> = crate::rules::ALL.iter().map(|r| r.info().name).collect();
        anyhow!("unknown ruleset {ruleset:?}; known: {}", known.join(", "))
    })?;
    let against = match against {
        "random" => Player::Random,
        "adjutant" => Player::Adjutant,
        other => bail!("--against {other:?}: write random or adjutant"),
    };
    let (mine, who) = if baseline { (Player::Random, "random play") } else { (Player::Adjutant, "adjutant") };
    let scenario = scenario.unwrap_or_else(|| rules.info().scenarios[0].name.clone());
    let (mut won, mut lost, mut drawn, mut decisions) = (0, 0, 0, 0u64);
    let mut thinking = std::time::Duration::ZERO;
    let mut longest = std::time::Duration::ZERO;
    let effort = crate::desk::core::computer::effort(cfg);
    let started = std::time::Instant::now();
    for n in 0..games {
        let p = crate::selfplay::play(rules, &scenario, seed, n, mine, against, effort).map_err(|e| anyhow!(e))?;
        decisions += u64::from(p.decisions);
        thinking += p.thinking;
        longest = longest.max(p.longest);
        let r = match p.result {
            R::Won => {
                won += 1;
                "won"
            }
            R::Lost => {
                lost += 1;
                "lost"
            }
            R::Drawn => {
                drawn += 1;
                "drawn"
            }
        };
        let on = if p.ended_on_mine { "its own" } else { "the other side's" };
        eprintln!("game {}: {who} as {} {r} in {} steps on {on} orders ({})", n + 1, p.role, p.steps, p.reason);
    }
    if baseline {
        println!("random play won {won} of {games} ({lost} lost, {drawn} drawn) on the sides adjutant plays");
        return Ok(0);
    }
    // Per decision: the whole run (random play and resolution included),
    // and the thinking alone, what a player waits on.
    let per = started.elapsed().as_secs_f64() * 1000.0 / decisions.max(1) as f64;
    let think = thinking.as_secs_f64() * 1000.0 / decisions.max(1) as f64;
    let most = longest.as_secs_f64() * 1000.0;
    println!(
        "adjutant won {won} of {games} ({lost} lost, {drawn} drawn); {decisions} decisions, {per:.1} ms each, \
         {think:.1} ms of it thinking, the longest {most:.0} ms"
    );
    Ok(0)
}
