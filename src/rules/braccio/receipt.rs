//! The check of a mailed plan on receipt (4.0, 4.1, 5.1-5.4, 6.0-9.0,
//! 12.1): what a step awaits, whether the activation, Continuum or
//! Interruptio may be tried, and each line of the plan against the OP,
//! command and movement it will have when it runs. A plan accepted here
//! is run by `flow`; what may still be skipped in play is said on receipt.

use super::act;
use super::effects::in_command;
use super::flow::{
    can_activate, can_confuse, can_continuum, can_interrupt, confusable, eligible, general_problem, open_lines, split,
    Test,
};
use super::orders::Step;
use super::*;

/// Check a submission (all or nothing, docs/mail.md): the header the step
/// asks for, then the plan's lines against the Battle that will act.
pub fn validate(s: &State, role: &str, orders: &[Order]) -> Vec<(usize, Problem)> {
    judge(s, role, orders, &mut Chain::default())
}

/// The lines of an accepted plan that play may still skip or cut short,
/// each with why: what the acknowledgment tells the player.
pub fn conditions(s: &State, role: &str, orders: &[Order]) -> Vec<(usize, String)> {
    let mut chain = Chain::default();
    if judge(s, role, orders, &mut chain).is_empty() {
        chain.notes
    } else {
        Vec::new()
    }
}

/// What the plan's lines so far will have made of the game, as play will
/// make it: each Captain's CC after its step-downs, where the lines left
/// each unit and leader; and the notes on lines that may not run.
#[derive(Default)]
struct Chain {
    ccs: BTreeMap<String, i32>,
    ends: BTreeMap<String, String>,
    /// 0 for the activation now open, 1 for the first THEN plan, ….
    depth: usize,
    notes: Vec<(usize, String)>,
}

