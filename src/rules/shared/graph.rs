//! Road networks: spaces joined by roads, loaded from a game's map data, with
//! adjacency and the connected pieces a side can trace through them.

use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// A map of named spaces joined by roads, as written in `games/<g>/map.toml`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MapData {
    pub provenance: String,
    #[serde(default)]
    pub note: String,
    pub width: u32,
    pub height: u32,
    #[serde(rename = "space")]
    pub spaces: Vec<SpaceData>,
    #[serde(rename = "road")]
    pub roads: Vec<RoadData>,
    #[serde(default, rename = "edge")]
    pub edges: Vec<EdgeData>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpaceData {
    pub name: String,
    pub kind: String,
    pub x: i32,
    pub y: i32,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoadData {
    pub a: String,
    pub b: String,
}

/// A road bearing off the map: drawn, never traversed.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EdgeData {
    pub from: String,
    pub x: i32,
    pub y: i32,
    pub label: String,
}

/// The map as a graph over space indices.
#[derive(Debug, Clone)]
pub struct Graph {
    pub data: MapData,
    pub adj: Vec<Vec<usize>>,
}

impl Graph {
    pub fn from_toml(text: &str) -> Result<Graph, String> {
        let data: MapData = toml::from_str(text).map_err(|e| format!("cannot read map: {e}"))?;
        let mut adj = vec![Vec::new(); data.spaces.len()];
        let idx = |n: &str| data.spaces.iter().position(|s| s.name == n);
        for r in &data.roads {
            let (a, b) = match (idx(&r.a), idx(&r.b)) {
                (Some(a), Some(b)) => (a, b),
                _ => return Err(format!("map road {} - {} names an unknown space", r.a, r.b)),
            };
            adj[a].push(b);
            adj[b].push(a);
        }
        for e in &data.edges {
            if idx(&e.from).is_none() {
                return Err(format!("map edge road from unknown space {}", e.from));
            }
        }
        for a in &mut adj {
            a.sort_unstable();
            a.dedup();
        }
        Ok(Graph { data, adj })
    }

    pub fn len(&self) -> usize {
        self.data.spaces.len()
    }

    pub fn is_empty(&self) -> bool {
        self.data.spaces.is_empty()
    }

    pub fn name(&self, i: usize) -> &str {
        &self.data.spaces[i].name
    }

    pub fn kind(&self, i: usize) -> &str {
        &self.data.spaces[i].kind
    }

    pub fn index(&self, name: &str) -> Option<usize> {
        self.data.spaces.iter().position(|s| s.name == name)
    }

    pub fn names(&self) -> Vec<&str> {
        self.data.spaces.iter().map(|s| s.name.as_str()).collect()
    }

    pub fn adjacent(&self, a: usize, b: usize) -> bool {
        self.adj[a].contains(&b)
    }

    /// Component labels: spaces reachable from each other through spaces for
    /// which `open` holds. Closed spaces get `None`.
    pub fn components(&self, open: impl Fn(usize) -> bool) -> Vec<Option<usize>> {
        let mut label = vec![None; self.len()];
        let mut next = 0;
        for start in 0..self.len() {
            if label[start].is_some() || !open(start) {
                continue;
            }
            let mut q = VecDeque::from([start]);
            label[start] = Some(next);
            while let Some(u) = q.pop_front() {
                for &v in &self.adj[u] {
                    if label[v].is_none() && open(v) {
                        label[v] = Some(next);
                        q.push_back(v);
                    }
                }
            }
            next += 1;
        }
        label
    }
}
