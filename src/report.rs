//! The fairness report: one HTML page, no script and nothing fetched, with
//! face counts per die size, chi-square and p-values (per die size, and per
//! stream), a runs test on the order of the faces, luck by side and by
//! player (whom each draw served, from the journal) with its p-value and a
//! curve against what chance allows, the uniformity of shuffles and pool
//! draws, and plots drawn as inline SVG; or the same figures as JSON.

use crate::dice::luck::{self, Luck, Uniformity};
use crate::dice::stats::{chi_square, chi_square_p};
use crate::dice::{Draw, DrawKind};
use crate::journal::{kinds, Entry};
use std::collections::BTreeMap;
use std::fmt::Write;

/// The draws of one game, step by step, and who played which role.
pub struct GameDraws {
    pub game: String,
    pub ruleset: String,
    /// Role to player address.
    pub players: BTreeMap<String, String>,
    pub steps: Vec<(u32, Vec<Draw>)>,
    /// Draws of steps a rollback undid: checked like the rest, but they
    /// decided nothing that stands, so they count for no one's luck.
    pub voided: usize,
}

/// Each step's draws, by step.
type Steps = Vec<(u32, Vec<Draw>)>;

pub fn gather(entries: &[Entry]) -> GameDraws {
    let created = entries.first().and_then(|e| e.body::<kinds::Created>().ok());
    let undone = crate::journal::undone_steps(entries);
    let (steps, voided): (Steps, Steps) = entries
        .iter()
        .filter(|e| e.kind == "resolved")
        .filter_map(|e| e.body::<kinds::Resolved>().ok())
        .map(|r| (r.step, r.draws))
        .partition(|(k, _)| !undone.contains(k));
    GameDraws {
        voided: voided.iter().map(|(_, d)| d.len()).sum(),
        game: created.as_ref().map(|c| c.game.clone()).unwrap_or_else(|| "?".into()),
        ruleset: created.as_ref().map(|c| c.ruleset.clone()).unwrap_or_default(),
        players: created.map(|c| c.players).unwrap_or_default(),
        steps,
    }
}

/// The level at which a side or player is flagged, after Holm's
/// adjustment over every side and player tested together.
pub const LEVEL: f64 = 0.05;

/// One side's or one player's luck, tested.
pub struct Tested {
    pub name: String,
    pub luck: Luck,
    pub p: f64,
    /// `p` adjusted for the number of sides and players tested (Holm).
    pub adjusted: f64,
}

impl Tested {
    pub fn flagged(&self) -> bool {
        self.adjusted < LEVEL
    }
}

/// Everything the report says about luck, for the page and for `--json`.
pub struct Fairness {
    pub games: Vec<String>,
    /// Per side, named `role (ruleset)`.
    pub sides: Vec<Tested>,
    /// Per player address, across their games.
    pub players: Vec<Tested>,
    pub uniformity: Vec<Uniformity>,
    /// Committed die rolls, and how many of them name whom they served
    /// (journals from before draws were attributed name nobody).
    pub dice: usize,
    pub attributed: usize,
    /// Draws left out because a rollback undid their steps.
    pub voided: usize,
}

impl Fairness {
    pub fn of(games: &[GameDraws]) -> Fairness {
        let mut sides: BTreeMap<String, Luck> = BTreeMap::new();
        let mut players: BTreeMap<String, Luck> = BTreeMap::new();
        let (mut dice, mut attributed) = (0, 0);
        for g in games {
            for d in g.steps.iter().flat_map(|(_, ds)| ds).filter(|d| !d.declared) {
                if d.kind == DrawKind::Die {
                    dice += 1;
                    attributed += usize::from(d.good.is_some());
                }
                let Some(role) = &d.serves else { continue };
                let side = if g.ruleset.is_empty() { role.clone() } else { format!("{role} ({})", g.ruleset) };
                sides.entry(side).or_default().add(d);
                if let Some(addr) = g.players.get(role) {
                    players.entry(addr.to_lowercase()).or_default().add(d);
                }
            }
        }
        let keep = |m: BTreeMap<String, Luck>| -> Vec<(String, Luck)> {
            m.into_iter().filter(|(_, l)| l.rolls() > 0).collect()
        };
        let (sides, players) = (keep(sides), keep(players));
        // Sides and players are tested together: the moderator reads them
        // on one page, and each test is one more chance of a false alarm.
        let ps: Vec<f64> = sides.iter().chain(&players).map(|(_, l)| l.p()).collect();
        let adj = luck::holm(&ps);
        let n_sides = sides.len();
        let mut tested: Vec<Tested> = sides
            .into_iter()
            .chain(players)
            .zip(ps.iter().zip(adj))
            .map(|((name, luck), (&p, adjusted))| Tested { name, luck, p, adjusted })
            .collect();
        let players = tested.split_off(n_sides);
        let sides = tested;
        Fairness {
            games: games.iter().map(|g| g.game.clone()).collect(),
            sides,
            players,
            uniformity: luck::uniformity(games.iter().flat_map(|g| g.steps.iter().flat_map(|(_, d)| d.iter()))),
            dice,
            attributed,
            voided: games.iter().map(|g| g.voided).sum(),
        }
    }

