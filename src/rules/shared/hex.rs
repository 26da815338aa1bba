//! Hex grids as printed wargame maps number them: flat-topped hexes in
//! vertical columns, ids `CCRR` (column first, both from 01), with either
//! offset convention (`even-q`: even columns half a hex lower, the default
//! of La Guerre des Ducs and Braccio; `odd-q`). Neighbours, distance,
//! hexsides (for rivers, bridges and roads along them), facing towards a
//! vertex with front, flank and rear arcs, line of sight from centre to
//! centre, and a movement search in half points with hooks for entering
//! costs and hexes where a move must stop (zones of control).

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BinaryHeap};
use std::fmt;

/// Which columns sit half a hex lower.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Offset {
    #[default]
    #[serde(rename = "even-q")]
    EvenQ,
    #[serde(rename = "odd-q")]
    OddQ,
}

/// A hex by its printed numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Hex {
    pub col: i32,
    pub row: i32,
}

impl Hex {
    pub const fn new(col: i32, row: i32) -> Hex {
        Hex { col, row }
    }

    /// `CCRR` (four digits; six, `CCCRRR`, for maps past 99 columns).
    pub fn parse(id: &str) -> Option<Hex> {
        let id = id.trim();
        if !(id.len() == 4 || id.len() == 6) || !id.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let half = id.len() / 2;
        Some(Hex { col: id[..half].parse().ok()?, row: id[half..].parse().ok()? })
    }
}

impl fmt::Display for Hex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.col > 99 || self.row > 99 {
            write!(f, "{:03}{:03}", self.col, self.row)
        } else {
            write!(f, "{:02}{:02}", self.col, self.row)
        }
    }
}

/// The six hexside directions of a flat-topped hex, clockwise from north.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Dir {
    N,
    NE,
    SE,
    S,
    SW,
    NW,
}

impl Dir {
    pub const ALL: [Dir; 6] = [Dir::N, Dir::NE, Dir::SE, Dir::S, Dir::SW, Dir::NW];

    pub fn index(self) -> usize {
        self as usize
    }

    /// `n` sixths of a turn clockwise (negative: anticlockwise).
    pub fn turn(self, n: i32) -> Dir {
        Dir::ALL[(self.index() as i32 + n).rem_euclid(6) as usize]
    }

    /// The step in axial coordinates (q = column, s as in [`Grid::axial`]).
    fn step(self) -> (i32, i32) {
        match self {
            Dir::N => (0, -1),
            Dir::NE => (1, -1),
            Dir::SE => (1, 0),
            Dir::S => (0, 1),
            Dir::SW => (-1, 1),
            Dir::NW => (-1, 0),
        }
    }
}

/// A unit's facing towards one of the six vertices (Braccio 6.0): NE at 1
/// o'clock, E at 3, SE at 5, SW at 7, W at 9, NW at 11.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Vertex {
    NE,
    E,
    SE,
    SW,
    W,
    NW,
}

/// Where a neighbour lies for a unit with a facing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arc {
    Front,
    Flank,
    Rear,
}

impl Vertex {
    pub const ALL: [Vertex; 6] = [Vertex::NE, Vertex::E, Vertex::SE, Vertex::SW, Vertex::W, Vertex::NW];

    /// One vertex of rotation clockwise (`n` > 0) or anticlockwise.
    pub fn turn(self, n: i32) -> Vertex {
        Vertex::ALL[(self as i32 + n).rem_euclid(6) as usize]
    }

    /// Vertices of rotation from `self` to `to`, the short way round.
    pub fn turns(self, to: Vertex) -> i32 {
        let d = (to as i32 - self as i32).rem_euclid(6);
        d.min(6 - d)
    }

    /// The two vertices whose front holds direction `d`.
    pub fn facing(d: Dir) -> [Vertex; 2] {
        // Vertex v's front is Dir v and Dir v+1 (see `front`).
        [Vertex::ALL[d.index()], Vertex::ALL[(d.index() + 5) % 6]]
    }

    /// The two hexside directions sharing this vertex: the front hexes.
    pub fn front(self) -> [Dir; 2] {
        let d = Dir::ALL[self as usize];
        [d, d.turn(1)]
    }