fn judge(s: &State, role: &str, orders: &[Order], chain: &mut Chain) -> Vec<(usize, Problem)> {
    let mut out = Vec::new();
    let awaited = s.pending.awaits(role);
    let acts: Vec<(usize, &Order)> = orders.iter().enumerate().filter(|(_, o)| !o.is_policy()).collect();
    if !awaited {
        for (i, o) in acts {
            out.push((
                i,
                Problem::new(format!("{o}: it is not your decision now; only policy lines are taken from you"))
                    .hint("INTERRUPT ASK | NEVER | WITH BEST MIN 5, REACT FIRE ALWAYS | NEVER | ATTACKERS, REACT FACE MIN 4, REACT COUNTERCHARGE MIN 4"),
            ));
        }
        return out;
    }
    if let Pending::Rows { .. } = &s.pending {
        return super::rows::validate(s, role, &acts);
    }
    if let Pending::Setup { what, .. } = &s.pending {
        return super::free::validate(s, role, what, &acts);
    }
    let plan: Vec<Order> = acts.iter().map(|(_, o)| (*o).clone()).collect();
    let at: Vec<usize> = acts.iter().map(|(i, _)| *i).collect();
    let head = plan.first();
    // What the step asks first, and the Battle the plan is for.
    let (battle, general, op, from) = match &s.pending {
        Pending::Activation { .. } => match head {
            Some(Order::Activate { battle, general, at: line, .. }) => {
                let mut bad = can_activate(s, role, battle).err();
                let b = s.battle(battle).expect("parsed battle");
                let entry = s.entries.iter().find(|e| &e.battle == battle);
                let on_hexes = entry.map(|e| !e.hexes.is_empty()).unwrap_or(false);
                if bad.is_none() {
                    let open: Vec<String> =
                        entry.map(|e| open_lines(s, role, e).into_iter().map(|x| x.0).collect()).unwrap_or_default();
                    bad = match (b.off_map, line) {
                        (true, Some(_)) if on_hexes => Some(format!(
                            "{battle}'s Battle enters on its own hexes (A43): write ACTIVATE {battle} [FACE <v>] without AT"
                        )),
                        (true, None) if on_hexes => None,
                        (true, None) => Some(format!(
                            "{battle}'s Battle enters the map: name its line, ACTIVATE {battle} AT <line> [FACE <v>]; open: {}",
                            open.join(", ")
                        )),
                        (true, Some(l)) if !open.contains(l) => Some(format!(
                            "the {l} line is closed: an enemy unit stands in or beside it (S2.10.2); open: {}",
                            open.join(", ")
                        )),
                        (false, Some(_)) => Some(format!("{battle}'s Battle is on the map: AT is for a Battle entering it")),
                        _ => None,
                    };
                }
                if bad.is_none() && !general.is_empty() {
                    bad = general_problem(s, b, general).err();
                }
                if let Some(w) = bad {
                    out.push((at[0], Problem::new(w).hint(activation_hint(s, role))));
                    return out;
                }
                // An entering Battle's CC will be its side's VL on a line
                // (S2.10.2), its initial CC on hexes (A43).
                let cc = match (b.off_map, on_hexes) {
                    (true, false) => s.vl.get(role).copied().unwrap_or(0).max(1),
                    (true, true) => b.cc0,
                    _ => b.cc,
                };
                let op = if general.is_empty() { cc } else { 0 };
                (battle.clone(), general.clone(), op, 1)
            }
            _ => {
                out.push((
                    at.first().copied().unwrap_or(0),
                    Problem::new("this step is your Basic Activation: the first line names the Captain")
                        .hint(activation_hint(s, role)),
                ));
                return out;
            }
        },
        Pending::Continuum { .. } | Pending::Interruptio { .. } => {
            let what =
                if matches!(s.pending, Pending::Continuum { .. }) { Attempt::Continuum } else { Attempt::Interruptio };
            match header(s, role, head, plan.len(), at.first().copied().unwrap_or(0), what) {
                Ok(Some(x)) => x,
                Ok(None) => return out,
                Err(p) => {
                    out.push(p);
                    return out;
                }
            }
        }
        Pending::Confusion { .. } => {
            match head {
                Some(Order::Confusion { battle }) if plan.len() == 1 => {
                    if let Err(w) = can_confuse(s, role, battle) {
                        out.push((
                            at[0],
                            Problem::new(w).hint(format!("CONFUSION {}", confusable(s, role).join(" | "))),
                        ));
                    }
                }
                _ => out.push((
                    at.first().copied().unwrap_or(0),
                    Problem::new("this step asks which enemy Battle the Confusion activates (16.1)")
                        .hint(format!("CONFUSION {}", confusable(s, role).join(" | "))),
                )),
            }
            return out;
        }
        Pending::Orders { captain, .. } => {
            let op = match &s.act {
                Some(a) if &a.battle == captain => s.op,
                _ => s.battle(captain).map(|b| b.cc).unwrap_or(0),
            };
            let general = s.act.as_ref().map(|a| a.general.clone()).unwrap_or_default();
            (captain.clone(), general, op, 0)
        }
        Pending::Setup { .. } | Pending::Rows { .. } | Pending::Over => return out,
    };
    let rest = &plan[from..];
    let offs = &at[from..];
    // A Continuum's plan, or the orders of a Basic or Continuum activation
    // sent in a step of their own, may open with a General Order.
    // The CC then still falls by the Continuum roll's -1 (4.1), or not.
    let may_general = match &s.pending {
        Pending::Continuum { .. } => Some(1),
        Pending::Orders { via, captain, .. }
            if *via != Via::Interruptio && s.act.as_ref().map(|a| &a.battle != captain).unwrap_or(true) =>
        {
            Some(0)
        }
        _ => None,
    };
    check_plan(s, role, &battle, &general, op, may_general, rest, offs, &mut out, chain);
    // S4.2, A35: the opening activation gives this many Carica! orders.
    if !s.first.is_empty() && s.first_caricas > 0 && matches!(s.pending, Pending::Activation { .. }) {
        let n = split(rest).head.iter().filter(|o| o.kind() == Some(OrderKind::Charge)).count() as i32;
        if n < s.first_caricas {
            out.push((
                at[0],
                Problem::new(format!(
                    "{}'s opening activation must give at least {} Carica! orders; this plan gives {n} (S4.2, A35)",
                    s.first, s.first_caricas
                ))
                .hint("CHARGE <unit> <hex>… [ATTACK <target>]"),
            ));
        }
    }
    // S2.2, A05: the forced first activation cannot pass: an order.
    if !s.first.is_empty()
        && matches!(s.pending, Pending::Activation { .. })
        && !split(rest).head.iter().any(|o| o.unit().is_some())
    {
        out.push((
            at[0],
            Problem::new(if s.first == super::free::ANY {
                "the opening activation cannot pass: give at least one order (S3.2)".to_string()
            } else {
                format!(
                    "{}'s first activation cannot pass: give at least one order ({})",
                    s.first,
                    s.rule("S2.2", "S4.2")
                )
            }),
        ));
    }
    out
}