    /// How many tests the page shows (sides, players, shuffles and pools).
    pub fn tests(&self) -> usize {
        self.sides.len() + self.players.len() + self.uniformity.len()
    }
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// Wald–Wolfowitz runs test on faces above and below the die's mean (faces
/// equal to it are left out): (runs, z, two-sided p), or None when too few.
pub fn runs_test(faces: &[u32], sides: u32) -> Option<(usize, f64, f64)> {
    let mean2 = sides + 1; // twice the mean, to stay in integers
    let seq: Vec<bool> = faces.iter().filter(|&&f| 2 * f != mean2).map(|&f| 2 * f > mean2).collect();
    let n1 = seq.iter().filter(|&&b| b).count() as f64;
    let n2 = seq.len() as f64 - n1;
    if n1 < 2.0 || n2 < 2.0 {
        return None;
    }
    let runs = 1 + seq.windows(2).filter(|w| w[0] != w[1]).count();
    let n = n1 + n2;
    let mu = 2.0 * n1 * n2 / n + 1.0;
    let var = 2.0 * n1 * n2 * (2.0 * n1 * n2 - n) / (n * n * (n - 1.0));
    if var <= 0.0 {
        return None;
    }
    let z = (runs as f64 - mu) / var.sqrt();
    // P(|Z| > z) for a standard normal is the chi-square(1) tail of z².
    Some((runs, z, chi_square_p(z * z, 1.0)))
}

fn histogram(sides: u32, counts: &[u64]) -> String {
    let total: u64 = counts.iter().sum();
    let p = 1.0 / sides as f64;
    let expected = total as f64 * p;
    let sd = (total as f64 * p * (1.0 - p)).sqrt();
    let top = counts.iter().copied().max().unwrap_or(0).max((expected + 2.0 * sd).ceil() as u64).max(1) as f64;
    let (w, h, pad) = (40.0 * sides as f64 + 60.0, 180.0, 30.0);
    let y = |v: f64| h - pad - (v / top) * (h - 2.0 * pad);
    let mut s = format!("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" role=\"img\"><title>d{sides}: faces against the fair expectation</title>");
    // The band a fair die stays in about 95% of the time, per face.
    let _ = write!(
        s,
        "<rect x=\"{pad}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"#cfe3cf\"/>",
        y(expected + 2.0 * sd),
        40.0 * sides as f64,
        (y((expected - 2.0 * sd).max(0.0)) - y(expected + 2.0 * sd)).max(0.0)
    );
    for (i, &c) in counts.iter().enumerate() {
        let x = pad + 40.0 * i as f64 + 6.0;
        let _ = write!(
            s,
            "<rect x=\"{x:.1}\" y=\"{:.1}\" width=\"28\" height=\"{:.1}\" fill=\"#2c5aa0\"/><text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\">{}</text><text x=\"{:.1}\" y=\"{:.1}\" font-size=\"10\">{c}</text>",
            y(c as f64),
            h - pad - y(c as f64),
            x + 10.0,
            h - pad + 14.0,
            i + 1,
            x + 6.0,
            y(c as f64) - 3.0
        );
    }
    let _ = write!(
        s,
        "<line x1=\"{pad}\" x2=\"{:.1}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"#c0392b\" stroke-dasharray=\"4 3\"/></svg>",
        pad + 40.0 * sides as f64,
        y(expected),
        y(expected)
    );
    s
}

/// Points of a line: (x, y).
type Points = Vec<(f64, f64)>;

/// A line chart with axes, tick labels and axis titles; `band` draws the
/// region chance allows (± two standard deviations) when given.
struct Chart<'a> {
    title: &'a str,
    x_label: &'a str,
    y_label: &'a str,
    /// Name, colour and points of each line.
    lines: Vec<(String, &'static str, Points)>,
    band: Option<Points>,
}

/// Round tick steps: 1, 2 or 5 times a power of ten, about five of them.
fn ticks(lo: f64, hi: f64) -> Vec<f64> {
    let span = (hi - lo).max(1e-9);
    let raw = span / 5.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * mag).find(|s| *s >= raw).unwrap_or(10.0 * mag);
    let mut t = (lo / step).ceil() * step;
    let mut v = Vec::new();
    while t <= hi + 1e-9 {
        v.push(if t.abs() < 1e-9 { 0.0 } else { t });
        t += step;
    }
    v
}

