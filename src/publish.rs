//! A game's public page: a static site any web server serves, made from
//! the game's journal alone. It shows the game as any spectator may see
//! it (the public view and map now and after each step, the public
//! results and dice), carries the public journal (`audit --export-public`:
//! hidden facts withheld while the game lasts), and checks that journal in
//! the reader's browser with a hand-written verifier (`assets/publish/`),
//! a third implementation of docs/journal-v1.md and docs/dice-v1.md beside
//! the Rust and Python ones. Pure: the caller writes the files.

use crate::engine::{Audience, Viewer};
use crate::journal::{kinds, Entry};
use crate::render;
use minijinja::{context, Environment};
use serde::Serialize;

/// The browser's verifier and the page's own script, shipped with every
/// page (no network, no build step).
const VERIFY_JS: &str = include_str!("../assets/publish/verify.js");
const PAGE_JS: &str = include_str!("../assets/publish/page.js");
const PAGE: &str = include_str!("../templates/publish.html");

/// The file a published folder carries so that `publish` knows the folder
/// as its own and may write it again: the game, and the journal entry the
/// page was made at.
pub const MARK: &str = ".adjutant-publish";

/// One step as the page lists it.
#[derive(Serialize)]
struct Step {
    step: u32,
    kind: String,
    events: Vec<String>,
    draws: Vec<String>,
    map: Option<String>,
    undone: bool,
}

/// The files of a game's page, by name, from its whole journal.
pub fn site(entries: &[Entry]) -> Result<Vec<(String, Vec<u8>)>, String> {
    let last = entries.last().map(|e| e.seq).unwrap_or(0);
    let public = crate::export::export_public(entries)?;
    let redacted = crate::export::redacted(&public);
    let created: kinds::Created =
        entries.first().ok_or("the journal is empty")?.body().map_err(|e| format!("its first entry: {e}"))?;
    // The public map after each step, from a replay of the journal: the
    // public view is what any spectator saw then.
    let mut maps: Vec<(u32, String)> = Vec::new();
    let (game, _) = crate::audit::replay_each(entries, &mut |g, e| {
        if e.kind == "resolved" {
            if let Some(k) = e.body.get("step").and_then(|v| v.as_integer()) {
                maps.push((k as u32, render::svg::render(&g.view(&Viewer::Public))));
            }
        }
    })
    .map_err(|m| format!("the journal does not verify: {m}"))?;
    let undone = crate::journal::undone_steps(entries);
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    let mut steps = Vec::new();
    for e in public.iter().filter(|e| e.kind == "resolved") {
        let Ok(r) = e.body::<kinds::Resolved>() else { continue };
        let map = maps.iter().rev().find(|(k, _)| *k == r.step).map(|(k, svg)| {
            let name = format!("step-{k}.svg");
            files.push((name.clone(), svg.clone().into_bytes()));
            name
        });
        steps.push(Step {
            step: r.step,
            kind: r.step_kind.clone(),
            events: r.events.iter().filter(|x| x.to == Audience::All).map(|x| x.text.clone()).collect(),
            draws: r
                .draws
                .iter()
                .map(|d| {
                    let faces: Vec<String> = d.result.iter().map(|x| x.to_string()).collect();
                    format!("{} ({} stream, draw {}): {}", d.label, d.stream, d.n, faces.join(", "))
                })
                .collect(),
            map,
            undone: undone.contains(&r.step),
        });
    }
    let view = game.view(&Viewer::Public);
    let svg = render::svg::render(&view);
    let png = render::png::from_svg(&svg)?;
    let a = game.awaiting();
    // The deadline as the journal last set it, and the rollbacks.
    let deadline = entries
        .iter()
        .rev()
        .filter(|e| e.kind == "deadline" || e.kind == "moderator")
        .filter_map(|e| e.body::<kinds::Moderator>().ok())
        .find(|m| m.action == kinds::Action::Deadline)
        .and_then(|m| m.args.first().cloned());
    let rollbacks: Vec<String> = entries
        .iter()
        .filter(|e| e.kind == "rolled_back")
        .filter_map(|e| e.body::<kinds::RolledBack>().ok().map(|b| (e.at.clone(), b)))
        .map(|(at, b)| format!("{at}: back to step {} (going on as step {}) — {}", b.to_step, b.step, b.reason))
        .collect();
    let status = match game.outcome() {
        _ if game.ended => "The game is over.".to_string(),
        Some(o) => format!("The game is over: {}.", o.reason),
        None if a.prompts.is_empty() => format!("Step {} ({}).", game.step, a.kind),
        None => format!(
            "Step {} ({}): awaiting {}.",
            game.step,
            a.kind,
            a.prompts
                .keys()
                .map(|r| if r == "gm" { "the moderator" } else { r.as_str() })
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let ended = entries.iter().rev().find(|e| e.kind == "ended" || e.kind == "rolled_back");
    let result =
        ended.filter(|e| e.kind == "ended").and_then(|e| e.body::<kinds::Ended>().ok()).map(|x| match x.winner {
            Some(w) => format!("Winner: {w} ({}).", x.reason),
            None => format!("No winner ({}).", x.reason),
        });
    let rules = crate::rules::find(&created.ruleset).map(|r| r.info().title.to_string()).unwrap_or_default();
    let mut env = Environment::new();
    env.add_template("publish.html", PAGE).map_err(|e| e.to_string())?;
    let html = env
        .get_template("publish.html")
        .and_then(|t| {
            t.render(context! {
                game => created.game, title => rules, ruleset => created.ruleset, scenario => created.scenario,
                status => status, result => result, deadline => deadline.filter(|_| !game.ended),
                redacted => redacted, steps => steps, view => render::ascii::render(&view),
                rollbacks => rollbacks,
            })
        })
        .map_err(|e| e.to_string())?;
    let journal: String = public.iter().map(|e| e.to_text()).collect();
    let report = crate::report::render(&[crate::report::gather(&public)]);
    files.extend([
        ("index.html".to_string(), html.into_bytes()),
        ("journal.toml".to_string(), journal.into_bytes()),
        ("map.svg".to_string(), svg.into_bytes()),
        ("map.png".to_string(), png),
        ("report.html".to_string(), report.into_bytes()),
        ("verify.js".to_string(), VERIFY_JS.as_bytes().to_vec()),
        ("page.js".to_string(), PAGE_JS.as_bytes().to_vec()),
        (MARK.to_string(), format!("{}\n{last}\n", created.game).into_bytes()),
    ]);
    Ok(files)
}

/// The index of a folder of published games.
pub fn index(games: &[(String, String, String)]) -> String {
    let mut env = Environment::new();
    let page = "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>Games</title></head><body><h1>Games</h1><ul>{% for g in games %}<li><a href=\"{{ g[0] }}/index.html\">{{ g[0] }}</a> — {{ g[1] }}: {{ g[2] }}</li>{% endfor %}</ul></body></html>\n";
    env.add_template("index.html", page).expect("a valid template");
    env.get_template("index.html").and_then(|t| t.render(context! { games => games })).unwrap_or_default()
}