/// Which roll a step asks for.
#[derive(Clone, Copy, PartialEq)]
enum Attempt {
    Continuum,
    Interruptio,
}

fn header(
    s: &State,
    role: &str,
    head: Option<&Order>,
    lines: usize,
    at: usize,
    what: Attempt,
) -> Result<Option<Head>, (usize, Problem)> {
    let (test, verb, no): (Test, &str, &str) = match what {
        Attempt::Continuum => (can_continuum, "CONTINUUM", "PASS"),
        Attempt::Interruptio => (can_interrupt, "INTERRUPT WITH", "NO INTERRUPT"),
    };
    let hint = || {
        let can = eligible(s, role, test);
        if can.is_empty() {
            no.to_string()
        } else {
            format!("{verb} {} or {no}", can.join(", "))
        }
    };
    let battle = match (what, head) {
        (Attempt::Continuum, Some(Order::Pass)) | (Attempt::Interruptio, Some(Order::NoInterrupt)) if lines == 1 => {
            return Ok(None)
        }
        (Attempt::Continuum, Some(Order::Continuum { battle }))
        | (Attempt::Interruptio, Some(Order::Interrupt { battle })) => battle,
        _ => {
            return Err((
                at,
                Problem::new(format!("this step asks for {verb} <captain> (with his plan) or {no}")).hint(hint()),
            ))
        }
    };
    test(s, role, battle).map_err(|w| (at, Problem::new(w).hint(hint())))?;
    let cc = s.battle(battle).map(|b| b.cc).unwrap_or(1);
    Ok(Some((battle.clone(), Vec::new(), (cc - 1).max(1), 1)))
}

fn activation_hint(s: &State, role: &str) -> String {
    let can = eligible(s, role, can_activate);
    format!("ACTIVATE {}", can.join(" | "))
}

/// The plan's lines for `battle` (and any `THEN` part for the Battle its
/// `NEXT` names), as far as they can be judged before they run: names,
/// squads, one order a unit, OP, the path's hexes in a line.
/// Count an order's OP against the activation's (5.3.1): a problem once
/// the plan spends more than it has.
fn spend(spent: &mut i32, cost: i32, op: i32, battle: &str) -> Option<Problem> {
    *spent += cost;
    (*spent > op).then(|| Problem::new(format!("this order brings the OP spent to {spent}; {battle} has {op} (5.3.1)")))
}

