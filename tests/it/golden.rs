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

/// Every scenario's opening view for each role and the moderator, named
/// `<ruleset>-<viewer>` for a ruleset's first scenario and
/// `<ruleset>-<scenario>-<viewer>` for the others.
fn opening_views() -> Vec<(String, adjutant::engine::View)> {
    let mut out = Vec::new();
    for rules in adjutant::rules::ALL {
        let info = rules.info();
        for (i, sc) in info.scenarios.iter().enumerate() {
            let game = Game::new("golden", *rules, &sc.name).unwrap();
            let mut viewers: Vec<Viewer> = game.roles.iter().map(|r| Viewer::Role(r.clone())).collect();
            viewers.push(Viewer::Moderator);
            let prefix = if i == 0 { info.name.to_string() } else { format!("{}-{}", info.name, sc.name) };
            out.extend(viewers.iter().map(|v| (format!("{prefix}-{}", v.label()), game.view(v))));
        }
    }
    out
}

#[test]
fn views_at_the_start_of_every_game() {
    for (name, view) in opening_views() {
        check(&format!("{name}.txt"), &render::ascii::render(&view));
        check(&format!("{name}.svg"), &render::svg::render(&view));
    }
}

/// The PNG drawn from each opening SVG: it decodes, has the SVG's size (at
/// most 1,000 pixels wide), carries ink where the map has any, and stays
/// small enough to mail (the bound is the golden figure: a map that grows
/// past it should be looked at).
#[test]
fn the_png_maps_decode_have_ink_and_stay_small() {
    // 80 KB: a whole Ducs map with its 62 counters is 65 KB. A map of
    // more than 600 hexes gets 200 KB: Braccio's Sant'Egidio (1,020 hexes
    // shaded by level, 48 counters with their facings) is 172 KB.
    for (name, view) in opening_views() {
        let big = view.boards.iter().any(|b| matches!(b, adjutant::engine::Board::Hex(h) if h.columns * h.rows > 600));
        let bound: usize = if big { 200 * 1024 } else { 80 * 1024 };
        let svg = render::svg::render(&view);
        let bytes = render::png::from_svg(&svg).unwrap();
        assert!(bytes.len() < bound, "{name}: {} bytes", bytes.len());
        let mut decoder = png::Decoder::new(std::io::Cursor::new(&bytes));
        decoder.set_transformations(png::Transformations::EXPAND);
        let mut reader = decoder.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        let frame = reader.next_frame(&mut buf).unwrap();
        let width: f64 = svg.split("width=\"").nth(1).and_then(|w| w.split('"').next()).unwrap().parse().unwrap();
        assert_eq!(frame.width as f64, width.min(1000.0).ceil(), "{name}");
        let px: Vec<&[u8]> = buf[..frame.buffer_size()].chunks(frame.color_type.samples()).collect();
        // The top-left corner is paper, on every map.
        let paper = px[0];
        let ink = px.iter().filter(|p| p[..3].iter().zip(&paper[..3]).any(|(a, b)| a.abs_diff(*b) > 60)).count();
        let share = ink as f64 / px.len() as f64;
        assert!(share > 0.005 && share < 0.5, "{name}: {:.3} of the pixels are ink", share);
    }
}

/// The rules kit's hex map and square board, drawn from a fixture (the
/// games that use them come later): within 78 columns, and the same every
/// time.
#[test]
fn kit_boards_hex_and_squares() {
    use adjutant::engine::view::{Board, HexBoard, HexCell, Piece, SquareBoard, View};
    let piece = |side: &str, text: &str| Some(Piece { side: side.into(), text: text.into() });
    let mut hexes = vec![
        HexCell {
            col: 2,
            row: 7,
            terrain: 'C',
            place: "Orfburg".into(),
            piece: piece("orfburg", "I1"),
            ..Default::default()
        },
        HexCell { col: 15, row: 7, terrain: 'C', place: "Kaiserburg".into(), piece: None, ..Default::default() },
        HexCell {
            col: 19,
            row: 8,
            terrain: 'C',
            place: "Wulfenburg".into(),
            piece: piece("wulfenburg", "I10"),
            ..Default::default()
        },
        HexCell {
            col: 5,
            row: 5,
            terrain: 'f',
            place: String::new(),
            piece: piece("orfburg", "C3"),
            ..Default::default()
        },
        HexCell {
            col: 6,
            row: 5,
            terrain: '.',
            place: String::new(),
            piece: piece("wulfenburg", "?"),
            ..Default::default()
        },
        HexCell { col: 8, row: 6, terrain: 'h', place: String::new(), piece: None, ..Default::default() },
    ];
    hexes.extend((1..=14).map(|r| HexCell {
        col: 7,
        row: r,
        terrain: '~',
        place: String::new(),
        piece: None,
        ..Default::default()
    }));
    let hex = HexBoard {
        title: "La Guerre des Ducs (kit fixture)".into(),
        columns: 20,
        rows: 14,
        even_low: true,
        hexes,
        hexsides: vec![
            ("1207".into(), "1307".into(), "river".into()),
            ("1208".into(), "1308".into(), "river".into()),
            ("1206".into(), "1306".into(), "bridge".into()),
        ],
        terrain: vec![
            ('.', "plain".into(), "#f4efe1".into()),
            ('f', "woods".into(), "#9fc48a".into()),
            ('h', "heights".into(), "#c9a66b".into()),
            ('C', "city".into(), "#d9d9d9".into()),
            ('~', "river".into(), "#8fb8e8".into()),
        ],
        roads: Vec::new(),
        areas: Vec::new(),
        sides: vec![("orfburg".into(), "#2c5aa0".into()), ("wulfenburg".into(), "#c0392b".into())],
        legend: vec!["?: an enemy counter face down".into()],
        window: None,
    };
    let squares = SquareBoard {
        title: "Tacticum (kit fixture)".into(),
        columns: 15,
        rows: 11,
        col_labels: (0..15).map(|c| ((b'a' + c) as char).to_string()).collect(),
        row_labels: (1..=11).rev().map(|r| r.to_string()).collect(),
        cells: vec![
            (0, 10, Piece { side: "red".into(), text: "L1".into() }),
            (7, 5, Piece { side: "black".into(), text: "C2".into() }),
            (14, 0, Piece { side: "black".into(), text: "I3".into() }),
        ],
        terrain: vec![(7, 4, '#'), (8, 4, '#')],
        marks: vec![(7, 5, '>'), (8, 5, 'x')],
        sides: vec![("red".into(), "#c0392b".into()), ("black".into(), "#333333".into())],
        legend: vec!["###: rock (nothing enters)".into()],
    };
    for (name, board) in [("kit-hex", Board::Hex(hex)), ("kit-squares", Board::Squares(squares))] {
        let view = View { title: name.into(), boards: vec![board], ..View::default() };
        let text = render::ascii::render(&view);
        for l in text.lines() {
            assert!(l.chars().count() <= 78, "{name}: a line of {} characters: {l:?}", l.chars().count());
        }
        check(&format!("{name}.txt"), &text);
        let svg = render::svg::render(&view);
        check(&format!("{name}.svg"), &svg);
        render::png::from_svg(&svg).unwrap();
    }
}
