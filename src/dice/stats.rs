//! Fairness statistics over journaled draws: face counts per die size, the
//! chi-square statistic against a fair die, and its p-value.

use super::{Draw, DrawKind};
use std::collections::BTreeMap;

/// Face counts and the goodness-of-fit figures for one die size.
#[derive(Debug, Clone, PartialEq)]
pub struct DieSummary {
    pub sides: u32,
    pub rolls: u64,
    /// `counts[f - 1]` is how often face `f` came up.
    pub counts: Vec<u64>,
    pub chi_square: f64,
    pub p_value: f64,
}

/// Summaries per die size, over die draws only (shuffles are not faces).
pub fn summarize<'a>(draws: impl IntoIterator<Item = &'a Draw>) -> Vec<DieSummary> {
    let mut by: BTreeMap<u32, Vec<u64>> = BTreeMap::new();
    for d in draws.into_iter().filter(|d| d.kind == DrawKind::Die) {
        let c = by.entry(d.sides).or_insert_with(|| vec![0; d.sides as usize]);
        for &f in &d.result {
            if f >= 1 && f <= d.sides {
                c[f as usize - 1] += 1;
            }
        }
    }
    by.into_iter()
        .map(|(sides, counts)| {
            let rolls: u64 = counts.iter().sum();
            let chi = chi_square(&counts);
            let p = if rolls == 0 { 1.0 } else { chi_square_p(chi, sides as f64 - 1.0) };
            DieSummary { sides, rolls, counts, chi_square: chi, p_value: p }
        })
        .collect()
}

/// Pearson's statistic against equal expected counts.
pub fn chi_square(counts: &[u64]) -> f64 {
    let total: u64 = counts.iter().sum();
    if total == 0 || counts.is_empty() {
        return 0.0;
    }
    let e = total as f64 / counts.len() as f64;
    counts.iter().map(|&c| (c as f64 - e).powi(2) / e).sum()
}

/// Upper tail probability of the chi-square distribution with `dof` degrees
/// of freedom: `Q(dof/2, x/2)`, the regularized upper incomplete gamma.
pub fn chi_square_p(x: f64, dof: f64) -> f64 {
    if x <= 0.0 || dof <= 0.0 {
        return 1.0;
    }
    gamma_q(dof / 2.0, x / 2.0)
}

fn ln_gamma(x: f64) -> f64 {
    // Lanczos approximation (g = 7, n = 9), accurate to ~1e-15 for x > 0.
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        let pi = std::f64::consts::PI;
        return (pi / (pi * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut a = C[0];
    let t = x + 7.5;
    for (i, c) in C.iter().enumerate().skip(1) {
        a += c / (x + i as f64);
    }
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

fn gamma_q(a: f64, x: f64) -> f64 {
    if x < a + 1.0 {
        // Series for P, then Q = 1 - P.
        let mut sum = 1.0 / a;
        let mut term = sum;
        let mut n = a;
        for _ in 0..500 {
            n += 1.0;
            term *= x / n;
            sum += term;
            if term.abs() < sum.abs() * 1e-15 {
                break;
            }
        }
        1.0 - sum * (-x + a * x.ln() - ln_gamma(a)).exp()
    } else {
        // Continued fraction for Q (modified Lentz).
        let tiny = 1e-300;
        let mut b = x + 1.0 - a;
        let mut c = 1.0 / tiny;
        let mut d = 1.0 / b;
        let mut h = d;
        for i in 1..500 {
            let an = -(i as f64) * (i as f64 - a);
            b += 2.0;
            d = an * d + b;
            if d.abs() < tiny {
                d = tiny;
            }
            c = b + an / c;
            if c.abs() < tiny {
                c = tiny;
            }
            d = 1.0 / d;
            let del = d * c;
            h *= del;
            if (del - 1.0).abs() < 1e-15 {
                break;
            }
        }
        (-x + a * x.ln() - ln_gamma(a)).exp() * h
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn p_values_match_tables() {
        // Critical values from any chi-square table.
        assert!((chi_square_p(11.070, 5.0) - 0.05).abs() < 1e-3);
        assert!((chi_square_p(15.086, 5.0) - 0.01).abs() < 1e-3);
        assert!((chi_square_p(3.841, 1.0) - 0.05).abs() < 1e-3);
        assert!((chi_square_p(4.351, 5.0) - 0.50).abs() < 1e-2);
    }

    #[test]
    fn fair_counts_give_zero_statistic() {
        assert_eq!(chi_square(&[10, 10, 10, 10, 10, 10]), 0.0);
        assert!(chi_square(&[60, 0, 0, 0, 0, 0]) > 100.0);
    }
}
