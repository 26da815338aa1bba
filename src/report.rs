//! The fairness report: one HTML page, no script and nothing fetched, with
//! face counts per die size, chi-square and p-values (per die size, and per
//! stream), a runs test on the order of the faces, each stream's luck
//! against expectation step by step, and plots drawn as inline SVG.

use crate::dice::stats::{chi_square, chi_square_p};
use crate::dice::{Draw, DrawKind};
use crate::journal::{kinds, Entry};
use std::collections::BTreeMap;
use std::fmt::Write;

/// The die draws of one game, step by step.
pub struct GameDraws {
    pub game: String,
    pub steps: Vec<(u32, Vec<Draw>)>,
}

pub fn gather(entries: &[Entry]) -> GameDraws {
    let game =
        entries.first().and_then(|e| e.body::<kinds::Created>().ok()).map(|c| c.game).unwrap_or_else(|| "?".into());
    let steps = entries
        .iter()
        .filter(|e| e.kind == "resolved")
        .filter_map(|e| e.body::<kinds::Resolved>().ok())
        .map(|r| (r.step, r.draws.into_iter().filter(|d| d.kind == DrawKind::Die).collect()))
        .collect();
    GameDraws { game, steps }
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

/// Cumulative luck (sum of faces minus their expectation) per stream, step
/// by step, as lines.
fn luck_plot(series: &BTreeMap<String, Vec<(u32, f64)>>) -> String {
    let (w, h, pad) = (640.0, 220.0, 36.0);
    let max_step = series.values().flatten().map(|p| p.0).max().unwrap_or(1).max(1) as f64;
    let amp = series.values().flatten().map(|p| p.1.abs()).fold(1.0, f64::max);
    let x = |k: f64| pad + k / max_step * (w - 2.0 * pad);
    let y = |v: f64| h / 2.0 - v / amp * (h / 2.0 - pad);
    let colours = ["#2c5aa0", "#c0392b", "#27864a", "#8e44ad", "#d35400", "#555"];
    let mut s = format!("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" role=\"img\"><title>cumulative luck per stream</title>");
    let _ = write!(
        s,
        "<line x1=\"{pad}\" x2=\"{:.1}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"#999\"/>",
        w - pad,
        h / 2.0,
        h / 2.0
    );
    for (i, (stream, pts)) in series.iter().enumerate() {
        let c = colours[i % colours.len()];
        let mut d = format!("{:.1},{:.1}", x(0.0), y(0.0));
        for (k, v) in pts {
            let _ = write!(d, " {:.1},{:.1}", x(*k as f64), y(*v));
        }
        let _ = write!(
            s,
            "<polyline points=\"{d}\" fill=\"none\" stroke=\"{c}\" stroke-width=\"2\"/><text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\" fill=\"{c}\">{}</text>",
            w - pad - 120.0,
            16.0 + 14.0 * i as f64,
            esc(stream)
        );
    }
    s.push_str("</svg>");
    s
}

/// The whole page for one game or many.
pub fn render(games: &[GameDraws]) -> String {
    let all: Vec<&Draw> = games.iter().flat_map(|g| g.steps.iter().flat_map(|(_, d)| d.iter())).collect();
    let committed: Vec<&Draw> = all.iter().copied().filter(|d| !d.declared).collect();
    let mut h = String::from(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>adjutant: fairness report</title><style>body{font-family:sans-serif;max-width:60em;margin:2em auto}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .5em;text-align:right}caption{text-align:left;font-weight:bold}</style></head><body>",
    );
    let names: Vec<String> = games.iter().map(|g| esc(&g.game)).collect();
    let _ = write!(
        h,
        "<h1>Fairness report</h1><p>Games: {}. {} die rolls, {} of them from committed dice (verifiable); declared rolls are left out of the tests below.</p>",
        names.join(", "),
        all.len(),
        committed.len()
    );
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
    h.push_str("</table><h2>Luck over the game</h2><p>Each stream's faces minus their expectation, summed step by step (0 is exactly average).</p>");
    for g in games {
        let mut series: BTreeMap<String, Vec<(u32, f64)>> = BTreeMap::new();
        let mut sum: BTreeMap<String, f64> = BTreeMap::new();
        for (k, draws) in &g.steps {
            let mut touched = Vec::new();
            for d in draws.iter().filter(|d| !d.declared) {
                let e = sum.entry(d.stream.clone()).or_default();
                *e += d.result.iter().map(|&f| f as f64 - (d.sides as f64 + 1.0) / 2.0).sum::<f64>();
                if !touched.contains(&d.stream) {
                    touched.push(d.stream.clone());
                }
            }
            // One point a step per stream that rolled in it.
            for st in touched {
                series.entry(st.clone()).or_default().push((*k, sum[&st]));
            }
        }
        let _ = write!(h, "<h3>{}</h3>", esc(&g.game));
        if series.is_empty() {
            h.push_str("<p>No die rolls.</p>");
        } else {
            h.push_str(&luck_plot(&series));
        }
    }
    h.push_str("</body></html>\n");
    h
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
