//! Runs every adjudication case under tests/cases/<ruleset>/ as one named
//! test (libtest-mimic prints libtest's summary). The same runner serves
//! `adjutant case FILE`.

use libtest_mimic::{Arguments, Failed, Trial};
use std::path::PathBuf;

fn main() {
    let args = Arguments::from_args();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    let mut files = Vec::new();
    for dir in std::fs::read_dir(&root).expect("tests/cases exists").flatten() {
        if dir.path().is_dir() {
            for f in std::fs::read_dir(dir.path()).unwrap().flatten() {
                if f.path().extension().map(|e| e == "toml").unwrap_or(false) {
                    files.push(f.path());
                }
            }
        }
    }
    files.sort();
    assert!(!files.is_empty(), "no case files found under {}", root.display());
    let trials = files
        .into_iter()
        .map(|f| {
            let name = format!(
                "{}/{}",
                f.parent().unwrap().file_name().unwrap().to_string_lossy(),
                f.file_stem().unwrap().to_string_lossy()
            );
            Trial::test(name, move || adjutant::cases::run_file(&f).map_err(Failed::from))
        })
        .collect();
    libtest_mimic::run(&args, trials).exit();
}
