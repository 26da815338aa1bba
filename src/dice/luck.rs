//! Luck by side: how far the dice that served a role ran above or below
//! what fair dice give, with an exact p-value for small counts, and the
//! uniformity of shuffles and pool draws. Pure arithmetic over draws.

use super::stats::chi_square_p;
use super::{Draw, DrawKind, Good};
use std::collections::BTreeMap;

/// A die's face turned the way its role wanted: 1 is the worst face for
/// the role, `sides` the best (a low roll that was good counts high).
fn oriented(d: &Draw) -> Option<(u32, u32)> {
    let f = *d.result.first()?;
    if d.kind != DrawKind::Die || d.declared || f < 1 || f > d.sides {
        return None;
    }
    match d.good? {
        Good::High => Some((d.sides, f)),
        Good::Low => Some((d.sides, d.sides + 1 - f)),
        Good::Neither => None,
    }
}

/// The luck of one side (or one player): the dice scored for it, in order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Luck {
    /// (sides, oriented face) of each scored die, in the order rolled.
    pub dice: Vec<(u32, u32)>,
}

impl Luck {
    pub fn add(&mut self, d: &Draw) {
        if let Some(x) = oriented(d) {
            self.dice.push(x);
        }
    }

    pub fn rolls(&self) -> usize {
        self.dice.len()
    }

    /// Sum of oriented faces minus what fair dice give on average: the
    /// luck in pips (positive: better than chance).
    pub fn pips(&self) -> f64 {
        self.dice.iter().map(|&(s, f)| f as f64 - (s as f64 + 1.0) / 2.0).sum()
    }

    /// The mean oriented face and its expectation, as "3.1 against 3.5"
    /// (for dice of one size; a mix is reported by pips alone).
    pub fn mean(&self) -> Option<(f64, f64)> {
        let n = self.dice.len() as f64;
        (n > 0.0).then(|| {
            let got = self.dice.iter().map(|&(_, f)| f as f64).sum::<f64>() / n;
            let want = self.dice.iter().map(|&(s, _)| (s as f64 + 1.0) / 2.0).sum::<f64>() / n;
            (got, want)
        })
    }

    /// Standard deviation of `pips` under fair dice.
    pub fn sd(&self) -> f64 {
        self.dice.iter().map(|&(s, _)| (s as f64 * s as f64 - 1.0) / 12.0).sum::<f64>().sqrt()
    }

    /// Pips in standard deviations: the luck score.
    pub fn z(&self) -> f64 {
        let sd = self.sd();
        if sd == 0.0 {
            0.0
        } else {
            self.pips() / sd
        }
    }

    /// Two-sided p-value: the chance that fair dice land at least this far
    /// from their expectation, either way. Exact (the sum's distribution by
    /// convolution) up to `EXACT` dice, the normal curve beyond, where it is
    /// accurate to well under a percent of the figure.
    pub fn p(&self) -> f64 {
        const EXACT: usize = 400;
        if self.dice.is_empty() {
            return 1.0;
        }
        let total: u64 = self.dice.iter().map(|&(_, f)| f as u64).sum();
        if self.dice.len() <= EXACT {
            // dist[k]: probability that the sum of oriented faces is k.
            let mut dist = vec![1.0f64];
            for &(s, _) in &self.dice {
                let mut next = vec![0.0; dist.len() + s as usize];
                for (k, &pk) in dist.iter().enumerate() {
                    if pk == 0.0 {
                        continue;
                    }
                    for f in 1..=s as usize {
                        next[k + f] += pk / s as f64;
                    }
                }
                dist = next;
            }
            let t = total as usize;
            let low: f64 = dist[..=t.min(dist.len() - 1)].iter().sum();
            let high: f64 = dist[t.min(dist.len())..].iter().sum();
            return (2.0 * low.min(high)).min(1.0);
        }
        // Continuity-corrected normal tail.
        let z = ((self.pips().abs() - 0.5).max(0.0)) / self.sd();
        chi_square_p(z * z, 1.0).min(1.0)
    }

    /// Cumulative pips after each scored die.
    pub fn curve(&self) -> Vec<f64> {
        let mut acc = 0.0;
        self.dice
            .iter()
            .map(|&(s, f)| {
                acc += f as f64 - (s as f64 + 1.0) / 2.0;
                acc
            })
            .collect()
    }
}

/// The uniformity of one kind of draw over items: shuffles of `n` items
/// (each item at each position equally often) or pool draws from `n`
/// (each item taken equally often).
#[derive(Debug, Clone, PartialEq)]
pub struct Uniformity {
    pub kind: DrawKind,
    pub n: u32,
    pub draws: u64,
    /// Observed and expected count of each cell: item × position for a
    /// shuffle, item for a pool draw.
    pub observed: Vec<f64>,
    pub expected: Vec<f64>,
    pub chi_square: f64,
    pub dof: f64,
    pub p: f64,
}

impl Uniformity {
    /// The smallest expected count: under 5 the chi-square is only rough.
    pub fn min_expected(&self) -> f64 {
        self.expected.iter().copied().fold(f64::INFINITY, f64::min)
    }
}