fn fmt_tick(v: f64) -> String {
    if v.fract().abs() < 1e-9 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

impl Chart<'_> {
    fn svg(&self) -> String {
        let (w, h) = (680.0, 300.0);
        let (left, right, top, bottom) = (64.0, 170.0, 28.0, 48.0);
        let pts = || self.lines.iter().flat_map(|(_, _, p)| p.iter()).chain(self.band.iter().flatten());
        let x_max = pts().map(|p| p.0).fold(1.0, f64::max);
        let amp = pts().map(|p| p.1.abs()).fold(1.0, f64::max) * 1.05;
        let x = |v: f64| left + v / x_max * (w - left - right);
        let y = |v: f64| top + (amp - v) / (2.0 * amp) * (h - top - bottom);
        let mut s = format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" role=\"img\" class=\"chart\"><title>{}</title>",
            esc(self.title)
        );
        if let Some(band) = &self.band {
            let mut d = String::new();
            for (k, v) in band {
                let _ = write!(d, "{:.1},{:.1} ", x(*k), y(*v));
            }
            for (k, v) in band.iter().rev() {
                let _ = write!(d, "{:.1},{:.1} ", x(*k), y(-*v));
            }
            let _ = write!(s, "<polygon class=\"band\" points=\"{}\" fill=\"#e4efe4\"/>", d.trim_end());
        }
        // Axes: the x axis at zero luck, the y axis at the left.
        let _ = write!(
            s,
            "<g class=\"axes\" stroke=\"#333\"><line class=\"x-axis\" x1=\"{left}\" x2=\"{:.1}\" y1=\"{:.1}\" y2=\"{:.1}\"/><line class=\"y-axis\" x1=\"{left}\" x2=\"{left}\" y1=\"{top}\" y2=\"{:.1}\"/></g>",
            w - right,
            y(0.0),
            y(0.0),
            h - bottom
        );
        // Dice are counted whole: no tick between two of them.
        for t in ticks(0.0, x_max).into_iter().filter(|t| t.fract() == 0.0) {
            let _ = write!(
                s,
                "<g class=\"x-tick\"><line x1=\"{0:.1}\" x2=\"{0:.1}\" y1=\"{1:.1}\" y2=\"{2:.1}\" stroke=\"#333\"/><text x=\"{0:.1}\" y=\"{3:.1}\" font-size=\"10\" text-anchor=\"middle\">{4}</text></g>",
                x(t),
                h - bottom,
                h - bottom + 4.0,
                h - bottom + 15.0,
                fmt_tick(t)
            );
        }
        for t in ticks(-amp, amp) {
            let _ = write!(
                s,
                "<g class=\"y-tick\"><line x1=\"{0:.1}\" x2=\"{left}\" y1=\"{1:.1}\" y2=\"{1:.1}\" stroke=\"#333\"/><line x1=\"{left}\" x2=\"{2:.1}\" y1=\"{1:.1}\" y2=\"{1:.1}\" stroke=\"#eee\"/><text x=\"{3:.1}\" y=\"{4:.1}\" font-size=\"10\" text-anchor=\"end\">{5}</text></g>",
                left - 4.0,
                y(t),
                w - right,
                left - 6.0,
                y(t) + 3.0,
                fmt_tick(t)
            );
        }
        let _ = write!(
            s,
            "<text class=\"x-label\" x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\" text-anchor=\"middle\">{}</text><text class=\"y-label\" transform=\"translate(14 {:.1}) rotate(-90)\" font-size=\"11\" text-anchor=\"middle\">{}</text>",
            (left + w - right) / 2.0,
            h - 10.0,
            esc(self.x_label),
            (top + h - bottom) / 2.0,
            esc(self.y_label)
        );
        for (i, (name, c, p)) in self.lines.iter().enumerate() {
            let mut d = format!("{:.1},{:.1}", x(0.0), y(0.0));
            for (k, v) in p {
                let _ = write!(d, " {:.1},{:.1}", x(*k), y(*v));
            }
            let _ = write!(
                s,
                "<polyline class=\"curve\" data-name=\"{n}\" points=\"{d}\" fill=\"none\" stroke=\"{c}\" stroke-width=\"2\"/><text class=\"legend\" x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\" fill=\"{c}\">{n}</text>",
                w - right + 8.0,
                top + 12.0 + 14.0 * i as f64,
                n = esc(name)
            );
        }
        if self.band.is_some() {
            let _ = write!(
                s,
                "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"10\" fill=\"#5a7a5a\">shaded: fair dice stay</text><text x=\"{:.1}\" y=\"{:.1}\" font-size=\"10\" fill=\"#5a7a5a\">inside about 95% of the time</text>",
                w - right + 8.0,
                h - bottom - 14.0,
                w - right + 8.0,
                h - bottom - 2.0
            );
        }
        s.push_str("</svg>");
        s
    }
}

