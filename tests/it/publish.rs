//! `adjutant publish`: a game's public page, served over loopback and
//! loaded in headless Chromium, checks its own journal in the browser; one
//! changed character fails it; bad requests are refused.

use super::support::*;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;

fn adjutant(data: &Path, args: &[&str]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_adjutant")).arg("--data").arg(data).args(args).output().unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (out.status.success(), text)
}

/// Serve `root` over HTTP on loopback (GET of files only), in a thread;
/// the port.
fn serve(root: PathBuf) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut s) = stream else { continue };
            let mut buf = [0u8; 4096];
            let n = s.read(&mut buf).unwrap_or(0);
            let req = String::from_utf8_lossy(&buf[..n]).to_string();
            let path = req.split_whitespace().nth(1).unwrap_or("/").trim_start_matches('/').to_string();
            let file = root.join(path.split('?').next().unwrap_or(""));
            let (status, body) = match std::fs::read(&file) {
                Ok(b) if !path.contains("..") => ("200 OK", b),
                _ => ("404 Not Found", b"not found".to_vec()),
            };
            let kind = match file.extension().and_then(|e| e.to_str()) {
                Some("html") => "text/html; charset=utf-8",
                Some("js") => "text/javascript",
                Some("svg") => "image/svg+xml",
                Some("png") => "image/png",
                _ => "text/plain; charset=utf-8",
            };
            let head = format!(
                "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            let _ = s.write_all(head.as_bytes());
            let _ = s.write_all(&body);
        }
    });
    port
}

/// The page's verdict element once its check has run: (verdict, draws).
fn verdict(url: &str, profile: &Path) -> (String, usize) {
    let out = output_within(
        Command::new("/usr/bin/chromium")
            .args(["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"])
            .args(["--disable-component-update", "--disable-sync", "--virtual-time-budget=20000", "--dump-dom"])
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg(url),
        120,
    );
    let dom = String::from_utf8_lossy(&out.stdout).to_string();
    let tag = dom.split("id=\"verdict\"").nth(1).map(|t| t.split('>').next().unwrap_or("").to_string());
    let tag = tag.unwrap_or_else(|| panic!("no verdict element in\n{dom}"));
    let attr = |name: &str| {
        tag.split(&format!("{name}=\"")).nth(1).and_then(|x| x.split('"').next()).unwrap_or("").to_string()
    };
    (attr("data-verdict"), attr("data-draws").parse().unwrap_or(0))
}

/// The number of draws `adjutant audit` verifies in `journal`.
fn audited_draws(journal: &Path) -> usize {
    let entries = adjutant::journal::read(journal).unwrap();
    if adjutant::export::redacted(&entries) {
        return adjutant::export::verify_public(&entries).unwrap().draws;
    }
    adjutant::audit::replay(&entries).unwrap().1.draws
}

