//! Paths into a game's state as TOML, written the way the state names
//! things: tables by key, arrays of named items by name, other arrays by
//! position, and a quoted segment for a key that holds dots (`hexes."0705"`,
//! `units."S.Maria".hex`). Cases and set-up patches use them.

/// Deep-merge `patch` into `base`: tables merge key by key; an array of
/// tables whose items have a `name` merges item by item on that name (new
/// names are appended); anything else is replaced.
pub fn merge(base: &mut toml::Table, patch: &toml::Table) {
    for (k, pv) in patch {
        match (base.get_mut(k), pv) {
            (Some(toml::Value::Table(bt)), toml::Value::Table(pt)) => merge(bt, pt),
            (Some(toml::Value::Array(ba)), toml::Value::Array(pa))
                if pa.iter().all(|v| v.get("name").is_some()) && !pa.is_empty() =>
            {
                for item in pa {
                    let name = item.get("name");
                    match ba.iter_mut().find(|b| b.get("name") == name) {
                        Some(toml::Value::Table(bt)) => {
                            if let toml::Value::Table(it) = item {
                                merge(bt, it);
                            }
                        }
                        _ => ba.push(item.clone()),
                    }
                }
            }
            _ => {
                base.insert(k.clone(), pv.clone());
            }
        }
    }
}

/// One segment of a path: a key, a name, or (unquoted and a number, where
/// no item bears it as a name) a position in an array.
#[derive(Debug, PartialEq)]
pub struct Seg {
    pub text: String,
    quoted: bool,
}

/// Split a dotted path into its segments; a segment in double quotes may
/// hold dots, and is always a key or a name.
pub fn segments(path: &str) -> Result<Vec<Seg>, String> {
    let mut out = Vec::new();
    let mut rest = path;
    loop {
        let (seg, after) = if let Some(q) = rest.strip_prefix('"') {
            let close = q.find('"').ok_or_else(|| format!("{path:?}: a quote is never closed"))?;
            (Seg { text: q[..close].to_string(), quoted: true }, &q[close + 1..])
        } else {
            let end = rest.find('.').unwrap_or(rest.len());
            (Seg { text: rest[..end].to_string(), quoted: false }, &rest[end..])
        };
        if seg.text.is_empty() {
            return Err(format!("{path:?}: an empty segment"));
        }
        out.push(seg);
        match after.strip_prefix('.') {
            Some(r) => rest = r,
            None if after.is_empty() => return Ok(out),
            None => return Err(format!("{path:?}: a quoted segment must end at a dot")),
        }
    }
}

fn index_of(a: &[toml::Value], seg: &Seg) -> Option<usize> {
    let named = a.iter().position(|x| x.get("name").and_then(|n| n.as_str()) == Some(seg.text.as_str()));
    match named {
        Some(i) => Some(i),
        None if seg.quoted => None,
        None => seg.text.parse::<usize>().ok().filter(|&n| n < a.len()),
    }
}

/// Look a dotted path up in a TOML value; a segment indexes an array of
/// tables by their `name` (or by position, if numeric).
pub fn lookup<'a>(v: &'a toml::Value, path: &str) -> Option<&'a toml::Value> {
    let mut cur = v;
    for seg in segments(path).ok()? {
        cur = match cur {
            toml::Value::Table(t) => t.get(&seg.text)?,
            toml::Value::Array(a) => &a[index_of(a, &seg)?],
            _ => return None,
        };
    }
    Some(cur)
}

/// Set the value at a dotted path: every segment but the last must exist,
/// and the last may add a key to a table (a field the state leaves out
/// when empty) but not an item to an array.
pub fn set(t: &mut toml::Table, path: &str, value: toml::Value) -> Result<(), String> {
    let segs = segments(path)?;
    let (last, inner) = segs.split_last().ok_or_else(|| format!("{path:?}: an empty path"))?;
    if inner.is_empty() {
        t.insert(last.text.clone(), value);
        return Ok(());
    }
    let first = &segs[0].text;
    let mut cur: &mut toml::Value = t.get_mut(first).ok_or_else(|| format!("{path}: no {first:?} in the state"))?;
    for seg in &inner[1..] {
        cur = match cur {
            toml::Value::Table(t) => t.get_mut(&seg.text),
            toml::Value::Array(a) => index_of(a, seg).and_then(|i| a.get_mut(i)),
            _ => None,
        }
        .ok_or_else(|| format!("{path}: nothing at {:?}", seg.text))?;
    }
    match cur {
        toml::Value::Table(t) => {
            t.insert(last.text.clone(), value);
        }
        toml::Value::Array(a) => {
            let i = index_of(a, last).ok_or_else(|| format!("{path}: no item {:?}", last.text))?;
            a[i] = value;
        }
        _ => return Err(format!("{path}: a plain value holds no {:?}", last.text)),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_segments_hold_dots() {
        let texts = |p: &str| segments(p).unwrap().into_iter().map(|s| s.text).collect::<Vec<_>>();
        assert_eq!(texts(r#"units."S.Maria".hex"#), ["units", "S.Maria", "hex"]);
        assert_eq!(texts(r#"hexes."0705""#), ["hexes", "0705"]);
        assert!(segments(r#"a."b"c"#).is_err() && segments("a..b").is_err() && segments(r#"a."b"#).is_err());
    }

    #[test]
    fn set_one_cell_and_one_field() {
        let mut t: toml::Table = toml::from_str(
            "crt = { rows = { \"1\" = [\"AR\", \"DR\"] } }\nunits = [{ name = \"S.Maria\", hex = \"0101\", hits = 0 }]",
        )
        .unwrap();
        set(&mut t, r#"crt.rows."1".1"#, "DE".into()).unwrap();
        set(&mut t, r#"units."S.Maria".hex"#, "0202".into()).unwrap();
        let v = toml::Value::Table(t.clone());
        assert_eq!(lookup(&v, "crt.rows.1.1").unwrap().as_str(), Some("DE"));
        assert_eq!(lookup(&v, "crt.rows.1.0").unwrap().as_str(), Some("AR"));
        assert_eq!(lookup(&v, r#"units."S.Maria".hex"#).unwrap().as_str(), Some("0202"));
        assert_eq!(lookup(&v, r#"units."S.Maria".hits"#).unwrap().as_integer(), Some(0));
        assert!(set(&mut t, "crt.rows.1.5", "DE".into()).is_err(), "no seventh cell");
        assert!(set(&mut t, "nothing.here", 1.into()).is_err());
        let hexes: toml::Value =
            toml::from_str("h = [{ name = \"0002\" }, { name = \"0001\" }, { name = \"x\" }]").unwrap();
        assert_eq!(lookup(&hexes, "h.0001.name").unwrap().as_str(), Some("0001"), "a name before a position");
        assert_eq!(lookup(&hexes, "h.2.name").unwrap().as_str(), Some("x"), "a number no item bears places");
        assert_eq!(lookup(&hexes, r#"h."0002".name"#).unwrap().as_str(), Some("0002"));
        assert!(lookup(&hexes, r#"h."2".name"#).is_none(), "a quoted segment only names");
    }
}
