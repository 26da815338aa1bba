//! Verifiable dice, scheme `dice-v1` (docs/dice-v1.md): hash-chain
//! commitments, seed derivation, and the draws made from a seeded stream.
//!
//! Nothing here touches the OS RNG or the clock: the chain tops are handed in
//! by the desk, so every function is a pure function of its inputs and an old
//! journal replays forever.

pub mod luck;
pub mod stats;

use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::fmt;

/// The scheme's name, mixed into every seed so another scheme can never
/// produce the same stream from the same links.
pub const SCHEME: &str = "adjutant/dice-v1";

/// Default number of links in a chain: one per step.
pub const CHAIN_LEN: u32 = 10_000;

/// How a game's dice are made (the journal's `created.dice`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Committed chains, seeds from links and salts: verifiable (dice-v1).
    #[default]
    Committed,
    /// Stated by the moderator (physical dice): not verifiable.
    Declared,
    /// Given in advance (adjudication cases).
    Scripted,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Committed => "committed",
            Mode::Declared => "declared",
            Mode::Scripted => "scripted",
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A 32-byte chain link, written as lowercase hex everywhere outside memory.
pub type Link = [u8; 32];

pub fn sha256(data: &[u8]) -> Link {
    Sha256::digest(data).into()
}

/// Link `k` of a chain whose top (link `len`) is `top`: hash `len - k` times.
pub fn link_at(top: &Link, len: u32, k: u32) -> Link {
    assert!(k <= len, "link {k} beyond chain length {len}");
    let mut x = *top;
    for _ in k..len {
        x = sha256(&x);
    }
    x
}

/// The anchor `x[0]`, published before any order is written.
pub fn anchor(top: &Link, len: u32) -> Link {
    link_at(top, len, 0)
}

/// `SHA-256(link) == previous`: the check a player makes link by link.
pub fn link_follows(link: &Link, previous: &Link) -> bool {
    &sha256(link) == previous
}

pub fn to_hex(l: &Link) -> String {
    // Into a buffer, not a character at a time: every mail and journal
    // entry spells a few of these.
    let mut buf = [0u8; 64];
    hex::encode_to_slice(l, &mut buf).expect("64 digits for 32 bytes");
    String::from_utf8_lossy(&buf).into_owned()
}

pub fn from_hex(s: &str) -> Option<Link> {
    let v = hex::decode(s.trim()).ok()?;
    v.try_into().ok()
}

/// A random stream (docs/dice-v1.md): the public one, each role's private one,
/// the moderator's. Written `public`, `role:<role>`, `gm` in journals and
/// mail.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum StreamId {
    Public,
    Role(String),
    Moderator,
}

impl StreamId {
    pub fn role(r: &str) -> StreamId {
        StreamId::Role(r.to_string())
    }

    /// The stream a journal or a mail names.
    pub fn parse(s: &str) -> Option<StreamId> {
        match s {
            "public" => Some(StreamId::Public),
            "gm" => Some(StreamId::Moderator),
            _ => s.strip_prefix("role:").filter(|r| !r.is_empty()).map(StreamId::role),
        }
    }
}

impl fmt::Display for StreamId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StreamId::Public => f.write_str("public"),
            StreamId::Role(r) => write!(f, "role:{r}"),
            StreamId::Moderator => f.write_str("gm"),
        }
    }
}

/// The named random streams of a game: one per audience.
pub fn stream_names(roles: &[String]) -> Vec<String> {
    let mut v = vec![StreamId::Public];
    v.extend(roles.iter().map(|r| StreamId::role(r)));
    v.push(StreamId::Moderator);
    v.iter().map(|s| s.to_string()).collect()
}

/// `seed[σ][k]` exactly as docs/dice-v1.md (Seed of stream σ for step k): salts are taken for every role in
/// ascending byte order, an absent salt counting as empty.
pub fn seed(game: &str, step: u32, stream: &str, link: &Link, salts: &BTreeMap<String, String>) -> Link {
    let mut h = Sha256::new();
    h.update(SCHEME.as_bytes());
    h.update([0]);
    h.update(game.as_bytes());
    h.update([0]);
    h.update(step.to_string().as_bytes());
    h.update([0]);
    h.update(stream.as_bytes());
    h.update([0]);
    h.update(link);
    h.update([0]);
    // BTreeMap<String, _> iterates in ascending byte order of the keys.
    for (role, salt) in salts {
        h.update(role.as_bytes());
        h.update(b"=");
        h.update(salt.as_bytes());
        h.update([0]);
    }
    h.finalize().into()
}

