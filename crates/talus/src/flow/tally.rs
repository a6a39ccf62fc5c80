//! What went in and out of a run: per `[[insert]]` and per outlet (the
//! open domain's boundary is the last outlet, named `domain`) the count,
//! mass and energy of the particles, summed in a fixed order (step, then
//! id) so that the sums do not depend on how the run was cut into calls
//! or resumed.

/// A particle inserted or removed.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum FlowKind {
    /// By `[[insert]]` entry `k`.
    Inserted(usize),
    /// By outlet `k` (`outlets.len()`: the domain's boundary).
    Removed(usize),
}

/// One particle in or out: at the start of step `step` (inserted) or at
/// the end of step `step − 1` (removed; the same instant).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FlowEvent {
    pub step: u64,
    pub id: u32,
    pub kind: FlowKind,
    /// kg
    pub mass: f64,
    /// Its kinetic + rotational + potential energy, plus the energy its
    /// contacts dissipated so far and its share of elastic energy (J):
    /// what the run's energy total gains or loses with it.
    pub energy: f64,
}

/// Count, mass and energy.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Counter {
    pub count: u64,
    pub mass: f64,
    pub energy: f64,
}

impl Counter {
    fn add(&mut self, e: &FlowEvent) {
        self.count += 1;
        self.mass += e.mass;
        self.energy += e.energy;
    }
}

/// Cumulative flow of a run (kept in its checkpoint).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct FlowTally {
    /// Per `[[insert]]` entry.
    pub inserted: Vec<Counter>,
    /// Per outlet, then the domain's boundary.
    pub removed: Vec<Counter>,
    /// Batches that placed fewer particles than their target asked, per
    /// `[[insert]]` entry.
    pub short_batches: Vec<u64>,
}

impl FlowTally {
    pub fn new(inserts: usize, outlets: usize) -> Self {
        FlowTally {
            inserted: vec![Counter::default(); inserts],
            removed: vec![Counter::default(); outlets + 1],
            short_batches: vec![0; inserts],
        }
    }

    /// Adds `events` in (step, id) order.
    pub fn add(&mut self, events: &mut [FlowEvent]) {
        events.sort_by_key(|e| (e.step, matches!(e.kind, FlowKind::Removed(_)), e.id));
        for e in events.iter() {
            match e.kind {
                FlowKind::Inserted(k) => self.inserted[k].add(e),
                FlowKind::Removed(k) => self.removed[k].add(e),
            }
        }
    }

    pub fn inserted_total(&self) -> Counter {
        sum(&self.inserted)
    }

    pub fn removed_total(&self) -> Counter {
        sum(&self.removed)
    }

    /// Energy brought in minus energy taken out (J): what the energy
    /// balance's residual must not count as error.
    pub fn net_energy(&self) -> f64 {
        self.inserted_total().energy - self.removed_total().energy
    }
}

fn sum(c: &[Counter]) -> Counter {
    let mut t = Counter::default();
    for x in c {
        t.count += x.count;
        t.mass += x.mass;
        t.energy += x.energy;
    }
    t
}
