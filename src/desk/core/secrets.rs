//! A game's dice secrets: the top of every stream's hash chain (and of
//! each renewal's), with every hundredth link kept as a checkpoint, and
//! the players' reply tokens. Kept in the game's `secrets.toml` (0600) by
//! the shell; the links are worked out here. No I/O.

use crate::dice;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Secrets {
    /// Stream to chain top `x[σ][L]`, in hex: the first chains, for steps
    /// 1 to L.
    pub tops: BTreeMap<String, String>,
    /// Role (or "gm") to reply token.
    pub tokens: BTreeMap<String, String>,
    /// Every hundredth link of each chain (links 100, 200, ...), so that a
    /// link costs at most 100 hashes instead of up to the chain's length.
    #[serde(default)]
    pub checkpoints: BTreeMap<String, Vec<String>>,
    /// The chains committed when the ones before ran out (docs/dice-v1.md, Commitment), in
    /// order: each serves the L steps after its base.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub renewals: Vec<Chain>,
}

/// The chains of every stream for the L steps after `base`: step
/// `base + i` uses link `i`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Chain {
    pub base: u32,
    pub tops: BTreeMap<String, String>,
    #[serde(default)]
    pub checkpoints: BTreeMap<String, Vec<String>>,
}

/// Checkpoint spacing in [`Secrets::checkpoints`].
pub const CHECKPOINT: u32 = 100;

/// Every hundredth link of the chain of length `len` below `top`.
fn checkpoints_of(top: &dice::Link, len: u32) -> Vec<String> {
    let mut cps = vec![String::new(); (len / CHECKPOINT) as usize];
    // Walk down from the top: `x` is link k at each turn.
    let mut x = *top;
    for k in (1..=len).rev() {
        if k.is_multiple_of(CHECKPOINT) {
            cps[(k / CHECKPOINT) as usize - 1] = dice::to_hex(&x);
        }
        x = dice::sha256(&x);
    }
    cps
}

/// Link `i` of `stream`'s chain of length `len`, from its top and
/// checkpoints.
fn chain_link(
    tops: &BTreeMap<String, String>,
    checkpoints: &BTreeMap<String, Vec<String>>,
    stream: &str,
    len: u32,
    i: u32,
) -> Option<dice::Link> {
    let top = dice::from_hex(tops.get(stream)?)?;
    if i > len {
        return None;
    }
    // The nearest checkpoint at or above i: link m, hashed m - i times.
    let m = i.div_ceil(CHECKPOINT) * CHECKPOINT;
    if m >= 1 && m <= len {
        let cp = checkpoints.get(stream).and_then(|c| c.get((m / CHECKPOINT - 1) as usize));
        if let Some(x) = cp.and_then(|h| dice::from_hex(h)) {
            return Some(dice::link_at(&x, m, i));
        }
    }
    Some(dice::link_at(&top, len, i))
}

impl Secrets {
    /// Record the chain top of `stream` and its checkpoints.
    pub fn add_chain(&mut self, stream: &str, top: &dice::Link, len: u32) {
        self.tops.insert(stream.to_string(), dice::to_hex(top));
        self.checkpoints.insert(stream.to_string(), checkpoints_of(top, len));
    }

    /// Record the chains that serve the `len` steps after `base` (a
    /// renewal done again after a crash replaces the one never journaled).
    pub fn renew(&mut self, base: u32, tops: &BTreeMap<String, dice::Link>, len: u32) {
        self.renewals.retain(|c| c.base != base);
        self.renewals.push(Chain {
            base,
            tops: tops.iter().map(|(s, t)| (s.clone(), dice::to_hex(t))).collect(),
            checkpoints: tops.iter().map(|(s, t)| (s.clone(), checkpoints_of(t, len))).collect(),
        });
    }

    /// Link `k` of `stream`'s first chain of length `len` (0: its anchor).
    pub fn link(&self, stream: &str, len: u32, k: u32) -> Option<dice::Link> {
        chain_link(&self.tops, &self.checkpoints, stream, len, k)
    }

    /// The link step `k` (1, 2, …) of `stream` uses, from whichever chain
    /// serves that step; None when no chain does.
    pub fn step_link(&self, stream: &str, len: u32, k: u32) -> Option<dice::Link> {
        let base = chain_base(len, k);
        if base == 0 {
            return self.link(stream, len, k);
        }
        let c = self.renewals.iter().find(|c| c.base == base)?;
        chain_link(&c.tops, &c.checkpoints, stream, len, k - base)
    }
}

/// The base of the chain that serves step `k` (≥ 1) with chains of `len`.
pub fn chain_base(len: u32, k: u32) -> u32 {
    (k.max(1) - 1) / len.max(1) * len.max(1)
}

/// Every link of every stream up to step `k`, from the secrets: what the
/// end of a game reveals (across renewals).
pub fn links_upto(sec: &Secrets, chain_len: u32, k: u32) -> BTreeMap<String, Vec<String>> {
    sec.tops
        .keys()
        .map(|s| {
            let links = (1..=k).map_while(|i| sec.step_link(s, chain_len, i)).map(|l| dice::to_hex(&l)).collect();
            (s.clone(), links)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checkpoints_give_the_same_links() {
        let mut sec = Secrets::default();
        let top = dice::sha256(b"t");
        sec.add_chain("public", &top, 1000);
        for k in [0, 1, 99, 100, 101, 250, 999, 1000] {
            assert_eq!(sec.link("public", 1000, k), Some(dice::link_at(&top, 1000, k)), "link {k}");
        }
        let later = dice::sha256(b"u");
        sec.renew(1000, &BTreeMap::from([("public".to_string(), later)]), 1000);
        assert_eq!(sec.step_link("public", 1000, 1000), Some(dice::link_at(&top, 1000, 1000)));
        assert_eq!(sec.step_link("public", 1000, 1001), Some(dice::link_at(&later, 1000, 1)));
        assert_eq!(sec.step_link("public", 1000, 2000), Some(later));
        assert_eq!(sec.step_link("public", 1000, 2001), None, "no chain for a third thousand");
        assert_eq!(links_upto(&sec, 1000, 1500)["public"].len(), 1500);
        let all = links_upto(&sec, 1000, 5);
        assert_eq!(all["public"].len(), 5);
        assert_eq!(all["public"][0], dice::to_hex(&dice::link_at(&top, 1000, 1)));
        assert_eq!(all["public"][4], dice::to_hex(&dice::link_at(&top, 1000, 5)));
    }
}