/// A seeded generator with the frozen draw algorithms of dice-v1.
pub struct Stream {
    rng: ChaCha20Rng,
}

impl Stream {
    pub fn new(seed: Link) -> Stream {
        Stream { rng: ChaCha20Rng::from_seed(seed) }
    }

    /// Uniform in `0..n` by rejection: never `gen_range`, whose algorithm is
    /// not frozen.
    pub fn below(&mut self, n: u32) -> u32 {
        assert!(n > 0, "cannot draw from an empty range");
        let limit = (u32::MAX as u64 + 1) / n as u64 * n as u64;
        loop {
            let x = self.rng.next_u32();
            if (x as u64) < limit {
                return x % n;
            }
        }
    }

    /// A die of `sides` faces, 1-based.
    pub fn die(&mut self, sides: u32) -> u32 {
        self.below(sides) + 1
    }

    /// Fisher–Yates from the last index down: the permutation of `0..n`.
    pub fn permutation(&mut self, n: usize) -> Vec<usize> {
        let mut v: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            let j = self.below(i as u32 + 1) as usize;
            v.swap(i, j);
        }
        v
    }
}

/// What kind of draw a journal line records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DrawKind {
    /// One die: `result` holds one face.
    Die,
    /// A shuffle of `sides` items: `result` is the permutation.
    Shuffle,
    /// `count` items from a pool of `sides`: `result` holds the indices taken,
    /// in the pool's canonical order numbering.
    Pool,
}

/// One journaled draw.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Draw {
    pub stream: String,
    /// Position of this draw in its stream for the step: 0, 1, 2, ...
    pub n: u32,
    pub label: String,
    pub kind: DrawKind,
    pub sides: u32,
    pub result: Vec<u32>,
    /// True when the moderator stated the result (physical dice): not
    /// verifiable, and marked so by audit.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub declared: bool,
    /// The role the draw served, when it served one (see [`Serves`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub serves: Option<String>,
    /// Which faces are good for `serves`; absent only in journals written
    /// before draws were attributed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub good: Option<Good>,
}

/// Which faces of a die are good for the role it served.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Good {
    /// High faces are good for the role (an attack roll).
    High,
    /// Low faces are good for the role (a roll to stay under).
    Low,
    /// Neither: a shuffle, a pick among items, a roll that only sets
    /// something (a battle's length), or a draw that served nobody.
    Neither,
}

/// Whom a draw served, as the ruleset declares it where it rolls: what the
/// fairness report scores luck by (a public die may serve one side).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Serves {
    pub role: Option<String>,
    pub good: Good,
}

impl Serves {
    /// High faces are good for `role`.
    pub fn high(role: &str) -> Serves {
        Serves { role: Some(role.to_string()), good: Good::High }
    }
    /// Low faces are good for `role`.
    pub fn low(role: &str) -> Serves {
        Serves { role: Some(role.to_string()), good: Good::Low }
    }
    /// `role`'s draw, no face better than another (a pool draw, a pick).
    pub fn neither(role: &str) -> Serves {
        Serves { role: Some(role.to_string()), good: Good::Neither }
    }
    /// A draw for nobody in particular (the Event Deck's shuffle).
    pub fn nobody() -> Serves {
        Serves { role: None, good: Good::Neither }
    }
}

impl Draw {
    /// A draw as the dice record it.
    #[allow(clippy::too_many_arguments)]
    fn new(
        draws: &[Draw],
        stream: &str,
        label: &str,
        serves: &Serves,
        kind: DrawKind,
        sides: u32,
        result: Vec<u32>,
        declared: bool,
    ) -> Draw {
        Draw {
            stream: stream.into(),
            n: next_n(draws, stream),
            label: label.into(),
            kind,
            sides,
            result,
            declared,
            serves: serves.role.clone(),
            good: Some(serves.good),
        }
    }
}