/// Uniformity tests for every shuffle size and pool size drawn (committed
/// draws only).
pub fn uniformity<'a>(draws: impl IntoIterator<Item = &'a Draw>) -> Vec<Uniformity> {
    // (kind: 0 shuffle, 1 pool; items) to (draws, observed, expected).
    type Cells = (u64, Vec<f64>, Vec<f64>);
    let mut by: BTreeMap<(u8, u32), Cells> = BTreeMap::new();
    for d in draws.into_iter().filter(|d| !d.declared && d.sides > 1) {
        let n = d.sides as usize;
        match d.kind {
            DrawKind::Shuffle if d.result.len() == n => {
                let e = by.entry((0, d.sides)).or_insert_with(|| (0, vec![0.0; n * n], vec![0.0; n * n]));
                e.0 += 1;
                for (pos, &item) in d.result.iter().enumerate() {
                    if (item as usize) < n {
                        e.1[item as usize * n + pos] += 1.0;
                    }
                }
                e.2.iter_mut().for_each(|x| *x += 1.0 / n as f64);
            }
            DrawKind::Pool => {
                let e = by.entry((1, d.sides)).or_insert_with(|| (0, vec![0.0; n], vec![0.0; n]));
                e.0 += 1;
                for &item in &d.result {
                    if (item as usize) < n {
                        e.1[item as usize] += 1.0;
                    }
                }
                let share = d.result.len() as f64 / n as f64;
                e.2.iter_mut().for_each(|x| *x += share);
            }
            _ => {}
        }
    }
    by.into_iter()
        .map(|((k, n), (draws, observed, expected))| {
            let chi: f64 =
                observed.iter().zip(&expected).map(|(o, e)| if *e > 0.0 { (o - e).powi(2) / e } else { 0.0 }).sum();
            // A shuffle's table has (n-1)² free cells; a pool's counts n-1
            // (a draw of all n items tells nothing, and gives chi = 0).
            let dof = if k == 0 { ((n - 1) * (n - 1)) as f64 } else { (n - 1) as f64 };
            Uniformity {
                kind: if k == 0 { DrawKind::Shuffle } else { DrawKind::Pool },
                n,
                draws,
                observed,
                expected,
                chi_square: chi,
                dof,
                p: chi_square_p(chi, dof),
            }
        })
        .collect()
}

/// Holm's step-down adjustment of p-values tested together: the chance of
/// any false alarm among them stays under the level used.
pub fn holm(ps: &[f64]) -> Vec<f64> {
    let m = ps.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| ps[a].total_cmp(&ps[b]));
    let mut adj = vec![1.0; m];
    let mut running: f64 = 0.0;
    for (rank, &i) in order.iter().enumerate() {
        running = running.max(((m - rank) as f64 * ps[i]).min(1.0));
        adj[i] = running;
    }
    adj
}

/// The chance that at least one of `m` fair tests shows p < `level` by
/// luck alone.
pub fn some_false_alarm(m: usize, level: f64) -> f64 {
    1.0 - (1.0 - level).powi(m as i32)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn die(sides: u32, f: u32, good: Good) -> Draw {
        Draw {
            stream: "public".into(),
            n: 0,
            label: "x".into(),
            kind: DrawKind::Die,
            sides,
            result: vec![f],
            declared: false,
            serves: Some("a".into()),
            good: Some(good),
        }
    }

    #[test]
    fn the_exact_p_value_of_small_counts() {
        let mut l = Luck::default();
        // Two sixes on 2d6: P(sum = 12) = 1/36, two-sided 2/36.
        l.add(&die(6, 6, Good::High));
        l.add(&die(6, 6, Good::High));
        assert!((l.p() - 2.0 / 36.0).abs() < 1e-12, "{}", l.p());
        assert_eq!(l.pips(), 5.0);
        // Two ones that were wanted low are the same luck.
        let mut m = Luck::default();
        m.add(&die(6, 1, Good::Low));
        m.add(&die(6, 1, Good::Low));
        assert_eq!(m.dice, l.dice);
        // A die that helps nobody is not scored.
        m.add(&die(6, 6, Good::Neither));
        assert_eq!(m.rolls(), 2);
        // Exactly average luck is not evidence of anything.
        let mut e = Luck::default();
        e.add(&die(6, 3, Good::High));
        e.add(&die(6, 4, Good::High));
        assert_eq!(e.p(), 1.0);
    }

    #[test]
    fn the_normal_tail_agrees_with_the_exact_one_where_they_meet() {
        let mut l = Luck::default();
        for i in 0..401 {
            l.add(&die(6, if i % 5 == 0 { 6 } else { 1 + (i % 6) }, Good::High));
        }
        let normal = l.p();
        l.dice.pop();
        let exact = l.p();
        assert!((normal - exact).abs() < 0.02, "normal {normal}, exact {exact}");
    }

    #[test]
    fn holm_keeps_the_order_and_never_lowers_a_p_value() {
        let adj = holm(&[0.01, 0.04, 0.03, 0.5]);
        for (a, b) in adj.iter().zip([0.04, 0.09, 0.09, 0.5]) {
            assert!((a - b).abs() < 1e-12, "{adj:?}");
        }
        assert!((some_false_alarm(14, 0.05) - 0.5123).abs() < 1e-3);
    }

    #[test]
    fn a_biased_shuffle_is_seen_and_a_fair_one_is_not() {
        let shuffle = |p: Vec<u32>| Draw { kind: DrawKind::Shuffle, sides: 4, result: p, ..die(4, 1, Good::Neither) };
        let mut s = super::super::Stream::new([5; 32]);
        let fair: Vec<Draw> =
            (0..400).map(|_| shuffle(s.permutation(4).into_iter().map(|i| i as u32).collect())).collect();
        let u = uniformity(&fair);
        assert_eq!((u[0].draws, u[0].dof), (400, 9.0));
        assert!(u[0].p > 0.01, "{}", u[0].p);
        let biased: Vec<Draw> =
            (0..400).map(|i| shuffle(if i % 2 == 0 { vec![0, 1, 2, 3] } else { vec![3, 2, 1, 0] })).collect();
        assert!(uniformity(&biased)[0].p < 1e-6);
    }
}
