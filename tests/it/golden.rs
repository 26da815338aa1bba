//! Golden files: what a player and the moderator read at the start of each
//! game (the ASCII view and the SVG board) is compared with the files
//! under tests/golden/, so no change to a view goes unnoticed. Regenerate
//! them with `UPDATE_GOLDEN=1 cargo test --test it golden` and read the diff.

use adjutant::engine::{Game, Viewer};
use adjutant::render;
use std::path::PathBuf;

fn check(name: &str, got: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden").join(name);
    if std::env::var("UPDATE_GOLDEN").is_ok() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (UPDATE_GOLDEN=1 writes it)", path.display()));
    if want != got {
        let line = want.lines().zip(got.lines()).position(|(a, b)| a != b).unwrap_or(0);
        panic!(
            "{name} differs from its golden file at line {}:\n  golden: {:?}\n  now:    {:?}\n(UPDATE_GOLDEN=1 rewrites it)",
            line + 1,
            want.lines().nth(line).unwrap_or(""),
            got.lines().nth(line).unwrap_or("")
        );
    }
}

#[test]
fn views_at_the_start_of_every_game() {
    for rules in adjutant::rules::ALL {
        let info = rules.info();
        let game = Game::new("golden", *rules, &info.scenarios[0].name).unwrap();
        let mut viewers: Vec<Viewer> = game.roles.iter().map(|r| Viewer::Role(r.clone())).collect();
        viewers.push(Viewer::Moderator);
        for v in viewers {
            let view = game.view(&v);
            check(&format!("{}-{}.txt", info.name, v.label()), &render::ascii::render(&view));
            check(&format!("{}-{}.svg", info.name, v.label()), &render::svg::render(&view));
        }
    }
}
