//! The data files of `games/braccio/` (tables, terrain chart, map,
//! scenario) read, checked, and copied into a new game's state.

use super::*;
use std::sync::LazyLock;

const TABLES: &str = include_str!("../../../games/braccio/tables.toml");
const TERRAIN: &str = include_str!("../../../games/braccio/terrain.toml");
const MAP_SANT_EGIDIO: &str = include_str!("../../../games/braccio/map-sant-egidio.toml");
const SANT_EGIDIO: &str = include_str!("../../../games/braccio/scenario-sant-egidio.toml");
const MAP_LAQUILA: &str = include_str!("../../../games/braccio/map-laquila.toml");
const LAQUILA: &str = include_str!("../../../games/braccio/scenario-laquila.toml");

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cat {
    #[serde(default, skip_serializing)]
    pub provenance: String,
    pub min: i32,
    pub max: i32,
    /// A Continuum or Interruptio roll: 2d6 at or under the CC, a 12
    /// always failing (4.1, 4.2, 4.4.1).
    pub roll: crate::rules::shared::table::Threshold,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Movement {
    #[serde(default, skip_serializing)]
    pub provenance: String,
    pub captain: i32,
    pub cavalry: i32,
    pub foot: i32,
    /// A standard moved by order (16.2.3).
    #[serde(default = "five")]
    pub standard: i32,
}

fn five() -> i32 {
    5
}

/// A standard of the option `standards` (16.2): the unit it starts with.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct StandardFile {
    battle: String,
    unit: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Melee {
    #[serde(default, skip_serializing)]
    pub provenance: String,
    pub column_min: i32,
    pub column_max: i32,
    pub drm_max: i32,
    pub roll_min: i32,
    pub roll_max: i32,
    pub flank: i32,
    pub rear: i32,
    pub extra_attacker: i32,
    pub carica: i32,
    pub disorganized: i32,
    pub adjacent_unattacked: i32,
    pub higher_ground: i32,
    pub cells: Vec<Vec<String>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Fire {
    #[serde(default, skip_serializing)]
    pub provenance: String,
    pub range: i32,
    pub need: BTreeMap<String, Vec<i32>>,
    pub arc: String,
    pub pivot: i32,
    pub reaction_pivot: i32,
    pub firer_disorganized: i32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShiftTable {
    #[serde(default, skip_serializing)]
    pub provenance: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub types: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub classes: Vec<String>,
    pub shift: Vec<Vec<i32>>,
}

impl ShiftTable {
    /// The shift for row `a` against column `d`, by their names.
    pub fn get(&self, a: &str, d: &str) -> i32 {
        let keys = if self.types.is_empty() { &self.classes } else { &self.types };
        let i = keys.iter().position(|k| k == a);
        let j = keys.iter().position(|k| k == d);
        match (i, j) {
            (Some(i), Some(j)) => self.shift.get(i).and_then(|r| r.get(j)).copied().unwrap_or(0),
            _ => 0,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Wounds {
    #[serde(default, skip_serializing)]
    pub provenance: String,
    pub threshold: i32,
    pub faces: Vec<String>,
    pub wounded_cc: i32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Victory {
    #[serde(default, skip_serializing)]
    pub provenance: String,
    pub cavalry_per_ch: i32,
    pub cavalry_rout: i32,
    pub foot_rout: i32,
    pub squad_leader: i32,
    pub vl_win: i32,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct TablesFile {
    #[allow(dead_code)]
    provenance: String,
    #[allow(dead_code)]
    note: String,
    cat: Cat,
    movement: Movement,
    melee: Melee,
    fire: Fire,
    unit_type: ShiftTable,
    armour: ShiftTable,
    wounds: Wounds,
    victory: Victory,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct TerrainFile {
    #[allow(dead_code)]
    provenance: String,
    #[allow(dead_code)]
    note: String,
    terrain: Vec<Terrain>,
    #[serde(default)]
    hexside: Vec<HexsideKind>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct MapFile {
    #[allow(dead_code)]
    provenance: String,
    #[allow(dead_code)]
    note: String,
    columns: i32,
    rows: i32,
    #[serde(default)]
    offset: Offset,
    terrain: Vec<String>,
    level: Vec<String>,
    #[serde(default)]
    place: Vec<Place>,
    #[serde(default)]
    line: Vec<MapLine>,
    #[serde(default)]
    hexside: Vec<MapHexside>,
}

/// A Heat box's event (S2.7.2, reconstructed: A22).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HeatEvent {
    #[serde(rename = "box")]
    pub at: usize,
    pub number: i32,
    /// `cc-minus`, `ma-minus` or `release`.
    pub kind: String,
    pub side: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub armour: String,
    #[serde(default)]
    pub amount: i32,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct HeatFile {
    #[allow(dead_code)]
    #[serde(default)]
    provenance: String,
    boxes: Vec<i32>,
    #[serde(default)]
    event: Vec<HeatEvent>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct LeaderFile {
    name: String,
    #[serde(default)]
    cc: i32,
    combat: i32,
    radius: i32,
    hex: String,
    #[serde(default)]
    adjutant: Option<Deputy>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct UnitFile {
    name: String,
    kind: Kind,
    armour: String,
    cr: i32,
    hex: String,
    facing: Vertex,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct SquadFile {
    letter: String,
    leader: LeaderFile,
    unit: Vec<UnitFile>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct BattleFile {
    name: String,
    code: String,
    side: String,
    #[serde(default)]
    militia: bool,
    start: String,
    #[serde(default)]
    double_general: Vec<String>,
    #[serde(default)]
    rally: String,
    /// S1.1: the set-up table's row, or hex to place within.
    #[serde(default)]
    row: Option<RowFile>,
    captain: LeaderFile,
    #[serde(default)]
    squad: Vec<SquadFile>,
    #[serde(default)]
    unit: Vec<UnitFile>,
}

/// A Battle's set-up row (S1.1): its hexes, or the hexes within `within`
/// of `around`.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
enum RowFile {
    Hexes(Vec<String>),
    Around { around: String, within: i32 },
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct CarloFile {
    battle: String,
    captain: LeaderFile,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct PerugiaFile {
    lines: Vec<String>,
    vl_cost: i32,
    enemy_vl_min: i32,
    battle: BattleFile,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct FirstFile {
    role: String,
    battle: String,
    /// Carica! orders the first activation must give (S4.2).
    #[serde(default)]
    caricas: i32,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScenarioFile {
    #[allow(dead_code)]
    provenance: String,
    #[allow(dead_code)]
    note: String,
    name: String,
    #[allow(dead_code)]
    title: String,
    map: String,
    roles: Vec<String>,
    first: FirstFile,
    #[serde(default)]
    school: Vec<String>,
    #[serde(default)]
    no_continuum: Vec<String>,
    #[serde(default)]
    automatic_defeat: Vec<String>,
    vp_per_vl: BTreeMap<String, BTreeMap<String, i32>>,
    #[serde(default)]
    heat: Option<HeatFile>,
    battle: Vec<BattleFile>,
    #[serde(default)]
    carlo: Option<CarloFile>,
    #[serde(default)]
    perugia: Option<PerugiaFile>,
    /// Battles that enter later, or begin inactive (S4.6).
    #[serde(default)]
    entry: Vec<Entry>,
    /// Are the rally points standards the enemy takes (S2.5)?
    #[serde(default = "yes")]
    rally_standards: bool,
    /// The free set-up's zones (S5.1.2).
    #[serde(default)]
    zones: Option<Zones>,
    /// The standards of the option `standards` (16.2).
    #[serde(default)]
    standard: Vec<StandardFile>,
}

static SCENARIOS: LazyLock<Vec<(&'static str, &'static str)>> =
    LazyLock::new(|| vec![("sant-egidio", SANT_EGIDIO), ("laquila", LAQUILA)]);

fn read<T: serde::de::DeserializeOwned>(what: &str, text: &str) -> Result<T, String> {
    toml::from_str(text).map_err(|e| format!("games/braccio/{what}: {e}"))
}

fn map_file(name: &str) -> Result<MapData, String> {
    let text = match name {
        "sant-egidio" => MAP_SANT_EGIDIO,
        "laquila" => MAP_LAQUILA,
        _ => return Err(format!("no map {name:?} in games/braccio")),
    };
    let m: MapFile = read(&format!("map-{name}.toml"), text)?;
    for (what, rows) in [("terrain", &m.terrain), ("level", &m.level)] {
        if rows.len() != m.rows as usize || rows.iter().any(|r| r.chars().count() != m.columns as usize) {
            return Err(format!(
                "games/braccio/map-{name}.toml: the {what} picture is not {} rows of {}",
                m.rows, m.columns
            ));
        }
    }
    Ok(MapData {
        name: name.into(),
        columns: m.columns,
        rows: m.rows,
        offset: m.offset,
        terrain: m.terrain,
        level: m.level,
        place: m.place,
        line: m.line,
        hexside: m.hexside,
    })
}

fn leader(l: &LeaderFile) -> Leader {
    Leader {
        name: l.name.clone(),
        combat: l.combat,
        radius: l.radius,
        hex: l.hex.clone(),
        adjutant: l.adjutant.clone(),
        moved: false,
    }
}

/// A new game of `scenario` (`sant-egidio`, `sant-egidio+short`).
pub fn setup(scenario: &str) -> Result<State, String> {
    let mut parts = scenario.split('+');
    let base = parts.next().unwrap_or(scenario);
    let options: Vec<String> = parts.map(String::from).collect();
    // Only the options the scenario offers: L'Aquila's free set-up (S5)
    // and its standards (16.2) are not built.
    let info = <Braccio as Rules>::info(&Braccio);
    if let Some(sc) = info.scenarios.iter().find(|x| x.name == base) {
        if let Some(o) = options.iter().find(|o| !sc.variants.contains(o)) {
            return Err(format!("scenario {base} has no option {o:?}; it has: {}", sc.variants.join(", ")));
        }
    }
    let text =
        SCENARIOS.iter().find(|(n, _)| *n == base).map(|x| x.1).ok_or_else(|| format!("no scenario {base:?}"))?;
    let mut sc: ScenarioFile = read(&format!("scenario-{base}.toml"), text)?;
    if sc.name != base {
        return Err(format!("games/braccio/scenario-{base}.toml calls itself {:?}", sc.name));
    }
    let t: TablesFile = read("tables.toml", TABLES)?;
    let terrain: TerrainFile = read("terrain.toml", TERRAIN)?;
    let map = map_file(&sc.map)?;
    let (rows, cols) = (t.melee.roll_max - t.melee.roll_min + 1, t.melee.column_max - t.melee.column_min + 1);
    if rows < 1
        || cols < 1
        || t.melee.cells.len() != rows as usize
        || t.melee.cells.iter().any(|r| r.len() != cols as usize)
    {
        return Err(format!(
            "games/braccio/tables.toml: the melee table needs {rows} rows (rolls {} to {}) of {cols} cells (columns {} to {})",
            t.melee.roll_min, t.melee.roll_max, t.melee.column_min, t.melee.column_max
        ));
    }
    for row in &t.melee.cells {
        for c in row {
            super::melee::cell(c).map_err(|e| format!("games/braccio/tables.toml: melee cell {c:?}: {e}"))?;
        }
    }
    let length = if options.iter().any(|o| o == "free") {
        "free"
    } else if options.iter().any(|o| o == "short") {
        "short"
    } else {
        "long"
    };
    let vp_per_vl =
        sc.vp_per_vl.get(length).cloned().ok_or_else(|| format!("scenario {base}: no vp_per_vl.{length}"))?;
    let has = |o: &str| options.iter().any(|x| x == o);
    let mut entries = sc.entry.clone();
    for e in &entries {
        if !sc.battle.iter().any(|b| b.name == e.battle)
            || (!e.after.is_empty() && !sc.battle.iter().any(|b| b.name == e.after))
        {
            return Err(format!(
                "scenario {base}: an entry names a Battle it lacks ({} after {:?})",
                e.battle, e.after
            ));
        }
    }
    let mut automatic_defeat = sc.automatic_defeat.clone();
    // S2.10.1: Carlo leads Galeazzo's Battle; Galeazzo then leads the
    // Perugia militia (S2.10.2).
    let mut displaced = None;
    if has("carlo") {
        let c = sc.carlo.clone().ok_or_else(|| format!("scenario {base} has no Carlo (S2.10.1)"))?;
        let b = sc.battle.iter_mut().find(|b| b.name == c.battle).ok_or("Carlo's Battle is missing")?;
        let mut captain = c.captain.clone();
        captain.hex = b.captain.hex.clone();
        displaced = Some(std::mem::replace(&mut b.captain, captain));
        b.name = c.captain.name.clone();
        automatic_defeat.push(c.captain.name.clone());
    }
    if has("perugia") {
        let p = sc.perugia.clone().ok_or_else(|| format!("scenario {base} has no Perugia militia (S2.10.2)"))?;
        let mut b = p.battle.clone();
        if let Some(g) = displaced {
            b.captain = LeaderFile { hex: String::new(), ..g };
        }
        entries.push(Entry {
            battle: b.name.clone(),
            enemy_vl_min: p.enemy_vl_min,
            vl_cost: p.vl_cost,
            lines: p.lines.clone(),
            hexes: Vec::new(),
            own_vl_min: 0,
            after: String::new(),
            target: 0,
            per_two_enemy_vl: 0,
        });
        sc.battle.push(b);
    }
    let mut battles = Vec::new();
    let mut units = Vec::new();
    for b in &sc.battle {
        let off_map = b.start == "off-map";
        let mut unit = |u: &UnitFile, squad: &str, n: usize| -> Result<(), String> {
            if Hex::parse(&u.hex).is_none() && !off_map {
                return Err(format!("scenario {base}: {} stands on {:?}, not a hex", u.name, u.hex));
            }
            units.push(Unit {
                name: u.name.clone(),
                code: format!("{}{}{}", b.code, squad, n),
                side: b.side.clone(),
                battle: b.name.clone(),
                squad: squad.to_string(),
                kind: u.kind,
                armour: u.armour.clone(),
                militia: b.militia,
                cr: u.cr,
                ch: 0,
                disorganized: false,
                hex: u.hex.clone(),
                facing: u.facing,
                fired: false,
                ordered: false,
                countered: false,
                pivoted: false,
            });
            Ok(())
        };
        for (i, u) in b.unit.iter().enumerate() {
            unit(u, "", i + 1)?;
        }
        for q in &b.squad {
            for (i, u) in q.unit.iter().enumerate() {
                unit(u, &q.letter, i + 1)?;
            }
        }
        battles.push(Battle {
            name: b.name.clone(),
            code: b.code.clone(),
            side: b.side.clone(),
            militia: b.militia,
            released: b.start == "active",
            off_map,
            removed: false,
            school: sc.school.contains(&b.name),
            double_general: b.double_general.clone(),
            rally: b.rally.clone(),
            row: Vec::new(),
            cc: b.captain.cc,
            cc0: b.captain.cc,
            captain: leader(&b.captain),
            adjutant: false,
            squads: b.squad.iter().map(|q| Squad { letter: q.letter.clone(), leader: leader(&q.leader) }).collect(),
        });
    }
    let roles = sc.roles.clone();
    let foe = match roles.as_slice() {
        [b, f] if b == BRACCIO && (f == MALATESTA || f == LEAGUE) => f.clone(),
        _ => return Err(format!("scenario {base}: roles must be braccio and malatesta or league, not {roles:?}")),
    };
    let zero: BTreeMap<String, i32> = roles.iter().map(|r| (r.clone(), 0)).collect();
    let mut s = State {
        scenario: base.into(),
        options,
        map,
        terrain: terrain.terrain,
        hexsides: terrain.hexside,
        tables: Tables {
            cat: t.cat,
            movement: t.movement,
            melee: t.melee,
            fire: t.fire,
            unit_type: t.unit_type,
            armour: t.armour,
            wounds: t.wounds,
            victory: t.victory,
        },
        battles,
        units,
        vp: zero.clone(),
        vl: zero,
        vp_per_vl,
        heat: sc.heat.map(|h| Heat { at: 1, boxes: h.boxes, event: h.event }),
        entries,
        no_continuum: sc.no_continuum,
        automatic_defeat,
        first: sc.first.battle.clone(),
        confusion: String::new(),
        pending: Pending::Activation { role: sc.first.role.clone() },
        marker: String::new(),
        marker_count: 0,
        last: String::new(),
        op: 0,
        policies: roles.iter().map(|r| (r.clone(), Policy::default())).collect(),
        plans: Vec::new(),
        next: BTreeMap::new(),
        marks: Vec::new(),
        activations: 0,
        act: None,
        home: BTreeMap::new(),
        captured: Vec::new(),
        outcome: None,
        foe,
        first_caricas: sc.first.caricas,
        rally_standards: sc.rally_standards,
        zones: sc.zones.clone(),
        zone_rows: Vec::new(),
        standards: Vec::new(),
    };
    if s.option("standards") {
        for f in &sc.standard {
            let u = s.unit(&f.unit).filter(|u| u.battle == f.battle).ok_or_else(|| {
                format!(
                    "scenario {base}: the standard of {} starts with {}, not a unit of that Battle",
                    f.battle, f.unit
                )
            })?;
            let side = u.side.clone();
            s.standards.push(Standard { battle: f.battle.clone(), side, carrier: f.unit.clone(), captured: false });
        }
    }
    for (i, f) in sc.battle.iter().enumerate() {
        if let Some(r) = &f.row {
            s.battles[i].row = row_hexes(&s, r).map_err(|e| format!("scenario {base}: {}'s row {e}", f.name))?;
        }
    }
    check(&s)?;
    if s.option("free") {
        super::free::begin(&mut s);
    } else {
        super::rows::begin(&mut s);
    }
    Ok(s)
}

/// A set-up row's hexes (S1.1): as listed, or those within its distance
/// of its hex that a unit may stand on.
fn row_hexes(s: &State, r: &RowFile) -> Result<Vec<String>, String> {
    match r {
        RowFile::Hexes(v) => Ok(v.clone()),
        RowFile::Around { around, within } => {
            let at = Hex::parse(around).ok_or_else(|| format!("is around {around:?}, not a hex"))?;
            let g = s.grid();
            Ok(g.hexes().filter(|h| g.distance(at, *h) <= *within && s.passable(*h)).map(|h| h.to_string()).collect())
        }
    }
}

/// What a scenario file must hold for the rules to run: every piece on a
/// passable hex of the map, one unit a hex, names unique.
fn check(s: &State) -> Result<(), String> {
    let mut seen = std::collections::BTreeSet::new();
    for u in s.units.iter().filter(|u| !s.battle(&u.battle).map(|b| b.off_map).unwrap_or(false)) {
        let h = u.at().ok_or_else(|| format!("{} has no hex", u.name))?;
        if !s.passable(h) {
            return Err(format!("{} stands on {h}, which is not passable", u.name));
        }
        if !seen.insert(h) {
            return Err(format!("two units stand on {h}"));
        }
    }
    // S1.1: a row is passable hexes, enough for its Battle's units, the
    // units' own hexes (where they stand if the player says nothing) in it.
    for b in s.battles.iter().filter(|b| !b.row.is_empty() && !b.off_map) {
        if let Some(h) = b.row.iter().find(|h| !Hex::parse(h).is_some_and(|h| s.passable(h))) {
            return Err(format!("{}'s set-up row holds {h:?}, not a passable hex", b.name));
        }
        if let Some(h) = b.row.iter().enumerate().find(|(i, h)| b.row[..*i].contains(h)).map(|x| x.1) {
            return Err(format!("{}'s set-up row lists {h} twice", b.name));
        }
        let mine: Vec<&Unit> = s.units.iter().filter(|u| u.battle == b.name).collect();
        if mine.len() > b.row.len() {
            return Err(format!("{}'s set-up row has {} hexes for {} units", b.name, b.row.len(), mine.len()));
        }
        if let Some(u) = mine.iter().find(|u| !b.row.contains(&u.hex)) {
            return Err(format!("{} stands on {}, outside {}'s set-up row", u.name, u.hex, b.name));
        }
        // The two sides choose at once: their rows must never meet.
        if let Some(u) = s.units.iter().find(|u| u.side != b.side && b.row.contains(&u.hex)) {
            return Err(format!("{}'s set-up row holds {}, an enemy unit, on {}", b.name, u.name, u.hex));
        }
        // A unit may not stack with an enemy Captain (13.1.1).
        let enemy_leaders = s
            .battles
            .iter()
            .filter(|o| o.side != b.side)
            .flat_map(|o| std::iter::once(&o.captain).chain(o.squads.iter().map(|q| &q.leader)));
        if let Some(l) = enemy_leaders.into_iter().find(|l| b.row.contains(&l.hex)) {
            return Err(format!("{}'s set-up row holds {}, an enemy leader, on {}", b.name, l.name, l.hex));
        }
        if let Some(o) = s.battles.iter().find(|o| o.side != b.side && o.row.iter().any(|h| b.row.contains(h))) {
            return Err(format!("the set-up rows of {} and {}, enemies, share a hex", b.name, o.name));
        }
    }
    let mut names = std::collections::BTreeSet::new();
    for n in s.units.iter().map(|u| &u.name).chain(s.battles.iter().map(|b| &b.captain.name)) {
        if !names.insert(n) {
            return Err(format!("the name {n} is used twice"));
        }
    }
    for g in s.map.terrain.iter().flat_map(|r| r.chars()) {
        if !s.terrain.iter().any(|t| t.glyph.starts_with(g)) {
            return Err(format!("the map uses terrain {g:?}, which terrain.toml lacks"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// S1.1: a row (listed, or around a hex) is checked against the
    /// Battle's units and the enemy, and a side with a row of more hexes
    /// than units is asked before the opening (a row of as many is the
    /// table's placement).
    #[test]
    fn set_up_rows_are_checked_and_open_the_game() {
        let mut s = setup("sant-egidio").unwrap();
        assert_eq!(s.pending, Pending::Activation { role: BRACCIO.into() });
        let around: RowFile = toml::from_str::<BattleRow>("row = { around = \"2412\", within = 1 }").unwrap().row;
        let listed: RowFile = toml::from_str::<BattleRow>("row = [\"2411\", \"2412\"]").unwrap().row;
        let ceccolino = s.battles.iter().position(|b| b.name == "Ceccolino").unwrap();
        let hexes = row_hexes(&s, &around).unwrap();
        assert_eq!(hexes.len(), 7, "{hexes:?}");
        assert!(
            ["2411", "2412", "2413"].iter().all(|h| hexes.contains(&h.to_string()))
                && !hexes.contains(&"2211".to_string())
        );
        // Six units, two hexes: refused.
        s.battles[ceccolino].row = row_hexes(&s, &listed).unwrap();
        assert!(check(&s).unwrap_err().contains("2 hexes for 6 units"), "{:?}", check(&s));
        // Seven hexes, but Ceccolino-3 (2211) and -4, -5 stand outside.
        s.battles[ceccolino].row = hexes;
        assert!(check(&s).unwrap_err().contains("outside Ceccolino's set-up row"), "{:?}", check(&s));
        s.battles[ceccolino].row = s.units.iter().filter(|u| u.battle == "Ceccolino").map(|u| u.hex.clone()).collect();
        check(&s).unwrap();
        super::super::rows::begin(&mut s);
        assert_eq!(s.pending, Pending::Activation { role: BRACCIO.into() }, "six hexes for six units: no choice");
        s.battles[ceccolino].row.push("2412".into());
        assert!(check(&s).unwrap_err().contains("lists 2412 twice"), "{:?}", check(&s));
        s.battles[ceccolino].row.pop();
        s.battles[ceccolino].row.push("1410".into());
        assert!(check(&s).unwrap_err().contains("holds Baglioni, an enemy leader, on 1410"), "{:?}", check(&s));
        s.battles[ceccolino].row.pop();
        s.battles[ceccolino].row.push("2611".into());
        check(&s).unwrap();
        // The enemies choose at once: their rows never meet.
        let baglioni = s.battles.iter().position(|b| b.name == "Baglioni").unwrap();
        s.battles[baglioni].row = vec!["1509".into(), "1510".into(), "1511".into(), "2611".into()];
        s.battles[baglioni].row.extend(["1309", "1310", "1311"].map(String::from));
        assert!(check(&s).unwrap_err().contains("enemies, share a hex"), "{:?}", check(&s));
        s.battles[baglioni].row.push("2412".into());
        s.battles[baglioni].row.retain(|h| h != "2611");
        assert!(check(&s).unwrap_err().contains("holds Ceccolino-2, an enemy unit"), "{:?}", check(&s));
        s.battles[baglioni].row.clear();
        super::super::rows::begin(&mut s);
        assert_eq!(s.pending, Pending::Rows { roles: vec![MALATESTA.into()] });
        // What the player is told: the rows, and that PASS keeps them.
        let p = super::super::view::prompt(&s, MALATESTA);
        assert!(p.text.contains("Rows: Ceccolino: 2411 2412 2211 2212 2213 2413 2611 (6 units)."), "{}", p.text);
        assert!(p.text.contains("PASS keeps the printed set-up") && p.syntax.iter().any(|l| l.contains("| PASS")));
        assert!(!super::super::view::prompt(&s, BRACCIO).text.contains("Rows:"));
    }

    #[derive(Deserialize)]
    struct BattleRow {
        row: RowFile,
    }

    #[test]
    fn laquila_reads_and_keeps_the_printed_facts() {
        let s = setup("laquila").unwrap();
        assert_eq!(s.roles(), [BRACCIO, LEAGUE]);
        // S4.2: Colonna opens, with three Carica! orders.
        assert_eq!((s.first.as_str(), s.first_caricas), ("Colonna", 3));
        assert_eq!(s.pending, Pending::Activation { role: LEAGUE.into() });
        // S4.3: the double General Orders.
        let dg = |b: &str| s.battle(b).unwrap().double_general.clone();
        assert_eq!(dg("Sforza"), ["charge", "move"]);
        assert_eq!(dg("Camponeschi"), ["fire", "move"]);
        // S4.4, S4.5: the School rallies at Bazzano, 0717-0718, a village.
        for b in ["Braccio", "Gattamelata", "Baglioni"] {
            assert!(s.battle(b).unwrap().school);
            assert_eq!(s.battle(b).unwrap().rally, "0717");
        }
        assert!(!s.rally_standards);
        let bazzano = s.map.place.iter().find(|p| p.name == "Bazzano").unwrap();
        assert_eq!(bazzano.hexes, ["0717", "0718"]);
        assert!(bazzano.hexes.iter().all(|h| s.map.glyph(Hex::parse(h).unwrap()) == 'v'));
        // S4.6: Testa inactive, Piccinino and Camponeschi off the map.
        assert!(!s.battle("Testa").unwrap().released && !s.battle("Testa").unwrap().off_map);
        assert!(s.battle("Piccinino").unwrap().off_map && s.battle("Camponeschi").unwrap().off_map);
        // S4.6.1's example: League VL 5, success on 10 or more (A06).
        let testa = s.entries.iter().find(|e| e.battle == "Testa").unwrap();
        assert_eq!((testa.own_vl_min, testa.need(5), testa.need(0), testa.need(6)), (7, 10, 7, 10));
        // S4.8: Braccio's elimination is an automatic defeat.
        assert_eq!(s.automatic_defeat, ["Braccio"]);
        // The escarpment (S4.7.4) is on the map.
        assert!(!s.map.hexside.is_empty() && s.map.hexside.iter().all(|h| h.kind == "escarpment"));
        assert!(setup("laquila+carlo").unwrap_err().contains("no option"));
        // S5.1.2: the zones of the free set-up.
        let f = setup("laquila+free").unwrap();
        let z = |h: &str| super::super::free::zone(&f, Hex::parse(h).unwrap());
        assert_eq!((z("0622"), z("2911"), z("0101"), z("3226")), ('s', 'n', 'w', 's'));
        assert_eq!((z("0621"), z("3210")), ('w', 'n'));
        // Testa keeps his historical hexes; Bazzano stays the rally point.
        assert_eq!(f.battle("Testa").unwrap().captain.hex, "1603");
        assert_eq!(f.battle("Braccio").unwrap().rally, "0717");
        assert_eq!(f.pending, Pending::Setup { role: LEAGUE.into(), what: "captain".into() });
        // What the players are told of these rules: the opening's Carica!
        // orders, the zones, where the standards stand.
        let p = super::super::view::prompt(&s, LEAGUE);
        assert!(p.text.contains("at least 3 Carica! orders (S4.2)"), "{}", p.text);
        let p = super::super::view::prompt(&f, LEAGUE);
        assert!(p.text.contains("On or east of the line 0622-2911") && p.text.contains("(S5.1)"), "{}", p.text);
        let st = setup("laquila+standards").unwrap();
        let v = super::super::view::view(&st, &crate::engine::Viewer::Role(BRACCIO.into()));
        assert!(v.lines.iter().any(|l| l == "Braccio's standard: with Braccio-A1 in 1214 (16.2)."), "{:?}", v.lines);
        assert!(setup("laquila+short").is_ok());
    }

    #[test]
    fn sant_egidio_reads_and_keeps_the_printed_facts() {
        let s = setup("sant-egidio").unwrap();
        let h = |id: &str| Hex::parse(id).unwrap();
        // 8.2.5: 2525 is intermediate, higher than 2524, lower than 2526.
        assert_eq!(s.map.glyph(h("2525")), '/');
        assert!(s.map.height(h("2524")) < s.map.height(h("2525")));
        assert!(s.map.height(h("2525")) < s.map.height(h("2526")));
        // 8.2.6: the minor images are plain terrain.
        assert_eq!(s.map.glyph(h("1416")), '.');
        assert_eq!(s.map.glyph(h("1711")), '.');
        // The printed numbers.
        assert_eq!(s.tables.movement.cavalry, 5);
        assert_eq!(s.tables.movement.foot, 3);
        assert_eq!(s.tables.wounds.threshold, 8);
        assert_eq!(s.tables.victory.vl_win, 12);
        assert_eq!(s.vp_per_vl["braccio"], 6);
        assert_eq!(s.vp_per_vl["malatesta"], 4);
        let short = setup("sant-egidio+short").unwrap();
        assert_eq!((short.vp_per_vl["braccio"], short.vp_per_vl["malatesta"]), (5, 3));
        // The one printed cell: D/1 (12.1.6) at column 0 on a 7.
        assert_eq!(s.tables.melee.cells[5][5], "D/1");
        assert_eq!(s.heat.as_ref().unwrap().boxes[0], 6);
        // S2.6: every Malatestan Battle begins inactive; S2.4: every
        // Braccesca Battle follows the School.
        assert!(s.battles.iter().filter(|b| b.side == MALATESTA).all(|b| !b.released));
        assert!(s.battles.iter().filter(|b| b.side == BRACCIO).all(|b| b.school && b.squads.len() == 2));
    }
}