/// The colours of the luck curves, in the order of the rows (none of them
/// the histograms' colours, so a screenshot tells them apart).
pub const CURVES: [&str; 4] = ["#1b7f79", "#b8860b", "#6a3d9a", "#e7298a"];

/// A luck curve: cumulative pips after each scored die, and the band two
/// fair standard deviations wide around zero at each point.
fn curve_and_band(l: &Luck) -> (Points, Points) {
    let mut var = 0.0;
    let band = std::iter::once((0.0, 0.0))
        .chain(l.dice.iter().enumerate().map(|(i, &(s, _))| {
            var += (s as f64 * s as f64 - 1.0) / 12.0;
            ((i + 1) as f64, 2.0 * var.sqrt())
        }))
        .collect();
    let curve = l.curve().into_iter().enumerate().map(|(i, v)| ((i + 1) as f64, v)).collect();
    (curve, band)
}

fn luck_table(h: &mut String, caption: &str, who: &str, rows: &[Tested]) {
    let _ = write!(
        h,
        "<table class=\"luck\"><caption>{caption}</caption><tr><th>{who}</th><th>dice scored</th><th>mean (oriented)</th><th>expected</th><th>luck (pips)</th><th>score (sd)</th><th>p</th><th>p adjusted</th><th></th></tr>"
    );
    for t in rows {
        let (mean, want) = t.luck.mean().unwrap_or((0.0, 0.0));
        let _ = write!(
            h,
            "<tr><td style=\"text-align:left\">{}</td><td>{}</td><td>{mean:.2}</td><td>{want:.2}</td><td>{:+.1}</td><td>{:+.2}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(&t.name),
            t.luck.rolls(),
            t.luck.pips(),
            t.luck.z(),
            fmt_p(t.p),
            fmt_p(t.adjusted),
            if t.flagged() { "<strong>flagged</strong>" } else { "" }
        );
    }
    h.push_str("</table>");
}

fn fmt_p(p: f64) -> String {
    if p < 0.0001 {
        format!("{p:.1e}")
    } else {
        format!("{p:.4}")
    }
}