#[allow(clippy::too_many_arguments)]
fn check_plan(
    s: &State,
    role: &str,
    battle: &str,
    general: &[OrderKind],
    op: i32,
    may_general: Option<i32>,
    plan: &[Order],
    at: &[usize],
    out: &mut Vec<(usize, Problem)>,
    chain: &mut Chain,
) {
    let fresh = chain.depth > 0;
    let b = s.battle(battle).cloned();
    // Each Captain's CC as the chain so far will have left it (`ccs`):
    // this activation steps its Captain down (4.0 s2, 4.4) from the CC it
    // began with.
    let began = chain.ccs.get(battle).copied().or(b.as_ref().map(|b| b.cc)).unwrap_or(1);
    chain.ccs.insert(battle.to_string(), (began - 1).max(s.tables.cat.min));
    // The General Order that opens a Continuum's plan (4.0 s1, 5.0.2).
    let (general, op, plan, at) = match (plan.first(), &b) {
        (Some(Order::General { kinds }), Some(bt)) if may_general.is_some() && general.is_empty() => {
            // Judged with the CC the Captain will have when he gives it.
            let mut then = bt.clone();
            then.cc -= may_general.unwrap_or(0);
            if let Err(w) = general_problem(s, &then, kinds) {
                out.push((at[0], Problem::new(w)));
            }
            (kinds.as_slice(), 0, &plan[1..], &at[1..])
        }
        _ => (general, op, plan, at),
    };
    // A Battle entering the map this activation (S2.10.2): its units are
    // placed before its orders run, so where they stand is not known yet.
    let entering = b.as_ref().map(|b| b.off_map).unwrap_or(false);
    let sp = split(plan);
    let mut ordered: Vec<&str> = Vec::new();
    let now = s.act.as_ref().filter(|a| a.battle == battle && !fresh);
    let mut squads: Vec<String> = now.map(|a| a.squads_done.clone()).unwrap_or_default();
    let mut squad = now.map(|a| a.squad.clone()).unwrap_or_default();
    let mut spent = 0;
    let mut waited = false;
    for (k, o) in sp.head.iter().enumerate() {
        let i = at[k];
        let mut bad = |p: Problem| out.push((i, p));
        if waited {
            bad(Problem::new("WAIT ends the plan of this mail; the rest comes in the next")
                .hint("send the lines after WAIT in your next mail"));
            continue;
        }
        match o {
            Order::Activate { .. }
            | Order::Continuum { .. }
            | Order::Interrupt { .. }
            | Order::Confusion { .. }
            | Order::Place { .. }
            | Order::RallyPoint { .. }
            | Order::Pass
            | Order::NoInterrupt => {
                bad(Problem::new(format!("{o}: one activation a plan; this line comes only at the head of its step")));
            }
            Order::General { .. } => bad(Problem::new(
                "a General Order opens the plan of a Basic Activation (ACTIVATE <captain> GENERAL …) or of a \
                 Continuum (its first line); an Interruptio gives Individual Orders only (4.0 1.a)",
            )),
            Order::Wait => waited = true,
            Order::Squad { leader } => {
                let Some(b) = &b else { continue };
                match b.squads.iter().find(|q| &q.leader.name == leader) {
                    None => bad(Problem::new(format!("{leader} is not a Squad Leader of {battle}'s Battle (14.1)"))),
                    Some(q) if squads.contains(&q.letter) => {
                        bad(Problem::new(format!("squad {leader} has acted in this activation (14.1.2)")))
                    }
                    Some(q) => {
                        squads.push(q.letter.clone());
                        squad = q.letter.clone();
                    }
                }
            }
            Order::Leader { leader, path } => {
                let Some(b) = &b else { continue };
                match b.squads.iter().find(|q| &q.leader.name == leader) {
                    None => bad(Problem::new(format!("{leader} is not a Squad Leader of {battle}'s Battle"))),
                    Some(q) => {
                        let from = chain.ends.get(leader).unwrap_or(&q.leader.hex);
                        if let Err(p) = path_problem(s, from, path) {
                            bad(p)
                        }
                        if let Some(end) = path.last() {
                            chain.ends.insert(leader.clone(), end.clone());
                        }
                    }
                }
            }
            Order::Captain { path } => {
                if let Some(b) = &b {
                    let key = format!("{battle} (Captain)");
                    if let Err(p) = path_problem(s, chain.ends.get(&key).unwrap_or(&b.captain.hex), path) {
                        bad(p)
                    }
                    if let Some(end) = path.last() {
                        chain.ends.insert(key, end.clone());
                    }
                }
            }
            Order::Standard { path } => match s.standards.iter().find(|x| x.battle == battle && !x.captured) {
                None => bad(Problem::new(format!(
                    "{battle}'s Battle has no standard (16.2: the option standards, at L'Aquila)"
                ))),
                Some(_) if !general.is_empty() => bad(Problem::new(
                    "a standard moves by an Individual Move Order, 1 OP (16.2.3); not under a General Order",
                )),
                Some(_)
                    if sp.head[..k].iter().any(|x| matches!(x, Order::Standard { .. }))
                        || s.act.as_ref().map(|a| a.battle == battle && a.standard_moved).unwrap_or(false) =>
                {
                    bad(Problem::new("the standard has had its Move Order in this activation (5.0.1)"))
                }
                Some(x) => {
                    // From the carrier's hex, unless the carrier moves
                    // first in this plan (the run then judges the path).
                    let carrier_moves = sp.head[..k].iter().any(|y| y.unit() == Some(x.carrier.as_str()));
                    let at = chain
                        .ends
                        .get(&x.carrier)
                        .cloned()
                        .or_else(|| s.unit(&x.carrier).map(|u| u.hex.clone()))
                        .unwrap_or_default();
                    if !carrier_moves {
                        if let Err(p) = path_problem(s, &at, path) {
                            bad(p)
                        }
                    }
                    if let Some(p) = spend(&mut spent, 1, op, battle) {
                        bad(p);
                    }
                }
            },
            Order::Combat { keep, losses, .. } => {
                for n in keep.iter().chain(losses) {
                    if s.unit(n).map(|u| u.side != role).unwrap_or(true) {
                        bad(Problem::new(format!(
                            "{n} is not one of your units: KEEP and LOSSES name your attackers (10.6.4, 10.8.1)"
                        )));
                    }
                }
            }
            Order::Policy(_) | Order::Next { .. } | Order::Then => {}
            _ => {
                let unit = o.unit().expect("a unit order");
                let kind = o.kind().expect("a unit order");
                let Some(u) = s.unit(unit) else { continue };
                if u.battle != battle {
                    bad(Problem::new(format!(
                        "{unit} is of {}'s Battle; {battle} gives the orders now (5.0.1)",
                        u.battle
                    ))
                    .hint(format!("units of {battle}'s Battle: {}", units_of(s, battle).join(", "))));
                    continue;
                }
                if u.side != role {
                    bad(Problem::new(format!("{unit} is not yours")));
                    continue;
                }
                if !u.alive() && !entering {
                    bad(Problem::new(format!("{unit} has routed")));
                    continue;
                }
                if ordered.contains(&unit) || (u.ordered && !fresh) {
                    bad(Problem::new(format!("{unit} has an order already: one order a unit an activation (5.0.1)")));
                    continue;
                }
                ordered.push(unit);
                if !u.squad.is_empty() && u.squad != squad {
                    bad(Problem::new(format!(
                        "{unit} belongs to squad {}: its orders follow SQUAD {} (14.1.2)",
                        u.squad,
                        b.as_ref()
                            .and_then(|b| b.squads.iter().find(|q| q.letter == u.squad))
                            .map(|q| q.leader.name.as_str())
                            .unwrap_or("")
                    )));
                    continue;
                }
                if !general.is_empty() {
                    if !entering && !in_command(s, battle, &u.squad).contains(unit) {
                        bad(Problem::new(format!(
                            "{unit} is out of command: a General Order reaches units in command only (5.2)"
                        )));
                    } else if kind == OrderKind::Reorganize {
                        bad(Problem::new("Reorganization is an Individual Order only (5.4.3)"));
                    } else if !general.contains(&kind) {
                        bad(Problem::new(format!(
                            "the General Order is {}: {unit} cannot {} (5.2.1)",
                            general.iter().map(|k| k.word()).collect::<Vec<_>>().join(" + "),
                            kind.word()
                        )));
                    }
                } else {
                    let commanded = entering || in_command(s, battle, &u.squad).contains(unit);
                    let cost = if commanded { kind.cost() } else { 2 };
                    if !commanded && kind != OrderKind::Move {
                        bad(Problem::new(format!("{unit} is out of command: only a Move order, at 2 OP (5.1.3)")));
                        continue;
                    }
                    if !commanded {
                        if let Err(p) = out_of_command_move(s, u, o) {
                            bad(p);
                        }
                    }
                    if let Some(p) = spend(&mut spent, cost, op, battle) {
                        bad(p);
                    }
                }
                match o {
                    Order::Charge { .. } => {
                        if !u.cavalry() || u.armour_rank() < 1 {
                            bad(Problem::new(format!(
                                "{unit} is {} armour {}; only M or H cavalry may charge (12.1)",
                                u.kind.name(),
                                u.armour
                            )));
                        } else if u.disorganized {
                            bad(Problem::new(format!("{unit} is Disorganized and cannot charge (12.1.1)")));
                        } else if u.at().map(|h| s.adjacent_enemy(h, &u.side)).unwrap_or(false) {
                            bad(Problem::new(format!("{unit} stands beside an enemy unit: no Carica! (12.1.2)"))
                                .hint(format!("MOVE {unit} ... ATTACK <target>")));
                        }
                    }
                    Order::Echelon { with, .. } => match s.unit(with) {
                        Some(r) if ordered.contains(&with.as_str()) || r.ordered => {
                            bad(Problem::new(format!("{with} has an order already (5.0.1)")));
                        }
                        Some(r) => {
                            if let Err(why) = act::echelon_problem(s, u, r) {
                                bad(Problem::new(why).hint(format!(
                                    "ECHELON {unit} WITH <a cavalry unit of its Battle in a rear hex, same facing>"
                                )));
                            }
                            ordered.push(with.as_str());
                        }
                        None => {}
                    },
                    Order::Rally { to, .. } => {
                        if let Err(why) = act::rally_hex(s, u, to.as_deref()) {
                            bad(Problem::new(why));
                        }
                    }
                    Order::Fire { .. } if u.kind != Kind::Crossbowmen => {
                        bad(Problem::new(format!("{unit} is {}: only crossbowmen fire (10.1)", u.kind.name())));
                    }
                    _ => {}
                }
                if u.militia && general.is_empty() {
                    chain.notes.push((i, "a militia unit: its order roll may fail, the OP spent (5.3.2)".into()));
                }
                if let (false, Order::Move { path, .. } | Order::Charge { path, .. }) = (entering, o) {
                    let hexes: Vec<String> =
                        path.iter().filter_map(|x| if let Step::Hex(h) = x { Some(h.clone()) } else { None }).collect();
                    // From where earlier lines of this mail leave it.
                    let from = chain.ends.get(unit).cloned().unwrap_or_else(|| u.hex.clone());
                    if !hexes.is_empty() {
                        if let Err(p) = path_problem(s, &from, &hexes) {
                            bad(p);
                        }
                    }
                    let beside = std::iter::once(&from)
                        .chain(&hexes)
                        .filter_map(|h| Hex::parse(h))
                        .any(|h| s.adjacent_enemy(h, &u.side));
                    if beside {
                        let why = "it moves beside the enemy: Reaction Fire or a Countercharge may stop it short (10.4, 12.2)";
                        chain.notes.push((i, why.into()));
                    }
                    if let Some(end) = hexes.last() {
                        chain.ends.insert(unit.to_string(), end.clone());
                    }
                }
            }
        }
    }
    if waited && sp.next.is_some() {
        let i = at.get(sp.head.len()).copied().unwrap_or(0);
        out.push((i, Problem::new("NEXT and THEN come at the end of the activation, in the mail after the WAIT")));
    }
    if let Some(n) = &sp.next {
        if n != "pass" {
            let i = at.get(sp.head.len()).copied().unwrap_or(0);
            if let Err(why) = next_problem(s, role, battle, n, &chain.ccs) {
                out.push((i, Problem::new(format!("NEXT CONTINUUM {n}: {why}")).hint("NEXT PASS, or another Captain")));
            }
        }
    }
    if plan.iter().filter(|o| matches!(o, Order::Next { .. })).count() > 0 && sp.next.is_none() {
        let i = at.get(sp.head.len()).copied().unwrap_or(0);
        out.push((
            i,
            Problem::new("THEN must follow a NEXT CONTINUUM line").hint("NEXT CONTINUUM Piccinino / THEN / his orders"),
        ));
    }
    if !sp.then.is_empty() {
        match &sp.next {
            Some(n) if n != "pass" => {
                // The CC the Continuum's plan will have, as play will make
                // it: every step down of the chain so far, then the
                // attempt's -1 (4.1).
                let cc = s.battle(n).map(|b| b.cc).unwrap_or(1);
                let before = chain.ccs.get(n.as_str()).copied().unwrap_or(cc);
                let start = (before - 1).max(1);
                chain.ccs.insert(n.clone(), start);
                let then_at = &at[plan.len() - sp.then.len()..];
                for &i in then_at {
                    chain.notes.push((
                        i,
                        format!(
                            "runs only if {n}'s Continuum succeeds (two dice at most his CC {before}, 4.1) and no \
                             Interruptio succeeds against it (4.2)"
                        ),
                    ));
                }
                chain.depth += 1;
                check_plan(s, role, n, &[], start, Some(cc - start), sp.then, then_at, out, chain);
                chain.depth -= 1;
            }
            _ => {
                let i = at.get(sp.head.len()).copied().unwrap_or(0);
                out.push((
                    i,
                    Problem::new("THEN needs a NEXT CONTINUUM <captain> before it").hint("NEXT CONTINUUM Piccinino"),
                ));
            }
        }
    }
}

