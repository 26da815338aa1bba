//! Reading an order line: its verb, keywords in any letter case (docs/mail.md),
//! the text between keywords, comma lists and numbers in a range. Names
//! are matched by `names::find`. Every ruleset reads its lines with these,
//! so no game strips a keyword by hand in one letter case or two.

use super::names;
use crate::engine::Problem;
use std::ops::RangeInclusive;

/// An order line: its verb (upper case) and what follows, trimmed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line<'a> {
    pub verb: &'a str,
    pub rest: &'a str,
}

impl<'a> Line<'a> {
    /// Split a line at its first word; `None` for an empty line.
    pub fn new(line: &'a str) -> Option<Line<'a>> {
        let line = line.trim();
        let (verb, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        (!verb.is_empty()).then_some(Line { verb, rest: rest.trim() })
    }

    /// The verb as a keyword, for matching against a ruleset's words.
    pub fn key(&self) -> String {
        word(self.verb)
    }
}

/// A word as a keyword is matched: upper case, accents dropped ("Màyor"
/// is MAYOR).
pub fn word(w: &str) -> String {
    names::fold(w).to_uppercase()
}

/// `text` without a leading keyword `kw` (any letter case, accents
/// ignored, a whole word), or `None` if it does not start with it.
pub fn keyword<'a>(text: &'a str, kw: &str) -> Option<&'a str> {
    let t = text.trim_start();
    let (first, rest) = t.split_once(char::is_whitespace).unwrap_or((t, ""));
    (!first.is_empty() && names::fold(first) == names::fold(kw)).then_some(rest.trim())
}

/// `text` without a leading keyword `kw` if it has one, else `text`: for
/// optional words (`FIRE DUTY <unit>` or `FIRE <unit>`, `ESCAPE TO X`).
pub fn optional<'a>(text: &'a str, kw: &str) -> &'a str {
    keyword(text, kw).unwrap_or(text.trim())
}

/// Split at the last standalone keyword `kw` (any letter case): ("Provera,
/// Liptay", "Verona") for "Provera, Liptay TO Verona". The last, so a name
/// that holds the word ("Castel to Nord") still splits at the keyword.
pub fn split<'a>(text: &'a str, kw: &str) -> Option<(&'a str, &'a str)> {
    split_at(text, kw, true)
}

/// Split at the first (or `last`) standalone keyword `kw`, any letter case.
fn split_at<'a>(text: &'a str, kw: &str, last: bool) -> Option<(&'a str, &'a str)> {
    // ASCII lowercasing keeps byte offsets (full Unicode lowercasing can
    // change a character's length and slice the text off a boundary).
    let lower = format!(" {} ", text.to_ascii_lowercase());
    let pat = format!(" {} ", kw.to_ascii_lowercase());
    let i = if last { lower.rfind(&pat)? } else { lower.find(&pat)? };
    // `i` indexes the padded text: one byte ahead of `text`.
    let before = text.get(..i.saturating_sub(1)).unwrap_or("");
    let after = text.get((i + pat.len()).saturating_sub(1).min(text.len())..).unwrap_or("");
    Some((before.trim(), after.trim()))
}

/// A comma (or semicolon) list, empty items dropped.
pub fn list(text: &str) -> Vec<&str> {
    text.split([',', ';']).map(str::trim).filter(|x| !x.is_empty()).collect()
}

/// A comma list where "and" also separates ("Provera and Liptay"), for
/// games whose names never hold the word.
pub fn list_and(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for item in list(text) {
        let mut rest = item;
        while let Some((a, b)) = split_at(rest, "and", false) {
            if !a.is_empty() {
                out.push(a);
            }
            rest = b;
        }
        if !rest.is_empty() {
            out.push(rest);
        }
    }
    out
}

/// A whole number in `range` (a leading `+` allowed); `what` names it in
/// the problem.
pub fn number(text: &str, range: RangeInclusive<i32>, what: &str) -> Result<i32, Problem> {
    text.trim().trim_start_matches('+').parse::<i32>().ok().filter(|n| range.contains(n)).ok_or_else(|| {
        Problem::new(format!("{:?} is not a number for {what} ({} to {})", text.trim(), range.start(), range.end()))
            .hint(format!("write a whole number from {} to {}", range.start(), range.end()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keywords_in_any_case() {
        assert_eq!(keyword("Duty Garrison Sappers", "DUTY"), Some("Garrison Sappers"));
        assert_eq!(keyword("dUTY  x", "duty"), Some("x"));
        assert_eq!(keyword("Dutyful x", "duty"), None);
        assert_eq!(optional("Garrison Sappers", "DUTY"), "Garrison Sappers");
        assert_eq!(split("Provera, Liptay To Verona", "TO"), Some(("Provera, Liptay", "Verona")));
        assert_eq!(split("a to b TO c", "to"), Some(("a to b", "c")));
        assert_eq!(split("Salò TO Brescia", "to"), Some(("Salò", "Brescia")));
        assert_eq!(split("TO Verona", "to"), Some(("", "Verona")));
        assert_eq!(split("Verona", "to"), None);
        let l = Line::new("  move  Provera TO Piave ").unwrap();
        assert_eq!((l.key().as_str(), l.rest), ("MOVE", "Provera TO Piave"));
        assert_eq!(Line::new("   "), None);
    }

    #[test]
    fn lists_and_numbers() {
        assert_eq!(list("a, b;; c ,"), ["a", "b", "c"]);
        assert_eq!(list_and("Provera AND Liptay, Alvinczi and Wurmser"), ["Provera", "Liptay", "Alvinczi", "Wurmser"]);
        assert_eq!(list_and("Anderson"), ["Anderson"]);
        assert_eq!(number("+2", -9..=9, "x"), Ok(2));
        assert!(number("12", -9..=9, "x").is_err());
        assert!(number("-2147483648", -999..=999, "x").is_err());
    }
}
