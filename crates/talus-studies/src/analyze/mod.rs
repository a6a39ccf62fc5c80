//! Reading a run (`talus analyze`, `docs/analysis.md`): solid fractions from
//! exact sphere ∩ region volumes (`volume`, `fraction`), contacts and the
//! elastic normal forces (`contacts`), mass flow (`flow`), velocity profiles
//! (`velocity`), the angle of repose (`repose`); the run directory read
//! back (`rundir`), the options (`args`), the PNGs (`plot`) and the verbs
//! (`command`).

pub mod args;
pub mod command;
pub mod contacts;
pub mod flow;
pub mod fraction;
pub mod plot;
pub mod repose;
pub mod rundir;
pub mod velocity;
pub mod volume;