/// Why `NEXT CONTINUUM n` cannot follow `battle`'s activation, as far as
/// it is known before it runs: n's side, the Malatestan ban (S2.6.1), the
/// School's second activation (14.0.2), two activations in a row (4.3).
fn next_problem(s: &State, role: &str, battle: &str, n: &str, ccs: &BTreeMap<String, i32>) -> Result<(), String> {
    let b = s.battle(n).ok_or("no such Captain")?;
    if b.side != role {
        return Err(format!("{n} is not your Captain"));
    }
    if !s.may_continuum(role) {
        return Err(format!("{} Captains can never make a Continuum (S2.6.1)", side_name(role)));
    }
    if n == battle && b.school {
        return Err(format!("a Braccesca Captain cannot make a second activation (14.0.2); {n} is the one activated"));
    }
    let count = if s.marker == battle { s.marker_count + 1 } else { 1 };
    if n == battle && count >= 2 {
        return Err(format!("{n} will have made two activations in a row (4.3)"));
    }
    // The attempt needs CC 2 (4.1), after every step down of the chain so
    // far.
    let cc = ccs.get(n).copied().unwrap_or(b.cc);
    if cc < 2 {
        return Err(format!("{n}'s CC will be {cc} when the Continuum is tried; it needs CC 2 or more (4.1)"));
    }
    Ok(())
}

