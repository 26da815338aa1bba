//! Matching what a player typed to a place or unit name: case- and
//! accent-insensitive, unambiguous prefixes accepted, a "did you mean" for
//! near misses.

use crate::engine::Problem;

/// Lowercase, accents removed, runs of anything but letters and digits
/// squeezed to one space.
pub fn fold(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    fold_into(s, &mut out);
    out
}

/// [`fold`], into an empty `out` (a space is put between words only once
/// `out` holds one).
fn fold_into(s: &str, out: &mut String) {
    debug_assert!(out.is_empty());
    let mut gap = false;
    // Most names and orders are ASCII: folded a byte at a time, the same
    // as below without the Unicode tables (every order names a few places
    // among a map's dozens, each folded).
    if s.is_ascii() {
        for b in s.bytes() {
            if b.is_ascii_alphanumeric() {
                if gap && !out.is_empty() {
                    out.push(' ');
                }
                gap = false;
                out.push(b.to_ascii_lowercase() as char);
            } else {
                gap = true;
            }
        }
        return;
    }
    for c in s.chars().flat_map(|c| c.to_lowercase()) {
        let c = match c {
            'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' => 'a',
            'è' | 'é' | 'ê' | 'ë' => 'e',
            'ì' | 'í' | 'î' | 'ï' => 'i',
            'ò' | 'ó' | 'ô' | 'õ' | 'ö' => 'o',
            'ù' | 'ú' | 'û' | 'ü' => 'u',
            'ç' => 'c',
            'ñ' => 'n',
            'ý' | 'ÿ' => 'y',
            c => c,
        };
        if c.is_alphanumeric() {
            if gap && !out.is_empty() {
                out.push(' ');
            }
            gap = false;
            out.push(c);
        } else {
            gap = true;
        }
    }
}

/// Find `query` among `names` (index). `what` names the kind of thing for
/// the error ("place", "block").
pub fn find(names: &[&str], query: &str, what: &str) -> Result<usize, Problem> {
    let q = fold(query);
    if q.is_empty() {
        return Err(Problem::new(format!("a {what} name is missing")));
    }
    // An order names its places exactly nearly always: each name folded in
    // turn into one buffer until one matches, before the table of them all
    // that a prefix or a near miss needs.
    let mut buf = String::new();
    for (i, n) in names.iter().enumerate() {
        buf.clear();
        fold_into(n, &mut buf);
        if buf == q {
            return Ok(i);
        }
    }
    let folded: Vec<String> = names.iter().map(|n| fold(n)).collect();
    let prefixed: Vec<usize> = (0..names.len()).filter(|&i| folded[i].starts_with(&q)).collect();
    match prefixed.len() {
        1 => return Ok(prefixed[0]),
        0 => {}
        _ => {
            let list: Vec<&str> = prefixed.iter().map(|&i| names[i]).collect();
            return Err(Problem::new(format!("{query:?} could be any of: {}", list.join(", ")))
                .hint(format!("write more of the {what} name")));
        }
    }
    let best = (0..names.len()).min_by_key(|&i| distance(&folded[i], &q));
    let mut p = Problem::new(format!("no {what} is called {query:?}"));
    if let Some(i) = best {
        if distance(&folded[i], &q) <= 2 + q.len() / 4 {
            p = p.hint(format!("did you mean {}?", names[i]));
        }
    }
    Err(p)
}

/// [`find`] where each of `names` also answers to the label a player sees
/// for it on a map or in a table (`labels[i]`, "" for none): a label is
/// read exactly (letter case aside), and a near miss of one gets it
/// suggested with the name it stands for.
pub fn find_labelled(names: &[&str], labels: &[&str], query: &str, what: &str) -> Result<usize, Problem> {
    let q = fold(query);
    if let Some(i) = labels.iter().position(|l| !l.is_empty() && fold(l) == q) {
        return Ok(i);
    }
    let p = match find(names, query, what) {
        Ok(i) => return Ok(i),
        Err(p) => p,
    };
    if p.suggestion.is_some() {
        return Err(p);
    }
    let near = labels
        .iter()
        .enumerate()
        .filter(|(_, l)| !l.is_empty())
        .map(|(i, l)| (distance(&fold(l), &q), i))
        .min()
        .filter(|(d, _)| *d <= 1 + q.chars().count() / 4);
    match near {
        Some((_, i)) => Err(p.hint(format!("did you mean {} ({})?", labels[i], names[i]))),
        None => Err(p),
    }
}

