//! What a viewer may see: the only game data renderers and mail templates
//! ever receive. A `View` is built by a ruleset's `view(state, viewer)`, so
//! hidden facts never reach a template unless the ruleset put them there.

use serde::{Deserialize, Serialize};

/// Who is looking.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Viewer {
    Role(String),
    Moderator,
    Public,
}

impl Viewer {
    /// May this viewer see a dice stream's links and draws while the game
    /// lasts? (Who may see what is the engine's question, not the dice's.)
    pub fn sees_stream(&self, stream: &crate::dice::StreamId) -> bool {
        use crate::dice::StreamId;
        match (stream, self) {
            (_, Viewer::Moderator) | (StreamId::Public, _) => true,
            (StreamId::Role(r), Viewer::Role(v)) => r == v,
            _ => false,
        }
    }
}

impl Viewer {
    pub fn label(&self) -> String {
        match self {
            Viewer::Role(r) => r.clone(),
            Viewer::Moderator => "moderator".into(),
            Viewer::Public => "public".into(),
        }
    }
}

/// A viewer's picture of the game.
#[derive(Debug, Clone, Default, Serialize)]
pub struct View {
    pub title: String,
    /// Plain status lines ("Turn 4: France to move").
    pub lines: Vec<String>,
    pub tables: Vec<Table>,
    /// Maps and displays, each rendered inline and attached as an SVG.
    pub boards: Vec<Board>,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Table {
    pub title: String,
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

/// A map the renderers can draw without knowing the game.
#[derive(Debug, Clone, Serialize)]
pub enum Board {
    Graph(GraphBoard),
    Grid(GridBoard),
    Tracks(TrackBoard),
    Hex(HexBoard),
    Squares(SquareBoard),
}

/// A hex map (flat-topped hexes in columns, ids `CCRR`), each hex with its
/// terrain and what this viewer sees in it.
#[derive(Debug, Clone, Default, Serialize)]
pub struct HexBoard {
    pub title: String,
    pub columns: i32,
    pub rows: i32,
    /// Even columns sit half a hex lower (`even-q`); else odd ones.
    pub even_low: bool,
    /// Only hexes with something to show; others are plain.
    pub hexes: Vec<HexCell>,
    /// Hexside marks: (hex, neighbour, kind), kind "river", "bridge", "road".
    pub hexsides: Vec<(String, String, String)>,
    /// Terrain glyph to (name, colour), for the legend and the SVG.
    pub terrain: Vec<(char, String, String)>,
    /// Roads by name, as the hexes they run through in order.
    pub roads: Vec<(String, Vec<String>)>,
    /// Areas outlined on the map (Ducs's land between the rivers), each a
    /// label and its hexes.
    pub areas: Vec<(String, Vec<String>)>,
    pub sides: Vec<(String, String)>,
    pub legend: Vec<String>,
    /// The part the text map shows, as (first column, last column, first
    /// row, last row), for a map too wide for a mail line; the SVG always
    /// draws the whole map.
    pub window: Option<[i32; 4]>,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct HexCell {
    pub col: i32,
    pub row: i32,
    /// A terrain glyph from `HexBoard::terrain` (`.` plain).
    pub terrain: char,
    /// A place's name, shown in the legend and on the SVG.
    pub place: String,
    /// The piece in the hex as this viewer may see it (a short code such
    /// as `I10`, or `?`).
    pub piece: Option<Piece>,
    /// How the SVG draws the piece as a counter: its NATO symbol
    /// ("infantry", "cavalry", "artillery", "leader"; empty: a plain
    /// marker), its printed values ("3-4"), and a crown for a leader
    /// stacked with it.
    pub symbol: String,
    pub values: String,
    pub crown: bool,
    /// The piece's facing as a clock hour of the vertex it faces (1, 3,
    /// 5, 7, 9, 11; Braccio 6.0), 0 for none.
    pub facing: u8,
}

/// Each side's letter on a map, in list order: the first letter of its
/// name that no side before it took (black b, red r, white w, blue l), so
/// that sides sharing an initial read apart. Lower case.
pub fn side_letters<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<char> {
    let mut used: Vec<char> = Vec::new();
    for n in names {
        let letters: Vec<char> = n.chars().filter(|c| c.is_alphanumeric()).map(|c| c.to_ascii_lowercase()).collect();
        used.push(letters.iter().copied().find(|c| !used.contains(c)).or(letters.first().copied()).unwrap_or('?'));
    }
    used
}

/// A square board (Tacticum's), compact: one short code a square.
#[derive(Debug, Clone, Default, Serialize)]
pub struct SquareBoard {
    pub title: String,
    pub columns: u8,
    pub rows: u8,
    /// Column labels left to right and row labels top to bottom, as
    /// printed (`a b c …`, `8 7 … 1`).
    pub col_labels: Vec<String>,
    pub row_labels: Vec<String>,
    /// (column, row, piece) from the top-left.
    pub cells: Vec<(u8, u8, Piece)>,
    /// Squares that are terrain (a rock, a wall): (column, row, glyph).
    pub terrain: Vec<(u8, u8, char)>,
    /// The last move on the map: squares moved to (`>`) and captured on
    /// (`x`), drawn by the SVG; the text says them in words.
    pub marks: Vec<(u8, u8, char)>,
    pub sides: Vec<(String, String)>,
    /// What the text map's letters mean.
    pub legend: Vec<String>,
    /// The picture's key: each terrain glyph drawn, as what it is (the
    /// SVG shows a swatch of its colour), and the lines of `legend` that
    /// are not about letters. Empty: the picture shows `legend`.
    pub key: Vec<(char, String)>,
    pub notes: Vec<String>,
    /// A smaller grid drawn under the board in the picture (Tacticum's
    /// Fort); the text says it in `legend`.
    pub annex: Option<Box<SquareBoard>>,
}

/// A status board of numbered tracks (Leaguer's Resolve, Local Support,
/// Food, fires, Digging Standard): the ledger's stand-in for a map.
#[derive(Debug, Clone, Default, Serialize)]
pub struct TrackBoard {
    pub title: String,
    pub tracks: Vec<Track>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Track {
    pub label: String,
    pub min: i32,
    pub max: i32,
    /// None: this viewer does not know the figure.
    pub value: Option<i32>,
    /// Where the figure comes from when it is not the viewer's own ("spy
    /// report, Siege Turn 3").
    pub note: String,
}

/// A rectangular display of cells (Mantua's Battle Display; later grids of
/// other games), each cell holding one side's stack, already redacted.
#[derive(Debug, Clone, Default, Serialize)]
pub struct GridBoard {
    pub title: String,
    pub columns: u32,
    pub rows: u32,
    pub row_labels: Vec<String>,
    pub col_labels: Vec<String>,
    pub cells: Vec<GridCell>,
    pub sides: Vec<(String, String)>,
    /// What the markers mean to this viewer, a line each, for the legend.
    pub legend: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct GridCell {
    pub col: u32,
    pub row: u32,
    pub side: String,
    /// An arrow for the stack's facing (^ > v <), or ' '.
    pub facing: char,
    /// One line per piece, front first, as this viewer may see it.
    pub lines: Vec<String>,
}

/// Spaces at coordinates joined by roads (Mantua; later the road networks of
/// other games).
#[derive(Debug, Clone, Default, Serialize)]
pub struct GraphBoard {
    /// Coordinate box of the spaces: x in 0..width, y in 0..height.
    pub width: u32,
    pub height: u32,
    pub spaces: Vec<BoardSpace>,
    /// Roads as pairs of indices into `spaces`.
    pub links: Vec<(usize, usize)>,
    /// Roads bearing off the map, drawn as stubs with a label.
    pub stubs: Vec<Stub>,
    /// Side name to colour, for the legend and the SVG.
    pub sides: Vec<(String, String)>,
    /// What the markers mean to this viewer, a line each, for the legend.
    pub legend: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct BoardSpace {
    pub name: String,
    /// "city", "point" or "fortress".
    pub kind: String,
    pub x: i32,
    pub y: i32,
    pub pieces: Vec<Piece>,
}

/// One marker as this viewer may see it: the text is already redacted.
#[derive(Debug, Clone, Serialize)]
pub struct Piece {
    pub side: String,
    pub text: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Stub {
    pub from: usize,
    pub x: i32,
    pub y: i32,
    pub label: String,
}