fn luck_section(h: &mut String, f: &Fairness) {
    h.push_str("<h2>Luck by side and by player</h2>");
    let _ = write!(
        h,
        "<p>{} of {} committed die rolls name the role they served and whether high or low faces were good for it (older journals name nobody). A die is scored for its role with its face turned the way the role wanted: 1 is the worst face, the die's size the best. Luck is the sum of those faces minus what fair dice give on average, in pips; the score is that in standard deviations; p is the chance that fair dice land at least this far from average, either way (exact up to 400 dice, the normal curve beyond). Shuffles, picks and rolls that help no side in particular are not scored.</p>",
        f.attributed, f.dice
    );
    if f.voided > 0 {
        let _ = write!(
            h,
            "<p>{} draws of steps a moderator's rollback undid are left out: they were drawn and verified like every other, but decided nothing that stands.</p>",
            f.voided
        );
    }
    luck_table(h, "Per side", "side", &f.sides);
    luck_table(h, "Per player, across their games", "player", &f.players);
    let m = f.sides.len() + f.players.len();
    if m > 1 {
        let _ = write!(
            h,
            "<p class=\"note\"><strong>Reading these p-values.</strong> {m} sides and players are tested here. Even with perfectly fair dice, the chance that at least one of them shows p &lt; 0.05 is {:.0}%, so a single small p is weak evidence. The adjusted p (Holm's method) allows for the number of tests; a side or player is flagged only when its adjusted p is below {LEVEL}. A flag says the dice were unusual, not that anyone cheated: dice-v1 lets everyone check that every committed roll came from the seeds published before the game.</p>",
            100.0 * luck::some_false_alarm(m, 0.05)
        );
    }
    for (title, rows) in [("Cumulative luck per side", &f.sides), ("Cumulative luck per player", &f.players)] {
        if rows.is_empty() {
            continue;
        }
        // One chart per row: sides' dice counts differ too much to share
        // an axis and stay readable.
        let _ = write!(h, "<h3>{title}</h3>");
        for (i, t) in rows.iter().enumerate() {
            let (curve, band) = curve_and_band(&t.luck);
            let chart = Chart {
                title: &format!("{title}: {}", t.name),
                x_label: &format!("dice scored for {}", t.name),
                y_label: "luck (pips above average)",
                lines: vec![(t.name.clone(), CURVES[i % CURVES.len()], curve)],
                band: Some(band),
            };
            h.push_str(&chart.svg());
        }
    }
    h.push_str("<h2>Shuffles and pool draws</h2>");
    if f.uniformity.is_empty() {
        h.push_str("<p>No committed shuffles or pool draws.</p>");
    } else {
        h.push_str("<p>Each item should land in each position of a shuffle (or be taken by a pool draw) equally often. Counts are pooled by the number of items.</p><table><tr><th>draw</th><th>items</th><th>draws</th><th>chi-square</th><th>degrees of freedom</th><th>p</th><th></th></tr>");
        for u in &f.uniformity {
            let kind = if u.kind == DrawKind::Shuffle { "shuffle (item × position)" } else { "pool draw (item)" };
            let rough = if u.min_expected() < 5.0 { "rough: some expected counts under 5" } else { "" };
            let _ = write!(
                h,
                "<tr><td style=\"text-align:left\">{kind}</td><td>{}</td><td>{}</td><td>{:.2}</td><td>{}</td><td>{}</td><td>{rough}</td></tr>",
                u.n,
                u.draws,
                u.chi_square,
                u.dof,
                fmt_p(u.p)
            );
        }
        h.push_str("</table>");
    }
}

/// The whole page for one game or many.
pub fn render(games: &[GameDraws]) -> String {
    let fairness = Fairness::of(games);
    let all: Vec<&Draw> = games
        .iter()
        .flat_map(|g| g.steps.iter().flat_map(|(_, d)| d.iter()))
        .filter(|d| d.kind == DrawKind::Die)
        .collect();
    let committed: Vec<&Draw> = all.iter().copied().filter(|d| !d.declared).collect();
    let mut h = String::from(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>adjutant: fairness report</title><style>body{font-family:sans-serif;max-width:60em;margin:2em auto}table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:.2em .5em;text-align:right}caption{text-align:left;font-weight:bold}svg{display:block;margin:.5em 0}</style></head><body>",
    );
    let names: Vec<String> = games.iter().map(|g| esc(&g.game)).collect();
    let _ = write!(
        h,
        "<h1>Fairness report</h1><p>Games: {}. {} die rolls, {} of them from committed dice (verifiable); declared rolls are left out of the tests below.</p>",
        names.join(", "),
        all.len(),
        committed.len()
    );
    luck_section(&mut h, &fairness);
    let mut by_sides: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    let mut by_stream: BTreeMap<(String, u32), Vec<u32>> = BTreeMap::new();
    for d in &committed {
        by_sides.entry(d.sides).or_default().extend(&d.result);
        by_stream.entry((d.stream.clone(), d.sides)).or_default().extend(&d.result);
    }
    let counts = |faces: &[u32], sides: u32| {
        let mut c = vec![0u64; sides as usize];
        for &f in faces {
            if f >= 1 && f <= sides {
                c[f as usize - 1] += 1;
            }
        }
        c
    };
    h.push_str("<h2>Faces per die size</h2>");
    for (sides, faces) in &by_sides {
        let c = counts(faces, *sides);
        let chi = chi_square(&c);
        let p = chi_square_p(chi, *sides as f64 - 1.0);
        let _ = write!(h, "<table><caption>d{sides}: {} rolls, chi-square {chi:.3} ({} degrees of freedom), p = {p:.3}</caption><tr><th>face</th>", faces.len(), sides - 1);
        for f in 1..=*sides {
            let _ = write!(h, "<th>{f}</th>");
        }
        h.push_str("</tr><tr><th>count</th>");
        for n in &c {
            let _ = write!(h, "<td>{n}</td>");
        }
        let _ = write!(h, "</tr></table>{}", histogram(*sides, &c));
        match runs_test(faces, *sides) {
            Some((runs, z, p)) => {
                let _ = write!(h, "<p>Runs test (faces above and below the mean, in the order rolled): {runs} runs, z = {z:.2}, p = {p:.3}.</p>");
            }
            None => h.push_str("<p>Runs test: too few rolls on each side of the mean.</p>"),
        }
    }
    h.push_str(
        "<h2>Per stream</h2><table><tr><th>stream</th><th>die</th><th>rolls</th><th>chi-square</th><th>p</th></tr>",
    );
    for ((stream, sides), faces) in &by_stream {
        let c = counts(faces, *sides);
        let chi = chi_square(&c);
        let _ = write!(
            h,
            "<tr><td>{}</td><td>d{sides}</td><td>{}</td><td>{chi:.3}</td><td>{:.3}</td></tr>",
            esc(stream),
            faces.len(),
            chi_square_p(chi, *sides as f64 - 1.0)
        );
    }
    h.push_str("</table></body></html>\n");
    h
}