/// The randomness a ruleset may use. Rules never see where it comes from:
/// committed streams, a moderator's declared dice, or a test script.
pub trait Dice {
    /// Roll one die of `sides` faces on `stream`.
    fn roll(&mut self, stream: &StreamId, sides: u32, label: &str, serves: &Serves) -> u32;
    /// A permutation of `0..n`.
    fn shuffle(&mut self, stream: &StreamId, n: usize, label: &str, serves: &Serves) -> Vec<usize>;
    /// Indices of `count` items drawn from a pool of `n` in canonical order:
    /// a shuffle of the pool, taking from the front.
    fn draw_pool(&mut self, stream: &StreamId, n: usize, count: usize, label: &str, serves: &Serves) -> Vec<usize>;
    /// `n` dice under one label: each die's label is the label and its
    /// place ("time roll, first die", "second die", "third die", then
    /// "die 4"), as the games have always written a 2D6.
    fn roll_n(&mut self, stream: &StreamId, n: usize, sides: u32, label: &str, serves: &Serves) -> Vec<u32> {
        const PLACES: [&str; 3] = ["first", "second", "third"];
        (0..n)
            .map(|i| {
                let place = PLACES.get(i).map(|p| format!("{p} die")).unwrap_or_else(|| format!("die {}", i + 1));
                self.roll(stream, sides, &format!("{label}, {place}"), serves)
            })
            .collect()
    }
    /// Every draw made so far, in order.
    fn draws(&self) -> &[Draw];
}

fn next_n(draws: &[Draw], stream: &str) -> u32 {
    draws.iter().filter(|d| d.stream == stream).count() as u32
}

/// Committed dice for one step: one generator per stream, seeded lazily.
pub struct Committed {
    seeds: BTreeMap<String, Link>,
    streams: BTreeMap<String, Stream>,
    draws: Vec<Draw>,
    /// Streams drawn from that had no seed: the run is void (a tampered
    /// journal, or a ruleset naming a stream the game lacks).
    pub unknown: Vec<String>,
}

impl Committed {
    /// `seeds` maps stream name to its seed for this step.
    pub fn new(seeds: BTreeMap<String, Link>) -> Committed {
        Committed { seeds, streams: BTreeMap::new(), draws: Vec::new(), unknown: Vec::new() }
    }

    fn stream(&mut self, name: &str) -> &mut Stream {
        let seed = match self.seeds.get(name) {
            Some(s) => *s,
            None => {
                self.unknown.push(name.to_string());
                [0; 32]
            }
        };
        self.streams.entry(name.to_string()).or_insert_with(|| Stream::new(seed))
    }

    fn record(&mut self, stream: &str, label: &str, serves: &Serves, kind: DrawKind, sides: u32, result: Vec<u32>) {
        self.draws.push(Draw::new(&self.draws, stream, label, serves, kind, sides, result, false));
    }

    pub fn into_draws(self) -> Vec<Draw> {
        self.draws
    }
}

impl Dice for Committed {
    fn roll(&mut self, id: &StreamId, sides: u32, label: &str, serves: &Serves) -> u32 {
        let stream = &id.to_string();
        let f = self.stream(stream).die(sides);
        self.record(stream, label, serves, DrawKind::Die, sides, vec![f]);
        f
    }
    fn shuffle(&mut self, id: &StreamId, n: usize, label: &str, serves: &Serves) -> Vec<usize> {
        let stream = &id.to_string();
        let p = self.stream(stream).permutation(n);
        self.record(stream, label, serves, DrawKind::Shuffle, n as u32, p.iter().map(|&i| i as u32).collect());
        p
    }
    fn draw_pool(&mut self, id: &StreamId, n: usize, count: usize, label: &str, serves: &Serves) -> Vec<usize> {
        let stream = &id.to_string();
        let mut p = self.stream(stream).permutation(n);
        p.truncate(count.min(n));
        self.record(stream, label, serves, DrawKind::Pool, n as u32, p.iter().map(|&i| i as u32).collect());
        p
    }
    fn draws(&self) -> &[Draw] {
        &self.draws
    }
}

/// Regenerate one journaled draw from its stream's seed, replaying the
/// stream's earlier draws first. Returns the result dice-v1 gives.
pub fn regenerate(seed: Link, earlier_and_this: &[&Draw]) -> Vec<u32> {
    let mut s = Stream::new(seed);
    let mut last = Vec::new();
    for d in earlier_and_this {
        last = match d.kind {
            DrawKind::Die => vec![s.die(d.sides)],
            DrawKind::Shuffle => s.permutation(d.sides as usize).into_iter().map(|i| i as u32).collect(),
            DrawKind::Pool => {
                let mut p = s.permutation(d.sides as usize);
                p.truncate(d.result.len());
                p.into_iter().map(|i| i as u32).collect()
            }
        };
    }
    last
}

/// Dice a test or a case scripts: faces consumed in order, whatever the
/// stream. A shuffle takes the identity order; a pool draw takes the next
/// faces as the pool indices to draw (falling back to the lowest indices not
/// yet taken). A game played on scripted dice is marked so and never mailed.
pub struct Scripted {
    faces: std::collections::VecDeque<u32>,
    /// Scripted shuffles, taken in order; past them a shuffle is the
    /// identity order.
    shuffles: std::collections::VecDeque<Vec<u32>>,
    draws: Vec<Draw>,
    /// Set when the script ran out: the run that used it is void.
    pub exhausted: bool,
}