    /// Front: the two hexes sharing the vertex; flank: the next two; rear:
    /// the two sharing the opposite vertex.
    pub fn arc(self, d: Dir) -> Arc {
        match (d.index() as i32 - self as i32).rem_euclid(6) {
            0 | 1 => Arc::Front,
            2 | 5 => Arc::Flank,
            _ => Arc::Rear,
        }
    }
}

/// A hexside, named by the two hexes it parts (lower id first), so a
/// river or a bridge has one key whichever side it is looked at from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Side(pub Hex, pub Hex);

impl Side {
    pub fn of(a: Hex, b: Hex) -> Side {
        if a <= b {
            Side(a, b)
        } else {
            Side(b, a)
        }
    }

    /// `CCRR-CCRR`, the form map files and TOML keys use.
    pub fn parse(s: &str) -> Option<Side> {
        let (a, b) = s.split_once('-')?;
        Some(Side::of(Hex::parse(a)?, Hex::parse(b)?))
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.0, self.1)
    }
}

/// One step of a line between hex centres: through one hex, or exactly
/// along the hexside between two (where a rule may let the firer choose,
/// or block only if both block).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Crossing {
    One(Hex),
    Two(Hex, Hex),
}

/// A map's grid: its size and numbering.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Grid {
    pub columns: i32,
    pub rows: i32,
    #[serde(default)]
    pub offset: Offset,
}

impl Grid {
    pub fn contains(&self, h: Hex) -> bool {
        (1..=self.columns).contains(&h.col) && (1..=self.rows).contains(&h.row)
    }

    /// A hex's slot in a per-hex vector of `columns * rows`, column by
    /// column (the order of `hexes`); `None` off the map.
    pub fn cell(&self, h: Hex) -> Option<usize> {
        self.contains(h).then(|| ((h.col - 1) * self.rows + (h.row - 1)) as usize)
    }