/// The same figures as the page, as JSON for other tools.
pub fn render_json(games: &[GameDraws]) -> String {
    let f = Fairness::of(games);
    let num = |v: f64| if v.is_finite() { format!("{v}") } else { "null".to_string() };
    let tested = |rows: &[Tested]| -> String {
        let items: Vec<String> = rows
            .iter()
            .map(|t| {
                let (mean, want) = t.luck.mean().unwrap_or((0.0, 0.0));
                let curve: Vec<String> = t.luck.curve().into_iter().map(num).collect();
                format!(
                    "{{\"name\":{},\"dice\":{},\"mean\":{},\"expected\":{},\"pips\":{},\"score\":{},\"p\":{},\"p_adjusted\":{},\"flagged\":{},\"curve\":[{}]}}",
                    json_str(&t.name),
                    t.luck.rolls(),
                    num(mean),
                    num(want),
                    num(t.luck.pips()),
                    num(t.luck.z()),
                    num(t.p),
                    num(t.adjusted),
                    t.flagged(),
                    curve.join(",")
                )
            })
            .collect();
        format!("[{}]", items.join(","))
    };
    let uniform: Vec<String> = f
        .uniformity
        .iter()
        .map(|u| {
            format!(
                "{{\"kind\":\"{}\",\"items\":{},\"draws\":{},\"chi_square\":{},\"dof\":{},\"p\":{},\"min_expected\":{}}}",
                if u.kind == DrawKind::Shuffle { "shuffle" } else { "pool" },
                u.n,
                u.draws,
                num(u.chi_square),
                num(u.dof),
                num(u.p),
                num(u.min_expected())
            )
        })
        .collect();
    let games: Vec<String> = f.games.iter().map(|g| json_str(g)).collect();
    let m = f.sides.len() + f.players.len();
    format!(
        "{{\"games\":[{}],\"dice\":{},\"attributed\":{},\"voided\":{},\"level\":{LEVEL},\"tests\":{m},\"chance_of_some_p_below_0_05\":{},\"sides\":{},\"players\":{},\"uniformity\":[{}]}}\n",
        games.join(","),
        f.dice,
        f.attributed,
        f.voided,
        num(luck::some_false_alarm(m, 0.05)),
        tested(&f.sides),
        tested(&f.players),
        uniform.join(",")
    )
}

fn json_str(s: &str) -> String {
    let mut out = String::new();
    crate::journal::json_string(s, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_test_tells_alternation_from_chance() {
        // Strict alternation of high and low: far too many runs.
        let alt: Vec<u32> = (0..40).map(|i| if i % 2 == 0 { 6 } else { 1 }).collect();
        let (runs, z, p) = runs_test(&alt, 6).unwrap();
        assert_eq!(runs, 40);
        assert!(z > 5.0 && p < 1e-6, "z {z} p {p}");
        // All highs then all lows: far too few.
        let blocks: Vec<u32> = (0..40).map(|i| if i < 20 { 6 } else { 1 }).collect();
        let (runs, z, _) = runs_test(&blocks, 6).unwrap();
        assert_eq!(runs, 2);
        assert!(z < -5.0);
        assert!(runs_test(&[3, 4], 6).is_none());
    }
}