impl Scripted {
    pub fn new(faces: &[u32]) -> Scripted {
        Scripted {
            faces: faces.iter().copied().collect(),
            shuffles: Default::default(),
            draws: Vec::new(),
            exhausted: false,
        }
    }
    /// The permutations the script's shuffles give, in order (one that is
    /// not a permutation of the shuffled count is taken as the identity).
    pub fn with_shuffles(mut self, shuffles: Vec<Vec<u32>>) -> Scripted {
        self.shuffles = shuffles.into();
        self
    }
    pub fn remaining(&self) -> usize {
        self.faces.len()
    }
    fn take(&mut self) -> u32 {
        self.faces.pop_front().unwrap_or_else(|| {
            self.exhausted = true;
            1
        })
    }
    fn push(&mut self, stream: &str, label: &str, serves: &Serves, kind: DrawKind, sides: u32, result: Vec<u32>) {
        self.draws.push(Draw::new(&self.draws, stream, label, serves, kind, sides, result, true));
    }
}

impl Dice for Scripted {
    fn roll(&mut self, id: &StreamId, sides: u32, label: &str, serves: &Serves) -> u32 {
        let stream = &id.to_string();
        let f = self.take().clamp(1, sides);
        self.push(stream, label, serves, DrawKind::Die, sides, vec![f]);
        f
    }
    fn shuffle(&mut self, id: &StreamId, n: usize, label: &str, serves: &Serves) -> Vec<usize> {
        let stream = &id.to_string();
        let p: Vec<usize> = match self.shuffles.pop_front() {
            Some(v) if is_permutation(&v, n) => v.iter().map(|&i| i as usize).collect(),
            _ => (0..n).collect(),
        };
        self.push(stream, label, serves, DrawKind::Shuffle, n as u32, p.iter().map(|&i| i as u32).collect());
        p
    }
    fn draw_pool(&mut self, id: &StreamId, n: usize, count: usize, label: &str, serves: &Serves) -> Vec<usize> {
        let stream = &id.to_string();
        // Scripted pool draws name the pool indices to take, in order; a
        // short script falls back to the lowest indices not yet taken.
        let mut taken = Vec::new();
        for _ in 0..count.min(n) {
            let i = match self.faces.pop_front() {
                Some(i) if (i as usize) < n && !taken.contains(&(i as usize)) => i as usize,
                _ => (0..n).find(|i| !taken.contains(i)).expect("pool has room"),
            };
            taken.push(i);
        }
        self.push(stream, label, serves, DrawKind::Pool, n as u32, taken.iter().map(|&i| i as u32).collect());
        taken
    }
    fn draws(&self) -> &[Draw] {
        &self.draws
    }
}

/// Dice the computer player imagines while it looks ahead: one private
/// stream from a seed of its own, never the game's committed streams
/// (whose faces nobody may know before they are drawn), and nothing
/// recorded, since nothing imagined is journaled.
pub struct Imagined {
    stream: Stream,
}

impl Imagined {
    pub fn new(seed: Link) -> Imagined {
        Imagined { stream: Stream::new(seed) }
    }
}

impl Dice for Imagined {
    fn roll(&mut self, _: &StreamId, sides: u32, _: &str, _: &Serves) -> u32 {
        self.stream.die(sides)
    }
    fn shuffle(&mut self, _: &StreamId, n: usize, _: &str, _: &Serves) -> Vec<usize> {
        self.stream.permutation(n)
    }
    fn draw_pool(&mut self, _: &StreamId, n: usize, count: usize, _: &str, _: &Serves) -> Vec<usize> {
        let mut p = self.stream.permutation(n);
        p.truncate(count.min(n));
        p
    }
    fn draws(&self) -> &[Draw] {
        &[]
    }
}

/// Physical dice: the moderator declares each result with
/// `DECLARE <label> <value>`; a draw with no declared value marks the run as
/// missing that label, and the desk discards the run and asks for it.
pub struct Declared {
    values: Vec<(String, Vec<u32>)>,
    draws: Vec<Draw>,
    pub missing: Vec<String>,
}

