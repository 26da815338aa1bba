//! The scenarios (`games/tacticum/`, one file each), read once and copied
//! into a new game's state.

use super::{Army, Objective, Phantom, State, Terrain};
use serde::Deserialize;
use std::sync::LazyLock;

const FILES: &[&str] = &[
    include_str!("../../../games/tacticum/scenario-01-force-on-force.toml"),
    include_str!("../../../games/tacticum/scenario-02-preserve-the-eagle.toml"),
    include_str!("../../../games/tacticum/scenario-03-revolt.toml"),
    include_str!("../../../games/tacticum/scenario-04-high-ground.toml"),
    include_str!("../../../games/tacticum/scenario-05-resupply.toml"),
    include_str!("../../../games/tacticum/scenario-06-seize-the-eagle.toml"),
    include_str!("../../../games/tacticum/scenario-07-alae.toml"),
    include_str!("../../../games/tacticum/scenario-08-all-units.toml"),
    include_str!("../../../games/tacticum/scenario-09-combined-forces.toml"),
    include_str!("../../../games/tacticum/scenario-10-consuls.toml"),
    include_str!("../../../games/tacticum/solo-1-secure-the-frontier.toml"),
    include_str!("../../../games/tacticum/solo-2-prisoner-escort.toml"),
];

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    #[allow(dead_code)]
    pub provenance: String,
    pub name: String,
    #[allow(dead_code)]
    pub number: String,
    pub title: String,
    pub about: String,
    #[allow(dead_code)]
    pub note: String,
    pub turn_order: Vec<String>,
    pub board: BoardFile,
    #[serde(rename = "army")]
    pub armies: Vec<Army>,
    #[serde(default, rename = "phantom")]
    pub phantoms: Vec<Phantom>,
    #[serde(default)]
    pub capture: CaptureFile,
    /// `toss`: the first player is drawn; `setup`: every army is
    /// placed by its consul first, the given positions being the example
    /// (X, S10-2); else the first in `turn_order` moves.
    #[serde(default)]
    pub first: String,
    /// The rows from its home edge an army sets up in (`first = "setup"`).
    #[serde(default)]
    pub setup_rows: u8,
    #[serde(default)]
    pub lines: bool,
    #[serde(default)]
    pub infantry_limit: u32,
    #[serde(default)]
    pub facing: bool,
    #[serde(default)]
    pub manoeuvres: bool,
    #[serde(default)]
    pub terrain: Terrain,
    #[serde(rename = "objective")]
    pub objectives: Vec<Objective>,
    /// The roles, where they are not the armies of `turn_order` (solo:
    /// `legion`).
    #[serde(default)]
    pub solo: Option<super::solo::Solo>,
    /// Named patches of this file's keys (`frontier+easier`), merged over
    /// it at set-up.
    #[serde(default)]
    pub variant: toml::Table,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoardFile {
    pub columns: u8,
    pub rows: u8,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaptureFile {
    #[serde(default)]
    pub two_sides: Vec<String>,
    #[serde(default)]
    pub two_sides_mode: String,
}

impl ScenarioFile {
    pub fn roles(&self) -> Vec<String> {
        self.turn_order.clone()
    }
    pub fn variants(&self) -> Vec<String> {
        self.variant.keys().cloned().collect()
    }
}

pub static SCENARIOS: LazyLock<Vec<ScenarioFile>> = LazyLock::new(|| {
    FILES.iter().map(|t| toml::from_str(t).unwrap_or_else(|e| panic!("games/tacticum: {e}"))).collect()
});

/// A scenario's file with the variants named after `+` applied.
fn with_variants(scenario: &str) -> Result<ScenarioFile, String> {
    let mut parts = scenario.split('+');
    let base = parts.next().unwrap_or("");
    let i = SCENARIOS.iter().position(|s| s.name == base).ok_or_else(|| {
        let names: Vec<&str> = SCENARIOS.iter().map(|s| s.name.as_str()).collect();
        format!("no Tacticum scenario {base:?}; there are {}", names.join(", "))
    })?;
    let mut table: toml::Table = toml::from_str(FILES[i]).map_err(|e| e.to_string())?;
    for v in parts {
        let patch = SCENARIOS[i]
            .variant
            .get(v)
            .and_then(|p| p.as_table())
            .ok_or_else(|| format!("{base} has no variant {v:?}"))?
            .clone();
        // Tables key by key, armies by name (the engine's patch rule).
        crate::engine::merge(&mut table, &patch);
    }
    table.remove("variant");
    toml::Value::Table(table).try_into().map_err(|e: toml::de::Error| e.to_string())
}

pub fn setup(scenario: &str) -> Result<State, String> {
    let f = &with_variants(scenario)?;
    let mut s = State {
        scenario: scenario.to_string(),
        phase: match f.first.as_str() {
            "toss" | "setup" => f.first.clone(),
            _ => "turn".into(),
        },
        setup_rows: f.setup_rows,
        unplaced: Vec::new(),
        example: Vec::new(),
        lines: f.lines,
        facing: f.facing,
        manoeuvres: f.manoeuvres,
        lost_infantry: Default::default(),
        terrain: f.terrain.clone(),
        two_sides_mode: f.capture.two_sides_mode.clone(),
        lost_grain: Default::default(),
        infantry_limit: f.infantry_limit,
        cavalry_turn_max: 5,
        pending: None,
        title: format!("Scenario {}: {}", f.number, f.title),
        columns: f.board.columns,
        rows: f.board.rows,
        turn_order: f.turn_order.clone(),
        active: f.turn_order[0].clone(),
        turn: 0,
        armies: f.armies.clone(),
        phantoms: f.phantoms.clone(),
        two_sides: f.capture.two_sides.clone(),
        objectives: f.objectives.clone(),
        lost: Default::default(),
        last: None,
        passes: 0,
        outcome: None,
        solo: f.solo.clone(),
    };
    check(&s).map_err(|e| format!("games/tacticum, {scenario}: {e}"))?;
    if s.solo.as_ref().is_some_and(|x| x.fort.is_some()) {
        // SO1-9: the player arranges the Fort's Wood and Stone first.
        s.phase = "arrange".into();
    }
    if s.solo.as_ref().is_some_and(|x| !x.scout_cells.is_empty()) {
        // SO2-32: the Scout is placed before play.
        s.phase = "scout".into();
    }
    if s.phase == "setup" {
        // The file's positions are the example set-up (S10-2): kept apart,
        // the armies off the board until their consuls place them.
        s.example = s.armies.clone();
        for a in &mut s.armies {
            a.commander.clear();
            a.cavalry.iter_mut().for_each(String::clear);
            a.infantry.iter_mut().for_each(String::clear);
        }
        s.unplaced = s.turn_order.clone();
    }
    Ok(s)
}

/// What the code relies on: every square on the board and held once, an
/// army for each role, objectives of known kinds.
fn check(s: &State) -> Result<(), String> {
    let mut seen = std::collections::BTreeSet::new();
    for a in &s.armies {
        let all = std::iter::once(&a.commander)
            .chain(&a.infantry)
            .chain(&a.cavalry)
            .chain(&a.skirmishers)
            .chain(&a.grain)
            .chain(std::iter::once(&a.eagle));
        for c in all.filter(|c| !c.is_empty()) {
            s.board().parse(c, "board").map_err(|p| format!("{}: {}", a.name, p.reason))?;
            if !seen.insert(c.to_lowercase()) {
                return Err(format!("{c} holds two pieces"));
            }
        }
    }
    for r in &s.turn_order {
        if s.army_index(r).is_none() {
            return Err(format!("no army for {r}"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_objective_of_an_unknown_kind_is_refused_when_the_file_is_read() {
        let text = FILES[0].replacen("kind = \"trap\"", "kind = \"trapp\"", 1);
        let e = toml::from_str::<ScenarioFile>(&text).unwrap_err().to_string();
        assert!(e.contains("trapp") && e.contains("side_lost"), "{e}");
    }

    #[test]
    fn every_scenario_sets_up_with_its_printed_forces() {
        // Printed: I 17 + Commander a side (S1-2); II White 14 + Commander,
        // Black 9 + the Eagle (S2-2); III Rebels 13, Black 11 + Commander
        // (S3-2).
        let forces = [
            ("force-on-force", [(17, true), (17, true)]),
            ("preserve-the-eagle", [(9, true), (14, true)]),
            ("revolt", [(11, true), (13, false)]),
            ("high-ground", [(3, true), (3, true)]),
            ("resupply", [(9, true), (9, false)]),
            ("seize-the-eagle", [(10, true), (10, true)]),
            ("alae", [(17, true), (17, true)]),
            ("all-units", [(17, true), (17, true)]),
            ("combined-forces", [(22, true), (26, true)]),
        ];
        for (name, f) in forces {
            let s = setup(name).unwrap();
            for (i, (n, commander)) in f.iter().enumerate() {
                assert_eq!(s.armies[i].infantry.len(), *n, "{name} {}", s.armies[i].name);
                assert_eq!(!s.armies[i].commander.is_empty(), *commander, "{name}");
            }
        }
        assert_eq!(setup("force-on-force").unwrap().active, "black", "S1-4");
        assert_eq!(setup("preserve-the-eagle").unwrap().active, "black", "S2-4");
        assert_eq!(setup("revolt").unwrap().active, "white", "S3-4");
        assert!(setup("nowhere").unwrap_err().contains("force-on-force"));
        // S6-2: one Cavalry and an Eagle a side; S7-1: two Cavalry a side.
        let vi = setup("seize-the-eagle").unwrap();
        assert!(vi.armies.iter().all(|a| a.cavalry.len() == 1 && !a.eagle.is_empty()));
        assert_eq!((vi.phase.as_str(), vi.infantry_limit), ("toss", 7), "A-15, S6-4");
        // S4-2: 17 Infantry a side, 3 in the Command Square and 14 to place.
        let iv = setup("high-ground").unwrap();
        assert!(iv.armies.iter().all(|a| a.reserve == 14) && iv.facing && iv.terrain.hilltops.len() == 2);
        let vii = setup("alae").unwrap();
        assert!(vii.armies.iter().all(|a| a.cavalry.len() == 2) && vii.lines && (vii.columns, vii.rows) == (15, 11));
    }
}