    /// Every hex, column by column.
    pub fn hexes(&self) -> impl Iterator<Item = Hex> + '_ {
        (1..=self.columns).flat_map(move |c| (1..=self.rows).map(move |r| Hex::new(c, r)))
    }

    /// Axial coordinates (q, s): q is the column, s the row less the half
    /// hexes the columns before have slid down.
    fn axial(&self, h: Hex) -> (i32, i32) {
        let slid = match self.offset {
            Offset::EvenQ => (h.col + 1).div_euclid(2),
            Offset::OddQ => h.col.div_euclid(2),
        };
        (h.col, h.row - slid)
    }

    fn hex_at(&self, q: i32, s: i32) -> Hex {
        let slid = match self.offset {
            Offset::EvenQ => (q + 1).div_euclid(2),
            Offset::OddQ => q.div_euclid(2),
        };
        Hex::new(q, s + slid)
    }

    /// The neighbour across hexside `d`, if it is on the map.
    pub fn neighbour(&self, h: Hex, d: Dir) -> Option<Hex> {
        let (q, s) = self.axial(h);
        let (dq, ds) = d.step();
        Some(self.hex_at(q + dq, s + ds)).filter(|n| self.contains(*n))
    }

    /// The neighbours on the map, clockwise from north.
    pub fn neighbours(&self, h: Hex) -> Vec<Hex> {
        Dir::ALL.iter().filter_map(|&d| self.neighbour(h, d)).collect()
    }

    /// The direction from `a` to its neighbour `b`.
    pub fn direction(&self, a: Hex, b: Hex) -> Option<Dir> {
        Dir::ALL.into_iter().find(|&d| self.neighbour(a, d) == Some(b))
    }

    /// The hexside between two neighbours.
    pub fn side(&self, a: Hex, b: Hex) -> Option<Side> {
        self.direction(a, b).map(|_| Side::of(a, b))
    }

    /// Hexes between, counted as moves (off-map hexes included).
    pub fn distance(&self, a: Hex, b: Hex) -> i32 {
        let ((q1, s1), (q2, s2)) = (self.axial(a), self.axial(b));
        let (dq, ds) = (q2 - q1, s2 - s1);
        (dq.abs() + ds.abs() + (dq + ds).abs()) / 2
    }

    /// The hexes a line from centre to centre passes through, from `a` to
    /// `b` inclusive. Where it runs exactly along a hexside the step is
    /// [`Crossing::Two`].
    pub fn line(&self, a: Hex, b: Hex) -> Vec<Crossing> {
        let n = self.distance(a, b);
        if n == 0 {
            return vec![Crossing::One(a)];
        }
        let ((q1, s1), (q2, s2)) = (self.axial(a), self.axial(b));
        let (q1, s1, q2, s2) = (q1 as f64, s1 as f64, q2 as f64, s2 as f64);
        // Nudged both ways, askew to every hexside: a line along a hexside
        // rounds to a different hex each way.
        const EPS: f64 = 1e-6;
        (0..=n)
            .map(|i| {
                let t = i as f64 / n as f64;
                let at = |e: f64| {
                    let (q, s) = (q1 + (q2 - q1) * t + e, s1 + (s2 - s1) * t + 2.0 * e);
                    let (q, s) = cube_round(q, s);
                    self.hex_at(q, s)
                };
                let (x, y) = (at(EPS), at(-EPS));
                if x == y {
                    Crossing::One(x)
                } else {
                    Crossing::Two(x.min(y), x.max(y))
                }
            })
            .collect()
    }

    /// Every hex the line from `a` to `b` passes through, both hexes where
    /// it runs along a hexside: a "line of hexes" a scenario draws.
    pub fn line_hexes(&self, a: Hex, b: Hex) -> Vec<Hex> {
        self.line(a, b)
            .into_iter()
            .flat_map(|c| match c {
                Crossing::One(x) => vec![x],
                Crossing::Two(x, y) => vec![x, y],
            })
            .collect()
    }

    /// Which side of the straight line through the centres of `a` and `b`
    /// `h` lies on: 1, -1, or 0 on the line itself. Two hexes on the same
    /// side give the same sign.
    pub fn side_of_line(&self, a: Hex, b: Hex, h: Hex) -> i32 {
        let ((ax, ay), (bx, by), (x, y)) = (self.centre(a), self.centre(b), self.centre(h));
        let cross = (bx - ax) * (y - ay) - (by - ay) * (x - ax);
        if cross.abs() < 1e-9 {
            0
        } else {
            cross.signum() as i32
        }
    }

    /// Line of sight from `a` to `b`: no hex strictly between blocks it;
    /// along a hexside, it is blocked only when both hexes block. What
    /// blocks (a unit, higher ground, woods) is the game's `blocks`.
    pub fn sight(&self, a: Hex, b: Hex, blocks: impl Fn(Hex) -> bool) -> bool {
        let line = self.line(a, b);
        let inner = &line[1..line.len().saturating_sub(1).max(1)];
        inner.iter().all(|c| match *c {
            Crossing::One(h) => h == a || h == b || !blocks(h),
            Crossing::Two(h, k) => h == a || h == b || k == a || k == b || !(blocks(h) && blocks(k)),
        })
    }

    /// A hex's centre, in units where a hex is two across (x right, y
    /// down).
    fn centre(&self, h: Hex) -> (f64, f64) {
        let low = match self.offset {
            Offset::EvenQ => h.col % 2 == 0,
            Offset::OddQ => h.col % 2 == 1,
        };
        (h.col as f64 * 1.5, (h.row as f64 + if low { 0.5 } else { 0.0 }) * 3f64.sqrt())
    }

    /// Degrees between the direction vertex `v` points from `a` and the
    /// line from `a`'s centre to `b`'s: 0 dead ahead, 180 behind (a fire
    /// arc is the hexes within some angle, Braccio 10.1.2).
    pub fn off_vertex(&self, a: Hex, b: Hex, v: Vertex) -> f64 {
        let ((x0, y0), (x1, y1)) = (self.centre(a), self.centre(b));
        let ahead = match v {
            Vertex::NE => -60.0f64,
            Vertex::E => 0.0,
            Vertex::SE => 60.0,
            Vertex::SW => 120.0,
            Vertex::W => 180.0,
            Vertex::NW => -120.0,
        };
        let d = ((y1 - y0).atan2(x1 - x0).to_degrees() - ahead).abs() % 360.0;
        if d > 180.0 {
            360.0 - d
        } else {
            d
        }
    }

    /// Every hex a piece at `from` can reach with `budget` (in whatever
    /// unit the game counts: half points for Ducs), at its least cost, and
    /// the hex it comes from. `enter(from, to)` is the cost of a step, or
    /// `None` where it may not go (a river, an enemy, a move from one zone
    /// of control into another); a move stops in a hex where `must_stop`
    /// holds (an enemy zone of control), though it may start in one. A
    /// piece off the map reaches only where it is.
    pub fn reach(
        &self,
        from: Hex,
        budget: u32,
        enter: impl Fn(Hex, Hex) -> Option<u32>,
        must_stop: impl Fn(Hex) -> bool,
    ) -> BTreeMap<Hex, Reached> {
        let Some(start) = self.cell(from) else {
            return BTreeMap::from([(from, Reached { cost: 0, via: None })]);
        };
        // The search keeps its best costs by cell, read at every step; the
        // map is made once, at the end.
        let mut best: Vec<Option<(Hex, Reached)>> = vec![None; (self.columns * self.rows).max(0) as usize];
        best[start] = Some((from, Reached { cost: 0, via: None }));
        let mut queue = BinaryHeap::new();
        queue.push(std::cmp::Reverse((0u32, from)));
        while let Some(std::cmp::Reverse((cost, h))) = queue.pop() {
            if self.cell(h).and_then(|c| best[c]).is_some_and(|(_, r)| r.cost < cost) {
                continue;
            }
            if h != from && must_stop(h) {
                continue;
            }
            for n in Dir::ALL.iter().filter_map(|&d| self.neighbour(h, d)) {
                let Some(c) = enter(h, n).and_then(|step| cost.checked_add(step)) else { continue };
                let Some(slot) = self.cell(n) else { continue };
                if c > budget || best[slot].is_some_and(|(_, r)| r.cost <= c) {
                    continue;
                }
                best[slot] = Some((n, Reached { cost: c, via: Some(h) }));
                queue.push(std::cmp::Reverse((c, n)));
            }
        }
        best.into_iter().flatten().collect()
    }
}

