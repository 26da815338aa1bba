//! The siege ledger's parts: armies, units with their two kinds of hits,
//! officers and named individuals, spies, the town, what a spy learned.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UnitKind {
    Infantry,
    Artillery,
    Sappers,
    Miners,
}

impl UnitKind {
    /// "Infantry units are eliminated by 4 hits, artillery by 3 and sappers
    /// by 2." Miners are not named: they are counted as sappers.
    pub fn eliminated_at(self) -> u32 {
        match self {
            UnitKind::Infantry => 4,
            UnitKind::Artillery => 3,
            UnitKind::Sappers | UnitKind::Miners => 2,
        }
    }
    /// Seen by the enemy: everything but miners, whose work is part of the
    /// "mining and countermining status" a spy must find out.
    pub fn on_table(self) -> bool {
        self != UnitKind::Miners
    }
    pub fn word(self) -> &'static str {
        match self {
            UnitKind::Infantry => "infantry",
            UnitKind::Artillery => "artillery",
            UnitKind::Sappers => "sappers",
            UnitKind::Miners => "miners",
        }
    }
}

/// Where a unit stands, as the moderator reports it from the table: it
/// decides the "+1 out of immediate danger" and where artillery may be
/// repaired.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Whereabouts {
    /// Within 2 hexes of the enemy and not concealed.
    Danger,
    /// Concealed, or not within 2 hexes of the enemy.
    Clear,
    /// In the army's Safe Place (out of danger too).
    Safe,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unit {
    pub name: String,
    pub kind: UnitKind,
    /// Size in half-battalions (infantry), for policing the town.
    pub halves: u32,
    /// Loss counters that may be rallied.
    pub hits: u32,
    /// Disease and desertion counters: never rallied.
    pub lasting: u32,
    /// A Hold marker: it rallied (or polices) and may do nothing else this turn.
    pub hold: bool,
    /// Among the troops policing the town.
    pub police: bool,
    pub eliminated: bool,
    pub place: Whereabouts,
}

impl Unit {
    /// A unit without hits, as a scenario, a recruit or a reinforcement
    /// brings it.
    pub fn new(name: &str, kind: UnitKind, halves: u32, place: Whereabouts) -> Unit {
        Unit {
            name: name.to_string(),
            kind,
            halves,
            hits: 0,
            lasting: 0,
            hold: false,
            police: false,
            eliminated: false,
            place,
        }
    }
    pub fn total_hits(&self) -> u32 {
        self.hits + self.lasting
    }
    /// Artillery with 2 hits may not fire until rallied/repaired.
    pub fn silenced(&self) -> bool {
        self.kind == UnitKind::Artillery && !self.eliminated && self.total_hits() >= 2
    }
    pub fn status(&self) -> &'static str {
        if self.eliminated {
            "eliminated"
        } else if self.silenced() {
            "may not fire"
        } else if self.police {
            "policing the town"
        } else if self.hold {
            "Hold"
        } else {
            ""
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Rank {
    /// The Commander (CinC): the Besiegers' Commander or the Governor.
    Commander,
    Senior,
    Engineer,
    Mayor,
    /// A Named Individual.
    Named,
    /// The Security Officer (Provost or Chief of Police).
    Security,
}

impl Rank {
    pub fn key(self) -> &'static str {
        match self {
            Rank::Commander => "commander",
            Rank::Senior => "senior",
            Rank::Engineer => "engineer",
            Rank::Mayor => "mayor",
            Rank::Named => "named",
            Rank::Security => "security",
        }
    }
    pub fn title(self) -> &'static str {
        match self {
            Rank::Commander => "Commander",
            Rank::Senior => "Senior Officer",
            Rank::Engineer => "Engineer",
            Rank::Mayor => "Town Mayor",
            Rank::Named => "Named Individual",
            Rank::Security => "Security Officer",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Officer {
    pub name: String,
    pub rank: Rank,
    pub alive: bool,
    /// Units he is attached to or within 1 hex of, as last ordered.
    #[serde(default)]
    pub near: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SpyStatus {
    Active,
    Lost,
    Executed,
    Sacked,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Spy {
    pub name: String,
    /// 1 poor, 2 competent, 3 exceptional; rolled on the first mission.
    #[serde(default)]
    pub quality: Option<u8>,
    pub status: SpyStatus,
}

pub fn quality_word(q: u8) -> &'static str {
    match q {
        1 => "poor",
        2 => "competent",
        _ => "exceptional",
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Army {
    pub resolve: i32,
    /// Loads of gunpowder.
    pub powder: i32,
    /// Mining and countermining status, as the moderator last stated it.
    #[serde(default)]
    pub mining: String,
    pub units: Vec<Unit>,
    pub officers: Vec<Officer>,
    pub spies: Vec<Spy>,
}

impl Army {
    pub fn unit(&self, name: &str) -> Option<&Unit> {
        self.units.iter().find(|u| u.name == name)
    }
    pub fn unit_mut(&mut self, name: &str) -> Option<&mut Unit> {
        self.units.iter_mut().find(|u| u.name == name)
    }
    pub fn officer(&self, name: &str) -> Option<&Officer> {
        self.officers.iter().find(|o| o.name == name)
    }
    pub fn officer_mut(&mut self, name: &str) -> Option<&mut Officer> {
        self.officers.iter_mut().find(|o| o.name == name)
    }
    pub fn spy_mut(&mut self, name: &str) -> Option<&mut Spy> {
        self.spies.iter_mut().find(|s| s.name == name && s.status == SpyStatus::Active)
    }
    pub fn commander(&self) -> Option<&Officer> {
        self.officers.iter().find(|o| o.rank == Rank::Commander && o.alive)
    }
    /// The army can still rally troops (and, for the Garrison, meet the
    /// citizens and manage the Food supply): its Commander lives, or a
    /// Senior Officer or Engineer is there to be promoted. "If none is
    /// available the army will no longer be able to rally troops".
    pub fn led(&self) -> bool {
        self.commander().is_some()
            || self.officers.iter().any(|o| o.alive && matches!(o.rank, Rank::Senior | Rank::Engineer))
    }
    pub fn security(&self) -> bool {
        self.officers.iter().any(|o| o.rank == Rank::Security && o.alive)
    }
    pub fn active_spies(&self) -> usize {
        self.spies.iter().filter(|s| s.status == SpyStatus::Active).count()
    }
    pub fn alive_units(&self) -> impl Iterator<Item = &Unit> {
        self.units.iter().filter(|u| !u.eliminated)
    }
    pub fn count(&self, kind: UnitKind) -> usize {
        self.alive_units().filter(|u| u.kind == kind).count()
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Wall {
    pub name: String,
    pub strength: i32,
}

/// The town's side of the ledger (the Garrison's).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Town {
    /// Turns of Food in store.
    pub food: i32,
    /// Local Support.
    pub ls: i32,
    /// Fires burning (puffs of cotton-wool: counted, not placed).
    pub fires: u32,
    #[serde(default)]
    pub walls: Vec<Wall>,
    /// The once-per-game food measures already taken.
    #[serde(default)]
    pub measures_used: Vec<String>,
}

/// A true figure one side learned of the other, and when.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Intel {
    pub item: String,
    pub value: String,
    pub turn: u32,
}
