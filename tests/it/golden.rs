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
        if let Some(picture) = view.boards.first().and_then(render::svg::picture) {
            check(&format!("{name}-picture.svg"), &picture);
        }
    }
}

/// What resvg lays out of an SVG, with the font the PNG is drawn in:
/// every text's box as drawn, whether it has a halo (a place's name), and
/// every rectangle's box.
struct Drawn {
    size: (f32, f32),
    texts: Vec<(String, bool, resvg::usvg::Rect)>,
    rects: Vec<resvg::usvg::Rect>,
}

fn drawn(svg: &str) -> Drawn {
    use resvg::usvg;
    static FONTS: std::sync::LazyLock<std::sync::Arc<usvg::fontdb::Database>> = std::sync::LazyLock::new(|| {
        let mut db = usvg::fontdb::Database::new();
        db.load_font_data(include_bytes!("../../assets/fonts/DejaVuSans.ttf").to_vec());
        db.load_font_data(include_bytes!("../../assets/fonts/DejaVuSans-Bold.ttf").to_vec());
        db.set_sans_serif_family("DejaVu Sans");
        std::sync::Arc::new(db)
    });
    let opt = usvg::Options { font_family: "DejaVu Sans".into(), fontdb: FONTS.clone(), ..usvg::Options::default() };
    let tree = usvg::Tree::from_str(svg, &opt).unwrap();
    let mut d = Drawn { size: (tree.size().width(), tree.size().height()), texts: Vec::new(), rects: Vec::new() };
    fn walk(g: &usvg::Group, d: &mut Drawn) {
        for n in g.children() {
            match n {
                usvg::Node::Group(g) => walk(g, d),
                usvg::Node::Text(t) => {
                    let content: String = t.chunks().iter().map(|c| c.text()).collect();
                    let halo = t.chunks().iter().flat_map(|c| c.spans()).any(|s| s.stroke().is_some());
                    d.texts.push((content, halo, t.abs_bounding_box()));
                }
                usvg::Node::Path(p) => d.rects.push(p.abs_bounding_box()),
                usvg::Node::Image(_) => {}
            }
        }
    }
    walk(tree.root(), &mut d);
    d
}

/// Every map and picture at the start of every game, and after every step
/// of each demo (the moderator's, who sees every counter), as resvg lays it
/// out: no text runs past the picture's edge, and no place's name lies on a
/// counter.
#[test]
fn no_text_leaves_the_picture_and_no_place_name_hides_under_a_counter() {
    for (name, view) in opening_views() {
        laid_out_well(&name, &view);
    }
    for rules in adjutant::rules::ALL.iter().copied() {
        for scenario in rules.info().scenarios.iter().map(|s| s.name.clone()) {
            if Game::new("demo", rules, &scenario).unwrap().demo(0).is_none() {
                continue;
            }
            super::conformance::play_demo_seeing(rules, &scenario, 1, &mut |g| {
                laid_out_well(&format!("{scenario} step {}", g.step), &g.view(&Viewer::Moderator));
            });
        }
    }
}

fn laid_out_well(name: &str, view: &adjutant::engine::View) {
    {
        let Some(board) = view.boards.first() else { return };
        let mut svgs = vec![(name.to_string(), render::svg::render(view))];
        svgs.extend(render::svg::picture(board).map(|p| (format!("{name} (picture)"), p)));
        for (name, svg) in svgs {
            let d = drawn(&svg);
            for (text, _, b) in &d.texts {
                assert!(
                    b.left() >= -0.5 && b.top() >= -0.5 && b.right() <= d.size.0 + 0.5 && b.bottom() <= d.size.1 + 0.5,
                    "{name}: {text:?} at {b:?} leaves the picture {:?}",
                    d.size
                );
            }
            // A counter: a rectangle of 28 x 24 (times the picture's zoom).
            let zoom = d.size.0
                / svg
                    .split("viewBox=\"0 0 ")
                    .nth(1)
                    .map_or(d.size.0, |v| v.split(' ').next().unwrap().parse().unwrap());
            let counters: Vec<_> = d
                .rects
                .iter()
                .filter(|r| (r.width() / zoom - 28.0).abs() < 0.5 && (r.height() / zoom - 24.0).abs() < 0.5)
                .collect();
            for (text, _, b) in d.texts.iter().filter(|t| t.1) {
                for c in &counters {
                    let apart = b.right() <= c.left()
                        || b.left() >= c.right()
                        || b.bottom() <= c.top()
                        || b.top() >= c.bottom();
                    assert!(apart, "{name}: the place {text:?} at {b:?} lies on the counter at {c:?}");
                }
            }
        }
    }
}

/// The PNG drawn from each opening SVG: it decodes, has the SVG's size (at
/// most 1,000 pixels wide), carries ink where the map has any, and stays
/// small enough to mail (the bound is the golden figure: a map that grows
/// past it should be looked at).
#[test]
fn the_png_maps_decode_have_ink_and_stay_small() {
    // 96 KB: a whole Ducs map with its 62 counters, drawn larger so its
    // counters' text reads at 10 pixels, is 72 KB; Braccio's Sant'Egidio
    // cropped to its 48 counters, with the locator, 70 KB.
    for (name, view) in opening_views() {
        let bound: usize = 96 * 1024;
        // What a mail carries: the picture where there is one.
        let svg = view.boards.first().and_then(render::svg::picture).unwrap_or_else(|| render::svg::render(&view));
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
        key: vec![('#', "rock (nothing enters)".into())],
        notes: Vec::new(),
        annex: None,
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