/// 5.1.3: a unit out of command moves (2 OP) never to beside an enemy
/// unit, and must end in command if it can.
fn out_of_command_move(s: &State, u: &Unit, o: &Order) -> Result<(), Problem> {
    let Order::Move { path, attack, .. } = o else { return Ok(()) };
    if attack.is_some() {
        return Err(Problem::new(format!("{} is out of command: it may move, not attack (5.1.3)", u.name)));
    }
    let end = path
        .iter()
        .rev()
        .find_map(|x| if let Step::Hex(h) = x { Hex::parse(h) } else { None })
        .or_else(|| u.at())
        .ok_or_else(|| Problem::new(format!("{} is not on the map", u.name)))?;
    if path
        .iter()
        .any(|x| matches!(x, Step::Hex(h) if Hex::parse(h).map(|h| s.adjacent_enemy(h, &u.side)).unwrap_or(false)))
    {
        return Err(Problem::new(format!(
            "{} is out of command and may not move beside an enemy unit (5.1.3)",
            u.name
        )));
    }
    if !act::in_command_at(s, u, end) {
        let mut ok: Vec<String> = act::reachable(s, u, true)
            .into_iter()
            .filter(|h| act::in_command_at(s, u, *h))
            .map(|h| h.to_string())
            .collect();
        if !ok.is_empty() {
            ok.truncate(4);
            return Err(Problem::new(format!(
                "{} is out of command and must end in command when it can (5.1.3); {end} is not",
                u.name
            ))
            .hint(format!("hexes in command it can reach: {}", ok.join(", "))));
        }
    }
    Ok(())
}

fn units_of(s: &State, battle: &str) -> Vec<String> {
    s.units.iter().filter(|u| u.battle == battle && u.alive()).map(|u| u.name.clone()).collect()
}

/// Each hex of a path beside the one before, from `start`.
fn path_problem(s: &State, start: &str, path: &[String]) -> Result<(), Problem> {
    let Some(mut at) = Hex::parse(start) else { return Err(Problem::new("it is not on the map")) };
    for h in path {
        let to = Hex::parse(h).expect("parsed hex");
        if s.grid().direction(at, to).is_none() {
            let n: Vec<String> = s.grid().neighbours(at).iter().map(|x| x.to_string()).collect();
            return Err(Problem::new(format!("{to} is not beside {at}: a path names each hex entered in turn"))
                .hint(format!("the hexes beside {at}: {}", n.join(", "))));
        }
        at = to;
    }
    Ok(())
}

/// The first line of a `continuum` or `interruptio` step: the attempt and
/// the Battle its plan is for (its OP the CC after the attempt's -1), or
/// `None` for `PASS` / `NO INTERRUPT`; else the problem at line `at`.
type Head = (String, Vec<OrderKind>, i32, usize);
