//! Results tables as data (`games/<game>/*.toml`): an odds table whose
//! columns are force ratios ("1-5" … "6-1") and whose rows are a modified
//! die, with the ratio rule, the clamping and the reading past the last
//! row stated in the data; its letter results parsed into the game's own
//! enum; and threshold rolls ("2d6 ≤ CC; 12 always fails").

use serde::{Deserialize, Serialize};
use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::str::FromStr;

/// How a ratio between two columns is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Rounding {
    /// Down to the column at or below the ratio (11:3 is 3-1, never 4-1).
    Defender,
    /// Up to the column at or above it.
    Attacker,
}

/// How a modified die past the printed rows is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Beyond {
    /// The first or last row.
    LastRow,
}

/// An odds table: `columns` are ratios `a-b`, `rows` map a die value to
/// one cell a column.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OddsTable {
    pub columns: Vec<String>,
    pub rounding: Rounding,
    pub beyond: Beyond,
    pub rows: BTreeMap<String, Vec<String>>,
}

/// One reading of the table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reading<R> {
    /// The column as printed ("3-1").
    pub column: String,
    /// The row read (after reading past the ends).
    pub row: i32,
    pub result: R,
}

impl OddsTable {
    /// Every column a ratio, every row a number with one cell a column,
    /// every cell a result of `R`: checked when the data is loaded.
    pub fn check<R: FromStr>(&self) -> Result<(), String> {
        if self.columns.is_empty() || self.rows.is_empty() {
            return Err("an odds table needs columns and rows".into());
        }
        let mut last = None;
        for c in &self.columns {
            let r = ratio(c).ok_or_else(|| format!("column {c:?} is not a ratio like 3-1"))?;
            if let Some(l) = last {
                if cmp(l, r) != Ordering::Less {
                    return Err(format!("column {c:?} is not above the one before it"));
                }
            }
            last = Some(r);
        }
        for (die, cells) in &self.rows {
            die.parse::<i32>().map_err(|_| format!("row {die:?} is not a die value"))?;
            if cells.len() != self.columns.len() {
                return Err(format!("row {die} has {} cells for {} columns", cells.len(), self.columns.len()));
            }
            for c in cells {
                c.parse::<R>().map_err(|_| format!("row {die}: {c:?} is not a result"))?;
            }
        }
        Ok(())
    }

    /// The column of `attack` against `defence` by the table's rule,
    /// clamped to the first and last columns.
    pub fn column(&self, attack: u32, defence: u32) -> usize {
        let x = (attack as u64, defence.max(1) as u64);
        let cols: Vec<(u64, u64)> = self.columns.iter().filter_map(|c| ratio(c)).collect();
        let at_or_below = cols.iter().rposition(|&c| cmp(c, x) != Ordering::Greater);
        let at_or_above = cols.iter().position(|&c| cmp(c, x) != Ordering::Less);
        match self.rounding {
            Rounding::Defender => at_or_below.unwrap_or(0),
            Rounding::Attacker => at_or_above.unwrap_or(cols.len() - 1),
        }
    }

    /// Read the table for `attack` against `defence` with a modified die.
    pub fn read<R: FromStr>(&self, attack: u32, defence: u32, die: i32) -> Result<Reading<R>, String> {
        let col = self.column(attack, defence);
        let rows: Vec<i32> = self.rows.keys().filter_map(|k| k.parse().ok()).collect();
        let (lo, hi) = (*rows.iter().min().unwrap_or(&1), *rows.iter().max().unwrap_or(&1));
        let row = match self.beyond {
            Beyond::LastRow => die.clamp(lo, hi),
        };
        let cell = self
            .rows
            .iter()
            .find(|(k, _)| k.parse::<i32>().ok() == Some(row))
            .and_then(|(_, v)| v.get(col))
            .ok_or_else(|| format!("no row {row} in the table"))?;
        let result = cell.parse::<R>().map_err(|_| format!("{cell:?} is not a result"))?;
        Ok(Reading { column: self.columns[col].clone(), row, result })
    }
}

/// `"3-1"` as (3, 1).
fn ratio(c: &str) -> Option<(u64, u64)> {
    let (a, b) = c.trim().split_once('-')?;
    let (a, b) = (a.trim().parse().ok()?, b.trim().parse().ok()?);
    (b > 0).then_some((a, b))
}