/// How a hex was reached by [`Grid::reach`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reached {
    pub cost: u32,
    pub via: Option<Hex>,
}

/// The path to `to` in a [`Grid::reach`] result, from the start.
pub fn path(reached: &BTreeMap<Hex, Reached>, to: Hex) -> Option<Vec<Hex>> {
    let mut out = vec![to];
    let mut at = reached.get(&to)?;
    while let Some(prev) = at.via {
        out.push(prev);
        at = reached.get(&prev)?;
    }
    out.reverse();
    Some(out)
}

/// Round fractional axial coordinates to the nearest hex (through cube
/// coordinates, where q + s + t = 0).
fn cube_round(q: f64, s: f64) -> (i32, i32) {
    let t = -q - s;
    let (mut rq, mut rs, rt) = (q.round(), s.round(), t.round());
    let (dq, ds, dt) = ((rq - q).abs(), (rs - s).abs(), (rt - t).abs());
    if dq > ds && dq > dt {
        rq = -rs - rt;
    } else if ds > dt {
        rs = -rq - rt;
    }
    (rq as i32, rs as i32)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(id: &str) -> Hex {
        Hex::parse(id).unwrap()
    }

    fn ids(v: &[Hex]) -> Vec<String> {
        let mut v: Vec<String> = v.iter().map(|x| x.to_string()).collect();
        v.sort();
        v
    }

    const DUCS: Grid = Grid { columns: 20, rows: 14, offset: Offset::EvenQ };

    #[test]
    fn neighbours_and_distance_even_q() {
        // The vectors of the Ducs brief (2.5).
        assert_eq!(ids(&DUCS.neighbours(h("0505"))), ["0404", "0405", "0504", "0506", "0604", "0605"]);
        assert_eq!(ids(&DUCS.neighbours(h("0605"))), ["0505", "0506", "0604", "0606", "0705", "0706"]);
        assert_eq!(DUCS.distance(h("0101"), h("0202")), 2);
        assert_eq!(DUCS.distance(h("0303"), h("0603")), 3);
        assert_eq!(DUCS.distance(h("0403"), h("0603")), 2);
        // Braccio's diagonals (brief 2.3): 0622 -> 2911 is a NE line.
        let g = Grid { columns: 34, rows: 30, offset: Offset::EvenQ };
        assert_eq!(g.distance(h("0622"), h("2911")), 23);
        // Map edges: a corner has fewer neighbours.
        assert_eq!(ids(&DUCS.neighbours(h("0101"))), ["0102", "0201"]);
        assert_eq!(DUCS.neighbour(h("0101"), Dir::N), None);
    }

    #[test]
    fn odd_q_is_the_mirror_numbering() {
        let g = Grid { columns: 20, rows: 14, offset: Offset::OddQ };
        // Odd columns sit lower: 0505's neighbours in columns 4 and 6 are
        // rows 5 and 6.
        assert_eq!(ids(&g.neighbours(h("0505"))), ["0405", "0406", "0504", "0506", "0605", "0606"]);
        assert_eq!(ids(&g.neighbours(h("0605"))), ["0504", "0505", "0604", "0606", "0704", "0705"]);
        for a in g.hexes() {
            for n in g.neighbours(a) {
                assert_eq!(g.distance(a, n), 1);
                assert!(g.neighbours(n).contains(&a), "{a} {n}");
            }
        }
    }

    #[test]
    fn ids_sides_and_directions() {
        assert_eq!(h("0207"), Hex::new(2, 7));
        assert_eq!(Hex::new(2, 7).to_string(), "0207");
        assert_eq!(Hex::parse("207"), None);
        assert_eq!(Hex::parse("02a7"), None);
        assert_eq!(Side::of(h("0506"), h("0505")).to_string(), "0505-0506");
        assert_eq!(Side::parse("0506-0505"), Some(Side::of(h("0505"), h("0506"))));
        assert_eq!(DUCS.side(h("0505"), h("0707")), None);
        assert_eq!(DUCS.direction(h("0505"), h("0604")), Some(Dir::NE));
        assert_eq!(DUCS.direction(h("0605"), h("0706")), Some(Dir::SE));
        for d in Dir::ALL {
            let n = DUCS.neighbour(h("0707"), d).unwrap();
            assert_eq!(DUCS.neighbour(n, d.turn(3)), Some(h("0707")), "{d:?} and back");
        }
    }

    #[test]
    fn facing_arcs_as_braccio_fig_1() {
        // Brief 2.3: facing E: front NE+SE, flank N+S, rear NW+SW; facing
        // NE: front N+NE, flank NW+SE, rear SW+S.
        assert_eq!(Vertex::E.front(), [Dir::NE, Dir::SE]);
        assert_eq!(Vertex::E.arc(Dir::N), Arc::Flank);
        assert_eq!(Vertex::E.arc(Dir::S), Arc::Flank);
        assert_eq!(Vertex::E.arc(Dir::NW), Arc::Rear);
        assert_eq!(Vertex::E.arc(Dir::SW), Arc::Rear);
        assert_eq!(Vertex::NE.front(), [Dir::N, Dir::NE]);
        assert_eq!(Vertex::NE.arc(Dir::NW), Arc::Flank);
        assert_eq!(Vertex::NE.arc(Dir::SE), Arc::Flank);
        assert_eq!(Vertex::NE.arc(Dir::S), Arc::Rear);
        assert_eq!(Vertex::NW.front(), [Dir::NW, Dir::N]);
        assert_eq!(Vertex::E.turn(1), Vertex::SE);
        assert_eq!(Vertex::NE.turn(-1), Vertex::NW);
        for v in Vertex::ALL {
            let arcs: Vec<Arc> = Dir::ALL.iter().map(|&d| v.arc(d)).collect();
            for a in [Arc::Front, Arc::Flank, Arc::Rear] {
                assert_eq!(arcs.iter().filter(|&&x| x == a).count(), 2, "{v:?}");
            }
        }
    }

    #[test]
    fn angles_off_a_facing() {
        let g = Grid { columns: 34, rows: 30, offset: Offset::EvenQ };
        // 1727 facing W: 1527, two columns straight west, is dead ahead;
        // 1725, straight north, is 90 degrees off; 1927 behind.
        assert!(g.off_vertex(h("1727"), h("1527"), Vertex::W) < 1e-9);
        assert!((g.off_vertex(h("1727"), h("1725"), Vertex::W) - 90.0).abs() < 1e-9);
        assert!((g.off_vertex(h("1727"), h("1927"), Vertex::W) - 180.0).abs() < 1e-9);
        // A front neighbour lies 30 degrees off its vertex.
        let n = g.neighbour(h("1727"), Dir::NE).unwrap();
        assert!((g.off_vertex(h("1727"), n, Vertex::NE) - 30.0).abs() < 1e-9);
        assert_eq!(Vertex::E.turns(Vertex::W), 3);
        assert_eq!(Vertex::NE.turns(Vertex::NW), 1);
        assert!(Vertex::facing(Dir::N).iter().all(|v| v.front().contains(&Dir::N)));
    }

    #[test]
    fn lines_and_sight() {
        // A straight column: every hex between, one each.
        let line = DUCS.line(h("0501"), h("0505"));
        assert_eq!(line.len(), 5);
        assert!(line.iter().all(|c| matches!(c, Crossing::One(x) if x.col == 5)));
        // Along a hexside: 0505 to 0705 (two columns over) passes between
        // 0604 and 0605.
        let line = DUCS.line(h("0505"), h("0705"));
        assert_eq!(line[1], Crossing::Two(h("0604"), h("0605")), "{line:?}");
        // And along another hexside direction, to 0406 between 0405 and
        // 0506.
        let line = DUCS.line(h("0505"), h("0406"));
        assert_eq!(line[1], Crossing::Two(h("0405"), h("0506")), "{line:?}");
        // Blocked by one hex in the way; along a hexside only by both.
        assert!(!DUCS.sight(h("0501"), h("0505"), |x| x == h("0503")));
        assert!(DUCS.sight(h("0501"), h("0505"), |x| x == h("0603")));
        assert!(DUCS.sight(h("0505"), h("0705"), |x| x == h("0604")));
        assert!(!DUCS.sight(h("0505"), h("0705"), |x| x == h("0604") || x == h("0605")));
        // Neighbours always see each other; the ends never block.
        assert!(DUCS.sight(h("0505"), h("0506"), |_| true));
        assert!(DUCS.sight(h("0505"), h("0507"), |x| x != h("0506")));
    }

    #[test]
    fn lines_of_hexes_and_their_sides() {
        // Along a hexside both hexes count.
        let v = DUCS.line_hexes(h("0505"), h("0705"));
        assert_eq!(v, [h("0505"), h("0604"), h("0605"), h("0705")]);
        // Column 5 divides west from east; its own hexes are on it.
        let side = |x: &str| DUCS.side_of_line(h("0501"), h("0509"), h(x));
        assert_eq!((side("0503"), side("0403"), side("0703")), (0, side("0108"), side("0908")));
        assert_ne!(side("0403"), side("0703"));
        assert_ne!(side("0403"), 0);
    }

    #[test]
    fn reach_in_half_points_with_must_stop() {
        // Plain costs 2 half points; a road along column 5 costs 1.
        let road = |x: Hex| x.col == 5;
        let enter = |a: Hex, b: Hex| Some(if road(a) && road(b) { 1 } else { 2 });
        let r = DUCS.reach(h("0501"), 8, enter, |_| false);
        assert_eq!(r[&h("0509")].cost, 8, "eight road hexes for 4 MP");
        assert_eq!(r[&h("0603")].cost, 4);
        assert!(!r.contains_key(&h("0510")));
        assert_eq!(path(&r, h("0503")).unwrap(), [h("0501"), h("0502"), h("0503")]);
        // A zone of control at 0503 stops the move there: the road beyond is
        // reached only around it.
        let zoc = |x: Hex| x == h("0503");
        let r = DUCS.reach(h("0501"), 8, enter, zoc);
        assert_eq!(r[&h("0503")].cost, 2);
        assert_ne!(path(&r, h("0505")).unwrap()[2], h("0503"));
        // The start may be in a zone of control; a river (no entry) bars.
        let r = DUCS.reach(h("0503"), 2, enter, zoc);
        assert_eq!(r[&h("0504")].cost, 1);
        let r = DUCS.reach(h("0501"), 8, |a, b| if b.col == 6 { None } else { enter(a, b) }, |_| false);
        assert!(r.keys().all(|x| x.col != 6));
    }
}
