//! The shape ARCHITECTURE.md promises, checked on the source itself:
//! file sizes, which layer may import which, where I/O and the clock may
//! appear, a `//!` line atop every module, and that every repository path
//! the docs name exists.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// Every source file under `src/`, by its path from the repository root.
fn sources() -> BTreeMap<String, String> {
    let mut files = Vec::new();
    rust_files(&root().join("src"), &mut files);
    files
        .into_iter()
        .map(|p| {
            let rel = p.strip_prefix(root()).unwrap().to_string_lossy().replace('\\', "/");
            (rel, std::fs::read_to_string(&p).unwrap())
        })
        .collect()
}

/// The code of a file without its tests module, where fixtures may do
/// what the code may not.
fn code(text: &str) -> &str {
    text.find("#[cfg(test)]").map_or(text, |i| &text[..i])
}

#[test]
fn no_file_is_too_long_to_read() {
    let mut long = Vec::new();
    for (path, text) in sources() {
        let lines = text.lines().count();
        let most = if path.starts_with("src/desk/") { 800 } else { 1500 };
        if lines > most {
            long.push(format!("{path}: {lines} lines (at most {most})"));
        }
    }
    assert!(long.is_empty(), "split along the rules' or the work's own sections:\n{}", long.join("\n"));
}

#[test]
fn every_module_says_what_it_is() {
    let bare: Vec<String> =
        sources().into_iter().filter(|(_, t)| !t.trim_start().starts_with("//!")).map(|(p, _)| p).collect();
    assert!(bare.is_empty(), "no //! line atop: {bare:?}");
}

/// The layer a source file belongs to: `src/<layer>/…` or `src/<layer>.rs`,
/// with the desk's referee apart from its shell.
fn layer(path: &str) -> String {
    if path.starts_with("src/desk/core/") {
        return "desk/core".into();
    }
    let rest = path.trim_start_matches("src/");
    rest.split('/').next().unwrap().trim_end_matches(".rs").to_string()
}

/// The layers a file imports from, read from its `use crate::…` and
/// `crate::…::` paths.
fn imports(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, _) in text.match_indices("crate::") {
        let after = &text[i + "crate::".len()..];
        let name: String = after.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
        if !name.is_empty() && !out.contains(&name) {
            out.push(name);
        }
    }
    out
}

#[test]
fn layers_only_look_down() {
    // What each layer must never import: the rules and the engine know
    // nothing of mail or files, renderers see Views and never a game's
    // state, the dice ask no one who may see a stream, and config holds
    // plain values.
    let never: &[(&str, &[&str])] = &[
        ("config", &["desk", "mail", "cli", "rules", "engine"]),
        ("dice", &["engine", "rules", "desk", "mail", "journal", "render", "cli"]),
        ("engine", &["rules", "desk", "mail", "journal", "render", "cli"]),
        ("render", &["rules", "desk", "mail", "journal", "cli"]),
        ("rules", &["desk", "mail", "journal", "render", "cli"]),
        ("journal", &["desk", "mail", "cli"]),
        ("mail", &["desk", "cli"]),
        ("desk/core", &["cli"]),
        ("desk", &["cli"]),
    ];
    let mut wrong = Vec::new();
    for (path, text) in sources() {
        let l = layer(&path);
        let Some((_, banned)) = never.iter().find(|(n, _)| *n == l) else { continue };
        for m in imports(code(&text)) {
            if banned.contains(&m.as_str()) {
                wrong.push(format!("{path} ({l}) imports crate::{m}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_referee_the_rules_and_the_dice_do_no_io_and_read_no_clock() {
    // The desk's shell hands the referee the clock and the files' contents
    // as values; the engine, rules, dice and renderers need neither.
    let pure = ["desk/core", "engine", "rules", "dice", "render"];
    let io = [
        "std::fs",
        "std::net",
        "std::process",
        "std::env",
        "std::io::stdin",
        "Utc::now",
        "Local::now",
        "SystemTime",
        "Instant::now",
        "File::",
        "TcpStream",
        "thread::sleep",
    ];
    let mut wrong = Vec::new();
    for (path, text) in sources() {
        if !pure.contains(&layer(&path).as_str()) {
            continue;
        }
        for word in io {
            if mentions(code(&text), word) {
                wrong.push(format!("{path}: {word}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Whether `text` has `word` starting at a word boundary (`File::` but
/// not `RowFile::`).
fn mentions(text: &str, word: &str) -> bool {
    text.match_indices(word)
        .any(|(i, _)| !text[..i].chars().next_back().is_some_and(|c| c.is_ascii_alphanumeric() || c == '_'))
}

/// The Markdown files a newcomer reads.
fn docs() -> Vec<PathBuf> {
    let mut out = vec![root().join("README.md"), root().join("ARCHITECTURE.md")];
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|e| e == "md") {
                out.push(p);
            }
        }
    }
    walk(&root().join("docs"), &mut out);
    out.sort();
    out
}

/// Whether a word in backticks names a place in the repository: it starts
/// with one of the repository's own top-level folders or files (a path
/// under the data folder a running adjutant makes is not one).
fn names_repository_path(word: &str) -> bool {
    const TOP: [&str; 10] =
        ["src/", "docs/", "games/", "tests/", "scripts/", "benches/", "templates/", ".ci/", "contrib/", "assets/"];
    let clean = word.trim_end_matches(['.', ',', ':', ')']);
    !clean.contains(['<', '>', '*', ' ', '{', '…'])
        && (TOP.iter().any(|t| clean.starts_with(t))
            || ["Cargo.toml", "README.md", "ARCHITECTURE.md", "config.example.toml"].contains(&clean))
}

#[test]
fn every_path_the_docs_name_exists() {
    let mut missing = Vec::new();
    for doc in docs() {
        let text = std::fs::read_to_string(&doc).unwrap();
        let here = doc.parent().unwrap();
        let name = doc.strip_prefix(root()).unwrap().display().to_string();
        // `path` in backticks, from the repository root.
        for (i, part) in text.split('`').enumerate() {
            if i % 2 == 1 && names_repository_path(part) {
                let clean = part.trim_end_matches(['.', ',', ':', ')']);
                let rel = clean.split('#').next().unwrap();
                let rel = rel.split_once(':').map_or(rel, |(p, _)| p);
                if !root().join(rel).exists() {
                    missing.push(format!("{name}: `{part}`"));
                }
            }
        }
        // [text](link), from the document's folder.
        for (i, _) in text.match_indices("](") {
            let link: String = text[i + 2..].chars().take_while(|c| *c != ')').collect();
            let target = link.split('#').next().unwrap();
            if target.is_empty() || target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            if !here.join(target).exists() {
                missing.push(format!("{name}: link ({link})"));
            }
        }
    }
    assert!(missing.is_empty(), "named in the docs but not in the repository:\n{}", missing.join("\n"));
}