#[test]
fn a_published_game_checks_itself_in_the_browser_and_a_changed_character_fails_it() {
    if !have_chromium() {
        return;
    }
    let root = temp_dir("publish");
    let port = serve(root.clone());
    // A finished demo of every game: the whole journal is public.
    for rules in adjutant::rules::ALL {
        let name = rules.info().name;
        let data = root.join(format!("data-{name}"));
        let (ok, out) = adjutant(&data, &["demo", name]);
        assert!(ok, "{out}");
        let (_, games) = adjutant(&data, &["games"]);
        let id = games.split_whitespace().next().unwrap().to_string();
        let site = root.join(name);
        let (ok, out) = adjutant(&data, &["publish", &id, site.to_str().unwrap()]);
        assert!(ok, "{out}");
        assert!(site.join("index.html").exists() && site.join("journal.toml").exists());
        let (v, draws) = verdict(&format!("http://127.0.0.1:{port}/{name}/index.html"), &root.join("profile"));
        assert_eq!(v, "verified", "{name}");
        assert_eq!(draws, audited_draws(&site.join("journal.toml")), "{name}: the browser recomputed every draw");
        // Publishing again into its own folder is fine.
        assert!(adjutant(&data, &["publish", &id, site.to_str().unwrap()]).0);
    }
    // The page shows its map: the sides' colours are on the screenshot.
    let shot = root.join("mantua.png");
    chromium_screenshot(&root.join("mantua/index.html"), &shot);
    for colour in ["2c5aa0", "c0392b"] {
        assert!(ink(&shot, colour) > 200, "the map's {colour} counters are drawn on the page");
    }
    // One changed character: a value in the middle, then a hash.
    let site = root.join("mantua");
    let text = std::fs::read_to_string(site.join("journal.toml")).unwrap();
    let at = text[text.len() / 2..].find("kind = \"").map(|i| i + text.len() / 2).unwrap();
    let mut changed = text.clone();
    changed.replace_range(at + 8..at + 9, "X");
    std::fs::write(site.join("journal.toml"), &changed).unwrap();
    let (v, _) = verdict(&format!("http://127.0.0.1:{port}/mantua/index.html"), &root.join("profile"));
    assert_eq!(v, "failed", "a changed value");
    let h = text.rfind("hash = \"").unwrap() + 8;
    let mut changed = text.clone();
    let c = if &text[h..h + 1] == "0" { "1" } else { "0" };
    changed.replace_range(h..h + 1, c);
    std::fs::write(site.join("journal.toml"), &changed).unwrap();
    let (v, _) = verdict(&format!("http://127.0.0.1:{port}/mantua/index.html"), &root.join("profile"));
    assert_eq!(v, "failed", "a changed hash");
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn a_game_in_progress_publishes_what_is_public_and_bad_requests_are_refused() {
    let mut t = Table::new("publish-live");
    t.setup();
    let dir = t.dir.join("site");
    let (ok, out) = adjutant(&t.dir, &["publish", "g1", dir.to_str().unwrap()]);
    assert!(ok, "{out}");
    let html = std::fs::read_to_string(dir.join("index.html")).unwrap();
    assert!(html.contains("withholds what is still hidden"), "the page says the export is redacted");
    let journal = std::fs::read_to_string(dir.join("journal.toml")).unwrap();
    for secret in [ALICE, BOB, "Laudon", "Bonaparte"] {
        assert!(!journal.contains(secret) && !html.contains(secret), "{secret} is published");
    }
    assert!(dir.join("map.png").exists() && dir.join("step-1.svg").exists());
    // Refused: an unknown game; a folder of other files (unless --force).
    let (ok, out) = adjutant(&t.dir, &["publish", "nosuch", dir.to_str().unwrap()]);
    assert!(!ok && out.contains("there is no game \"nosuch\""), "{out}");
    let other = t.dir.join("other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("notes.txt"), "mine").unwrap();
    let (ok, out) = adjutant(&t.dir, &["publish", "g1", other.to_str().unwrap()]);
    assert!(!ok && out.contains("holds other files"), "{out}");
    assert!(adjutant(&t.dir, &["publish", "g1", other.to_str().unwrap(), "--force"]).0);
    // Every game at once, with an index.
    let all = t.dir.join("all");
    let (ok, out) = adjutant(&t.dir, &["publish", "--all", all.to_str().unwrap()]);
    assert!(ok && all.join("index.html").exists() && all.join("g1/index.html").exists(), "{out}");
    if have_chromium() {
        let port = serve(t.dir.clone());
        let (v, draws) = verdict(&format!("http://127.0.0.1:{port}/site/index.html"), &t.dir.join("profile"));
        assert_eq!(v, "verified");
        assert_eq!(draws, audited_draws(&dir.join("journal.toml")));
    }
}

#[test]
fn the_daemon_keeps_the_pages_current_with_a_publish_dir() {
    let mut t = Table::new("publish-daemon");
    let pages = t.dir.join("pages");
    let config = t.dir.join("adjutant.toml");
    std::fs::write(&config, format!("[publish]\ndir = \"{}\"\n", pages.display())).unwrap();
    let data = t.dir.clone();
    let run = || {
        Command::new(env!("CARGO_BIN_EXE_adjutant"))
            .arg("--config")
            .arg(&config)
            .arg("--data")
            .arg(&data)
            .args(["run", "--once"])
            .output()
            .unwrap()
    };
    assert!(run().status.success());
    let mark = pages.join("g1").join(adjutant::publish::MARK);
    let first = std::fs::read_to_string(&mark).unwrap();
    // A pass that moves the game on makes its page again; one that does
    // not leaves it.
    t.send("austria", ALICE, "PLACE Laudon AT Riva");
    t.send("france", BOB, "PLACE Bonaparte AT Verona");
    assert!(run().status.success());
    let second = std::fs::read_to_string(&mark).unwrap();
    assert_ne!(first, second, "the page follows the journal");
    assert!(std::fs::read_to_string(pages.join("g1/index.html")).unwrap().contains("Step 1 (setup)"));
    assert!(run().status.success());
    assert_eq!(std::fs::read_to_string(&mark).unwrap(), second);
}