/// Does a line of a reply look like an order attempt (docs/mail.md)? Its first
/// word is one of `verbs` or a near miss of one (a typo: one edit in a word
/// of four letters or more, two in one of seven or more), or it names one
/// of `names` (anywhere, as whole words), or its first word begins one of
/// them. Anything else is free text the desk ignores and quotes back.
pub fn order_attempt(line: &str, verbs: &[String], names: &[String]) -> bool {
    let folded = fold(line);
    let Some(first) = folded.split(' ').next().filter(|w| !w.is_empty()) else { return false };
    let close = |w: &str, v: &str| {
        let n = w.chars().count();
        let d = distance(w, v);
        d == 0 || (n >= 4 && d <= 1) || (n >= 7 && d <= 2) || (n >= 4 && transposed(w, v))
    };
    if verbs.iter().any(|v| close(first, &fold(v))) {
        return true;
    }
    let padded = format!(" {folded} ");
    names
        .iter()
        .map(|n| fold(n))
        .filter(|n| !n.is_empty())
        .any(|n| padded.contains(&format!(" {n} ")) || (first.chars().count() >= 4 && n.starts_with(first)))
}

/// Two words that differ by one swap of neighbouring letters ("MVOE").
fn transposed(a: &str, b: &str) -> bool {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    if a.len() != b.len() {
        return false;
    }
    let diff: Vec<usize> = (0..a.len()).filter(|&i| a[i] != b[i]).collect();
    matches!(diff.as_slice(), [i, j] if *j == i + 1 && a[*i] == b[*j] && a[*j] == b[*i])
}

/// Levenshtein distance in characters.
pub fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for j in 0..b.len() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != b[j])).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accents_case_and_prefixes() {
        let names = ["Masséna", "Augereau", "Mantova", "Salò"];
        assert_eq!(find(&names, "massena", "block"), Ok(0));
        assert_eq!(find(&names, "SALO", "place"), Ok(3));
        assert_eq!(find(&names, "aug", "block"), Ok(1));
        assert!(find(&names, "Ma", "place").unwrap_err().reason.contains("could be any"));
        let e = find(&names, "Mantva", "place").unwrap_err();
        assert_eq!(e.suggestion.as_deref(), Some("did you mean Mantova?"));
    }

    #[test]
    fn ascii_and_unicode_fold_alike() {
        // The first of each pair takes the ASCII path, the second (one
        // accented word more) the other.
        for (a, u, last) in [("  Sant'Egidio -- X2 ", "  Sant'Egidio -- X2 é", "e"), ("MOVE a,b", "MOVE a,b Ñ", "n")]
        {
            assert_eq!(fold(u), format!("{} {last}", fold(a)));
        }
        assert_eq!(fold("  Sant'Egidio -- X2 "), "sant egidio x2");
        assert_eq!(fold("Salò, L'AQUILA"), "salo l aquila");
    }

    #[test]
    fn order_attempts_and_free_text() {
        let verbs: Vec<String> = ["PLACE", "MOVE", "PASS", "END", "HELP", "STRENGTHEN"].map(String::from).into();
        let names: Vec<String> = ["Provera", "Davidovich"].map(String::from).into();
        let attempt = |l: &str| order_attempt(l, &verbs, &names);
        for l in [
            "move Provera TO Piave",
            "MVOE Provera TO Piave",
            "Plase Davidovich AT Riva",
            "STRENGHTEN Provera",
            "Provera TO Piave",
            "Provera to Piave",
            "davidovich AT Riva",
            "I'd like to move Provera, please",
            "Prov TO Piave",
        ] {
            assert!(attempt(l), "{l} should be an attempt");
        }
        for l in
            ["Hi,", "Hi adjutant, here are my orders:", "Thanks!", "Alice", "Cheers, Alice", "And that's all", "Best"]
        {
            assert!(!attempt(l), "{l} should be free text");
        }
    }
}
