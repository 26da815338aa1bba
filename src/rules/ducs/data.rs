//! The game's data (`games/ducs/`): map pictures, counters, the results
//! table, terrain and scenarios, read once and copied into a new game's
//! state; and the set-up steps (garrisons at once, then placement in turn).

use super::{
    other, side_name, HexData, HexsideData, Map, Numbers, Order, Phase, RoadData, State, Terrain, Unit, ORF, SIDES,
    WULF,
};
use crate::engine::Event;
use crate::rules::shared::hex::{Grid, Hex, Offset};
use crate::rules::shared::table::OddsTable;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::sync::LazyLock;

const MAP: &str = include_str!("../../../games/ducs/map.toml");
const MAP_PROVING: &str = include_str!("../../../games/ducs/map-proving.toml");
const COUNTERS: &str = include_str!("../../../games/ducs/counters.toml");
const CRT: &str = include_str!("../../../games/ducs/crt.toml");
const TERRAIN: &str = include_str!("../../../games/ducs/terrain.toml");
const SCENARIOS_TOML: &str = include_str!("../../../games/ducs/scenarios.toml");

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MapFile {
    #[allow(dead_code)]
    pub provenance: String,
    #[allow(dead_code)]
    pub note: String,
    pub columns: i32,
    pub rows: i32,
    #[serde(default)]
    pub offset: Offset,
    pub terrain: Vec<String>,
    pub owner: Vec<String>,
    pub zone: Vec<String>,
    #[serde(default, rename = "place")]
    pub places: Vec<PlaceFile>,
    #[serde(default, rename = "road")]
    pub roads: Vec<RoadData>,
    #[serde(default, rename = "hexside")]
    pub hexsides: Vec<HexsideData>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlaceFile {
    pub hex: String,
    pub name: String,
    #[serde(default)]
    pub capital: String,
    #[serde(default)]
    pub objective: bool,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CountersFile {
    #[allow(dead_code)]
    pub provenance: String,
    #[allow(dead_code)]
    pub note: String,
    #[serde(rename = "type")]
    pub types: Vec<CounterType>,
    #[serde(default, rename = "counter")]
    pub counters: Vec<CounterOverride>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CounterType {
    pub kind: String,
    pub prefix: String,
    pub count: u32,
    pub strength: u32,
    pub movement: u32,
    #[serde(default)]
    pub range: i32,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CounterOverride {
    pub side: String,
    pub id: String,
    #[serde(default)]
    pub strength: Option<u32>,
    #[serde(default)]
    pub movement: Option<u32>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CrtFile {
    #[allow(dead_code)]
    pub provenance: String,
    #[allow(dead_code)]
    pub note: String,
    #[serde(flatten)]
    pub table: OddsTable,
    /// The cells the rulebook prints, row by row from the first column.
    pub printed: BTreeMap<String, Vec<String>>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TerrainFile {
    #[allow(dead_code)]
    pub provenance: String,
    #[allow(dead_code)]
    pub note: String,
    pub turns: u32,
    pub duke_radius: i32,
    pub duke_factor: u32,
    pub road_cost: u32,
    #[serde(rename = "terrain")]
    pub terrain: Vec<Terrain>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    pub name: String,
    pub map: String,
    pub start: String,
    pub about: String,
    #[serde(default)]
    pub dukes: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScenariosFile {
    #[allow(dead_code)]
    provenance: String,
    #[allow(dead_code)]
    note: String,
    #[serde(rename = "scenario")]
    scenarios: Vec<ScenarioFile>,
}

pub static SCENARIOS: LazyLock<Vec<ScenarioFile>> = LazyLock::new(|| {
    toml::from_str::<ScenariosFile>(SCENARIOS_TOML).expect("games/ducs/scenarios.toml is valid").scenarios
});

pub fn map_file(name: &str) -> Result<MapFile, String> {
    let text = match name {
        "map" => MAP,
        "map-proving" => MAP_PROVING,
        _ => return Err(format!("no map {name:?} in games/ducs")),
    };
    toml::from_str(text).map_err(|e| format!("games/ducs/{name}.toml: {e}"))
}

pub fn counters_file() -> Result<CountersFile, String> {
    toml::from_str(COUNTERS).map_err(|e| format!("games/ducs/counters.toml: {e}"))
}

/// The results table, refused if an edit lost a cell the rulebook prints.
pub fn crt_file() -> Result<CrtFile, String> {
    let crt: CrtFile = toml::from_str(CRT).map_err(|e| format!("games/ducs/crt.toml: {e}"))?;
    for (row, cells) in &crt.printed {
        let have = crt.table.rows.get(row).ok_or_else(|| format!("games/ducs/crt.toml: no row {row}"))?;
        if have.get(..cells.len()) != Some(&cells[..]) {
            return Err(format!("games/ducs/crt.toml: row {row} differs from the rulebook's printed cells {cells:?}"));
        }
    }
    Ok(crt)
}

pub fn terrain_file() -> Result<TerrainFile, String> {
    toml::from_str(TERRAIN).map_err(|e| format!("games/ducs/terrain.toml: {e}"))
}

/// The map's hexes from its pictures, checked.
pub fn hexes_of(m: &MapFile, terrain: &[Terrain]) -> Result<Vec<HexData>, String> {
    let grid = |what: &str, rows: &[String]| -> Result<(), String> {
        if rows.len() != m.rows as usize {
            return Err(format!("the {what} picture has {} rows for {}", rows.len(), m.rows));
        }
        for (i, r) in rows.iter().enumerate() {
            if r.chars().count() != m.columns as usize {
                return Err(format!(
                    "row {} of the {what} picture has {} hexes for {}",
                    i + 1,
                    r.chars().count(),
                    m.columns
                ));
            }
        }
        Ok(())
    };
    grid("terrain", &m.terrain)?;
    grid("owner", &m.owner)?;
    grid("zone", &m.zone)?;
    let mut out = Vec::new();
    for c in 1..=m.columns {
        for r in 1..=m.rows {
            let at = |rows: &[String]| rows[(r - 1) as usize].chars().nth((c - 1) as usize).unwrap_or('.');
            let g = at(&m.terrain).to_string();
            let t = terrain
                .iter()
                .find(|t| t.glyph == g)
                .ok_or_else(|| format!("hex {}: no terrain {g:?}", Hex::new(c, r)))?;
            let owner = match at(&m.owner) {
                'o' => ORF,
                'w' => WULF,
                '-' => "",
                x => return Err(format!("hex {}: owner {x:?} is not o, w or -", Hex::new(c, r))),
            };
            let mut d = HexData {
                name: Hex::new(c, r).to_string(),
                terrain: t.name.clone(),
                owner: owner.to_string(),
                zone: at(&m.zone) == 'z',
                place: String::new(),
                capital: String::new(),
                objective: false,
                control: String::new(),
            };
            if t.defence > 1 {
                d.control = owner.to_string();
            }
            out.push(d);
        }
    }
    for p in &m.places {
        let h = Hex::parse(&p.hex).ok_or_else(|| format!("place {}: {:?} is not a hex", p.name, p.hex))?;
        let d = out
            .iter_mut()
            .find(|d| d.name == h.to_string())
            .ok_or_else(|| format!("place {} is off the map", p.name))?;
        d.place = p.name.clone();
        d.capital = p.capital.clone();
        d.objective = p.objective;
    }
    Ok(out)
}

/// Every counter of both sides, off the map.
pub fn counters(c: &CountersFile) -> Result<Vec<Unit>, String> {
    let mut out = Vec::new();
    for side in SIDES {
        for t in &c.types {
            for i in 1..=t.count {
                let id = if t.count == 1 { t.prefix.clone() } else { format!("{}{i}", t.prefix) };
                let mut u = Unit {
                    name: format!("{} {id}", super::prefix(side)),
                    side: side.to_string(),
                    id: id.clone(),
                    kind: t.kind.clone(),
                    strength: t.strength,
                    movement: t.movement,
                    range: t.range,
                    hex: String::new(),
                    eliminated: false,
                    attacked: false,
                    fought: false,
                };
                if let Some(o) = c.counters.iter().find(|o| o.side == side && o.id == id) {
                    u.strength = o.strength.unwrap_or(u.strength);
                    u.movement = o.movement.unwrap_or(u.movement);
                }
                out.push(u);
            }
        }
    }
    for o in &c.counters {
        if !out.iter().any(|u| u.side == o.side && u.id == o.id) {
            return Err(format!("counters.toml: no counter {} of {}", o.id, o.side));
        }
    }
    Ok(out)
}

/// A scenario's opening state. A "deployed" start plays the set-up steps
/// with the orders `defaults` gives each side (the caller's: the default
/// orders are the rules', not the data's).
pub fn setup(scenario: &str, defaults: fn(&State, &str) -> Vec<Order>) -> Result<State, String> {
    let base = scenario.split('+').next().unwrap_or(scenario);
    let sc = SCENARIOS.iter().find(|s| s.name == base).ok_or_else(|| format!("no scenario {base:?}"))?;
    let m = map_file(&sc.map)?;
    let t = terrain_file()?;
    let crt = crt_file()?;
    crt.table.check::<super::combat::Result>()?;
    let mut s = State {
        grid: Grid { columns: m.columns, rows: m.rows, offset: m.offset },
        hexes: hexes_of(&m, &t.terrain)?,
        hexsides: m.hexsides.clone(),
        roads: m.roads.clone(),
        terrain: t.terrain.clone(),
        numbers: Numbers {
            turns: t.turns,
            duke_radius: t.duke_radius,
            duke_factor: t.duke_factor,
            road_cost: t.road_cost,
        },
        crt: crt.table,
        units: counters(&counters_file()?)?,
        phase: Phase::Garrison,
        turn: 1,
        active: ORF.into(),
        queue: Vec::new(),
        more: false,
        fights: 0,
        fight: None,
        outcome: None,
    };
    match sc.start.as_str() {
        "garrison" if SIDES.iter().all(|side| garrison_hexes(&s, side).is_empty()) => {
            let mut ev = Vec::new();
            garrison(&mut s, &BTreeMap::new(), &mut ev);
        }
        "garrison" => {}
        "deployed" => {
            let mut ev = Vec::new();
            let both: BTreeMap<String, Vec<Order>> =
                SIDES.iter().map(|side| (side.to_string(), defaults(&s, side))).collect();
            garrison(&mut s, &both, &mut ev);
            while s.phase == Phase::Placement {
                let side = s.active.clone();
                let orders = defaults(&s, &side);
                placement(&mut s, &orders, &mut ev);
            }
        }
        "move" => {
            for (side, hex) in SIDES.iter().zip(&sc.dukes) {
                let d = s.units.iter_mut().find(|u| u.side == *side && u.duke()).expect("a duke a side");
                d.hex = hex.clone();
            }
            s.phase = Phase::Move;
        }
        x => return Err(format!("scenario {base}: unknown start {x:?}")),
    }
    Ok(s)
}

/// The hexes inside a side's borders (its set-up territory).
fn own_hexes<'a>(s: &'a State, side: &'a str) -> impl Iterator<Item = Hex> + 'a {
    s.hexes.iter().filter(move |h| h.owner == side).filter_map(|h| Hex::parse(&h.name))
}

/// The cities and fortresses a side garrisons at set-up (R11).
pub fn garrison_hexes(s: &State, side: &str) -> Vec<Hex> {
    let map = Map::new(s);
    own_hexes(s, side).filter(|&h| map.is_stronghold(h)).collect()
}

fn label(s: &State, hex: &str) -> String {
    Hex::parse(hex).map(|h| Map::new(s).label(h)).unwrap_or_else(|| hex.to_string())
}

/// Both garrisons go on the map together (A27).
pub fn garrison(s: &mut State, orders: &BTreeMap<String, Vec<Order>>, ev: &mut Vec<Event>) {
    for side in SIDES {
        let mut placed = Vec::new();
        for o in orders.get(side).map(Vec::as_slice).unwrap_or(&[]) {
            if let Order::Place { counter, hex } = o {
                let name = format!("{} {counter}", super::prefix(side));
                s.unit_mut(&name).hex = hex.to_string();
                placed.push(format!("{counter} at {}", label(s, hex)));
            }
        }
        if !placed.is_empty() {
            ev.push(Event::all(format!("{} garrisons: {}.", side_name(side), placed.join(", "))));
        }
    }
    s.phase = Phase::Placement;
    s.active = ORF.into();
    next_placer(s, ev);
}

/// One side places pieces; then the other, until every counter is on the
/// map (R12, A27).
pub fn placement(s: &mut State, orders: &[Order], ev: &mut Vec<Event>) {
    let side = s.active.clone();
    let mut placed = Vec::new();
    for o in orders {
        if let Order::Place { counter, hex } = o {
            let name = format!("{} {counter}", super::prefix(&side));
            s.unit_mut(&name).hex = hex.to_string();
            placed.push(format!("{counter} at {}", label(s, hex)));
        }
    }
    if !placed.is_empty() {
        ev.push(Event::all(format!("{} places {}.", side_name(&side), placed.join(", "))));
    }
    s.active = other(&side).into();
    next_placer(s, ev);
}

fn unplaced(s: &State, side: &str) -> usize {
    s.units.iter().filter(|u| u.side == side && !u.eliminated && u.hex.is_empty()).count()
}

/// Whose turn it is to place, or turn 1 once all are placed.
fn next_placer(s: &mut State, ev: &mut Vec<Event>) {
    if unplaced(s, &s.active.clone()) == 0 {
        s.active = other(&s.active.clone()).into();
    }
    if unplaced(s, &s.active.clone()) == 0 {
        s.phase = Phase::Move;
        s.active = ORF.into();
        s.turn = 1;
        ev.push(Event::all("Every counter is placed. Turn 1: Orfburg's phase (Orfburg always begins)."));
        return;
    }
    if placement_room(s, &s.active.clone()).is_empty() && duke_room(s, &s.active.clone()).is_empty() {
        // No hex left inside its borders: what is left of it stays off the
        // map (the rules never meet this on a real map; it keeps a patched
        // one from stalling).
        let side = s.active.clone();
        for u in s.units.iter_mut().filter(|u| u.side == side && u.hex.is_empty()) {
            u.eliminated = true;
        }
        ev.push(Event::all(format!("{} has no room left inside its borders.", side_name(&side))));
        if super::sudden_death(s, ev) {
            return;
        }
        next_placer(s, ev);
    }
}

/// Cities and fortresses of its own where a side's unplaced duke may join
/// a lone unit (R40).
pub fn duke_room(s: &State, side: &str) -> Vec<Hex> {
    let Some(duke) = s.duke_of(side).filter(|d| !d.eliminated && d.hex.is_empty()) else { return Vec::new() };
    let pos = super::movement::Position::new(s);
    own_hexes(s, side)
        .filter(|&h| {
            let there: Vec<String> = pos.occupants(h).iter().map(|u| u.name.clone()).collect();
            !there.is_empty() && super::movement::stacking_problem(s, &pos.map, h, duke, &there).is_none()
        })
        .collect()
}

/// Hexes a side may still place a unit on: inside its borders, passable,
/// empty (R12, R39).
pub fn placement_room(s: &State, side: &str) -> Vec<Hex> {
    let pos = super::movement::Position::new(s);
    own_hexes(s, side).filter(|&h| pos.map.passable(h) && pos.occupants(h).is_empty()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::shared::hex::Side;

    #[test]
    fn the_printed_cells_of_the_results_table_are_kept() {
        let crt = crt_file().unwrap();
        assert_eq!(crt.printed["1"], ["AR", "AR", "DR", "DR", "DR", "DR", "DR", "DE", "DE", "DE"]);
        assert_eq!(crt.printed["2"], ["AE", "AR", "AR", "DR", "DR", "DR", "DR", "DR", "DE"]);
        for (row, cells) in &crt.printed {
            assert_eq!(&crt.table.rows[row][..cells.len()], &cells[..], "row {row} keeps its printed cells");
        }
        crt.table.check::<crate::rules::ducs::combat::Result>().unwrap();
        assert_eq!(crt.table.rows.len(), 6);
    }

    #[test]
    fn maps_have_their_places_and_roads_join_passable_neighbours() {
        let t = terrain_file().unwrap();
        for name in ["map", "map-proving"] {
            let m = map_file(name).unwrap();
            let hexes = hexes_of(&m, &t.terrain).unwrap();
            let grid = Grid { columns: m.columns, rows: m.rows, offset: m.offset };
            for side in SIDES {
                assert_eq!(hexes.iter().filter(|h| h.capital == side).count(), 1, "{name}: {side}'s capital");
            }
            assert_eq!(hexes.iter().filter(|h| h.objective).count(), 1, "{name}: Kaiserburg");
            assert!(hexes.iter().any(|h| h.zone), "{name}: the zone");
            for r in &m.roads {
                let hs: Vec<Hex> = r.hexes.iter().map(|h| Hex::parse(h).unwrap()).collect();
                for w in hs.windows(2) {
                    assert_eq!(grid.distance(w[0], w[1]), 1, "{name}: road {} from {} to {}", r.name, w[0], w[1]);
                    let tn = &hexes.iter().find(|h| h.name == w[1].to_string()).unwrap().terrain;
                    assert!(t.terrain.iter().find(|x| &x.name == tn).unwrap().passable, "{} {}", r.name, w[1]);
                }
            }
            for x in &m.hexsides {
                assert!(Side::parse(&x.name).is_some(), "{}", x.name);
            }
            // Each side garrisons at most 30 cities and fortresses.
            let strongholds = |side: &str| {
                hexes
                    .iter()
                    .filter(|h| h.owner == side && t.terrain.iter().any(|x| x.name == h.terrain && x.defence > 1))
                    .count()
            };
            for side in SIDES {
                assert!(strongholds(side) <= 30, "{name}: {side}");
            }
        }
        let m = map_file("map").unwrap();
        let hexes = hexes_of(&m, &t.terrain).unwrap();
        let kaiser = hexes.iter().find(|h| h.objective).unwrap();
        assert_eq!((kaiser.place.as_str(), kaiser.name.as_str()), ("Kaiserburg", "1507"));
    }

    #[test]
    fn counters_are_thirty_one_a_side() {
        let units = counters(&counters_file().unwrap()).unwrap();
        for side in SIDES {
            let mine: Vec<&Unit> = units.iter().filter(|u| u.side == side).collect();
            assert_eq!(mine.len(), 31);
            assert_eq!(mine.iter().filter(|u| u.duke()).count(), 1);
            for kind in ["infantry", "cavalry", "artillery"] {
                assert_eq!(mine.iter().filter(|u| u.kind == kind).count(), 10);
            }
            assert!(mine.iter().filter(|u| u.kind == "artillery").all(|u| u.range == 2));
        }
        assert!(units.iter().any(|u| u.name == "ORF I10") && units.iter().any(|u| u.name == "WULF Duke"));
    }

    #[test]
    fn a_side_without_cities_or_fortresses_is_not_awaited_for_garrisons() {
        let mut s = setup("standard", super::super::random::defaults).unwrap();
        for h in s.hexes.iter_mut().filter(|h| h.owner == ORF && (h.terrain == "city" || h.terrain == "fortress")) {
            h.terrain = "plain".into();
        }
        assert_eq!(s.awaited_roles(), vec![WULF.to_string()]);
    }

    #[test]
    fn every_scenario_sets_up() {
        for sc in SCENARIOS.iter() {
            let s = setup(&sc.name, super::super::random::defaults).unwrap();
            assert!(s.units.len() == 62, "{}", sc.name);
        }
        let s = setup("deployed", super::super::random::defaults).unwrap();
        assert_eq!(s.phase, Phase::Move);
        assert!(s.units.iter().all(|u| u.on_map()), "every counter is placed");
    }
}