/// Compare a/b with c/d exactly.
fn cmp((a, b): (u64, u64), (c, d): (u64, u64)) -> Ordering {
    (a * d).cmp(&(c * b))
}

/// A roll against a target ("2d6 ≤ CC"), with rolls that succeed or fail
/// whatever the target (a 12 always fails).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Threshold {
    #[serde(default)]
    pub always_fails: Vec<i32>,
    #[serde(default)]
    pub always_succeeds: Vec<i32>,
}

impl Threshold {
    /// Does `roll` (already modified) succeed at or under `target`?
    pub fn at_most(&self, roll: i32, target: i32) -> bool {
        if self.always_fails.contains(&roll) {
            false
        } else {
            self.always_succeeds.contains(&roll) || roll <= target
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ducs' results, as the game's own enum would read them.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum R {
        Ae,
        Ar,
        Ex,
        Dr,
        De,
    }

    impl FromStr for R {
        type Err = ();
        fn from_str(s: &str) -> Result<R, ()> {
            Ok(match s.to_ascii_uppercase().as_str() {
                "AE" => R::Ae,
                "AR" => R::Ar,
                "EX" => R::Ex,
                "DR" => R::Dr,
                "DE" => R::De,
                _ => return Err(()),
            })
        }
    }

    fn crt() -> OddsTable {
        toml::from_str(
            r#"
columns = ["1-5","1-4","1-3","1-2","1-1","2-1","3-1","4-1","5-1","6-1"]
rounding = "defender"
beyond = "last-row"
[rows]
"1" = ["AR","AR","DR","DR","DR","DR","DR","DE","DE","DE"]
"2" = ["AE","AR","AR","DR","DR","DR","DR","DR","DE","DE"]
"3" = ["AE","AE","AR","AR","EX","DR","DR","DR","DR","DE"]
"4" = ["AE","AE","AE","AR","AR","EX","DR","DR","DR","DR"]
"5" = ["AE","AE","AE","AE","AR","AR","EX","EX","DR","DR"]
"6" = ["AE","AE","AE","AE","AE","AR","AR","EX","EX","DR"]
"#,
        )
        .unwrap()
    }

    #[test]
    fn ducs_odds_in_the_defenders_favour_clamped() {
        let t = crt();
        t.check::<R>().unwrap();
        // The brief's cases: 11:3 is 3-1 (never 4-1); 2:9 is 1-5; 14:2 is
        // 6-1; 1:6 is 1-5.
        let r = t.read::<R>(11, 3, 1).unwrap();
        assert_eq!((r.column.as_str(), r.result), ("3-1", R::Dr));
        assert_eq!(t.read::<R>(2, 9, 2).unwrap().result, R::Ae);
        assert_eq!(t.read::<R>(2, 9, 2).unwrap().column, "1-5");
        assert_eq!(t.read::<R>(14, 2, 1).unwrap().column, "6-1");
        assert_eq!(t.read::<R>(1, 6, 2).unwrap().column, "1-5");
        assert_eq!(t.read::<R>(3, 3, 3).unwrap().result, R::Ex);
        // A die modified past the rows reads the last (or first) row.
        assert_eq!(t.read::<R>(3, 3, 9).unwrap().row, 6);
        assert_eq!(t.read::<R>(3, 3, -1).unwrap().row, 1);
        let up = OddsTable { rounding: Rounding::Attacker, ..t.clone() };
        assert_eq!(up.read::<R>(11, 3, 1).unwrap().column, "4-1");
        assert_eq!(up.read::<R>(14, 2, 1).unwrap().column, "6-1");
    }

    #[test]
    fn bad_tables_are_refused_by_name() {
        let mut t = crt();
        t.rows.get_mut("3").unwrap().pop();
        assert!(t.check::<R>().unwrap_err().contains("row 3 has 9 cells"));
        let mut t = crt();
        t.rows.get_mut("2").unwrap()[0] = "XX".into();
        assert!(t.check::<R>().unwrap_err().contains("\"XX\" is not a result"));
        let mut t = crt();
        t.columns.swap(0, 1);
        assert!(t.check::<R>().unwrap_err().contains("not above"));
    }

    #[test]
    fn thresholds() {
        let cat = Threshold { always_fails: vec![12], always_succeeds: vec![] };
        assert!(cat.at_most(7, 7));
        assert!(!cat.at_most(8, 7));
        assert!(!cat.at_most(12, 12));
    }
}