impl Declared {
    /// `values`: (label pattern, values) in the order declared. A pattern
    /// matches a draw whose label starts with it (case-insensitively); `*`
    /// matches any.
    pub fn new(values: Vec<(String, Vec<u32>)>) -> Declared {
        Declared { values, draws: Vec::new(), missing: Vec::new() }
    }
    fn take(&mut self, label: &str) -> Option<Vec<u32>> {
        let l = label.to_lowercase();
        let i = self.values.iter().position(|(p, _)| p == "*" || l.starts_with(&p.to_lowercase()))?;
        Some(self.values.remove(i).1)
    }
    fn push(&mut self, stream: &str, label: &str, serves: &Serves, kind: DrawKind, sides: u32, result: Vec<u32>) {
        self.draws.push(Draw::new(&self.draws, stream, label, serves, kind, sides, result, true));
    }
}

impl Dice for Declared {
    fn roll(&mut self, id: &StreamId, sides: u32, label: &str, serves: &Serves) -> u32 {
        let stream = &id.to_string();
        let f = match self.take(label) {
            Some(v) if !v.is_empty() => v[0].clamp(1, sides),
            _ => {
                self.missing.push(label.to_string());
                1
            }
        };
        self.push(stream, label, serves, DrawKind::Die, sides, vec![f]);
        f
    }
    fn shuffle(&mut self, id: &StreamId, n: usize, label: &str, serves: &Serves) -> Vec<usize> {
        let stream = &id.to_string();
        let p: Vec<usize> = match self.take(label) {
            Some(v) if is_permutation(&v, n) => v.iter().map(|&i| i as usize).collect(),
            _ => {
                self.missing.push(label.to_string());
                (0..n).collect()
            }
        };
        self.push(stream, label, serves, DrawKind::Shuffle, n as u32, p.iter().map(|&i| i as u32).collect());
        p
    }
    fn draw_pool(&mut self, id: &StreamId, n: usize, count: usize, label: &str, serves: &Serves) -> Vec<usize> {
        let stream = &id.to_string();
        let want = count.min(n);
        let p: Vec<usize> = match self.take(label) {
            Some(v) if v.len() == want && distinct_below(&v, n) => v.iter().map(|&i| i as usize).collect(),
            _ => {
                self.missing.push(label.to_string());
                (0..want).collect()
            }
        };
        self.push(stream, label, serves, DrawKind::Pool, n as u32, p.iter().map(|&i| i as u32).collect());
        p
    }
    fn draws(&self) -> &[Draw] {
        &self.draws
    }
}

fn distinct_below(v: &[u32], n: usize) -> bool {
    let mut seen = vec![false; n];
    v.iter().all(|&i| (i as usize) < n && !std::mem::replace(&mut seen[i as usize], true))
}

fn is_permutation(v: &[u32], n: usize) -> bool {
    v.len() == n && distinct_below(v, n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chain_links_hash_back_to_anchor() {
        let top = sha256(b"top");
        let a = anchor(&top, 50);
        let l1 = link_at(&top, 50, 1);
        assert!(link_follows(&l1, &a));
        assert!(link_follows(&link_at(&top, 50, 2), &l1));
        assert_eq!(link_at(&top, 50, 50), top);
    }

    #[test]
    fn rejection_sampling_stays_in_range() {
        let mut s = Stream::new([7; 32]);
        for sides in [2, 3, 6, 10, 20, 100] {
            for _ in 0..1000 {
                let f = s.die(sides);
                assert!((1..=sides).contains(&f));
            }
        }
    }

    #[test]
    fn pool_draw_is_prefix_of_shuffle() {
        let mut a = Committed::new([("public".to_string(), [3u8; 32])].into());
        let mut b = Committed::new([("public".to_string(), [3u8; 32])].into());
        let full = a.shuffle(&StreamId::Public, 16, "x", &Serves::nobody());
        let part = b.draw_pool(&StreamId::Public, 16, 5, "x", &Serves::nobody());
        assert_eq!(&full[..5], &part[..]);
    }

    #[test]
    fn regenerate_replays_a_stream() {
        let seed = [9u8; 32];
        let mut c = Committed::new([("public".to_string(), seed)].into());
        c.roll(&StreamId::Public, 6, "a", &Serves::nobody());
        c.draw_pool(&StreamId::Public, 16, 4, "b", &Serves::nobody());
        c.roll(&StreamId::Public, 20, "c", &Serves::nobody());
        let draws = c.into_draws();
        for i in 0..draws.len() {
            let prefix: Vec<&Draw> = draws[..=i].iter().collect();
            assert_eq!(regenerate(seed, &prefix), draws[i].result);
        }
    }
}
