//! What a checkpoint holds: a backend's state ([`Saved`]), the run
//! driver's ([`DriverState`]) and the file's header ([`Header`]); the
//! hash that identifies a scene file and checks the container.

use crate::flow::FlowTally;

/// Float width of a backend's arrays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Precision {
    /// The CPU reference path.
    F64,
    /// The GPU path (positions in 64-bit fixed point besides).
    F32,
}

impl Precision {
    pub fn name(self) -> &'static str {
        match self {
            Precision::F64 => "f64",
            Precision::F32 => "f32",
        }
    }
}

/// A backend's state between two steps.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SavedScalars {
    pub precision: Precision,
    /// Steps done.
    pub step: u64,
    /// Particles present (the arrays' length).
    pub particles: u64,
    pub next_id: u32,
    pub builds: u64,
    /// The next step rebuilds the neighbour list.
    pub rebuild: bool,
    pub max_overlap: f64,
    /// Particles each `[[insert]]` entry has inserted.
    pub inserted: Vec<u64>,
}

/// Per wall, the portable (f64) state both backends save as section
/// `walls`: servo displacement and velocity, translation and angle at the
/// last build, load force and torque.
pub const WALL_WORDS: usize = 12;

/// A backend's state: scalars and named arrays (little-endian bytes of
/// the backend's own types; see each backend's `save` for the names).
#[derive(Debug, Clone, PartialEq)]
pub struct Saved {
    pub scalars: SavedScalars,
    pub sections: Vec<(String, Vec<u8>)>,
}

impl Saved {
    /// The bytes of section `name`, or an error naming it.
    pub fn section(&self, name: &str) -> Result<&[u8], String> {
        self.sections
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, b)| b.as_slice())
            .ok_or_else(|| format!("section `{name}` is missing"))
    }

    /// Section `name` as `count` values of `T` (its length checked).
    pub fn array<T: bytemuck::Pod>(&self, name: &str, count: usize) -> Result<Vec<T>, String> {
        let b = self.section(name)?;
        let size = std::mem::size_of::<T>();
        if b.len() != count * size {
            return Err(format!(
                "section `{name}` holds {} bytes, expected {count} × {size}",
                b.len()
            ));
        }
        Ok(bytemuck::pod_collect_to_vec(b))
    }

    /// Section `name` as whole values of `T` (any count).
    pub fn array_any<T: bytemuck::Pod>(&self, name: &str) -> Result<Vec<T>, String> {
        let b = self.section(name)?;
        let size = std::mem::size_of::<T>();
        if b.len() % size != 0 {
            return Err(format!(
                "section `{name}` holds {} bytes, not a whole number of {size}-byte values",
                b.len()
            ));
        }
        Ok(bytemuck::pod_collect_to_vec(b))
    }

    pub fn put<T: bytemuck::Pod>(&mut self, name: &str, v: &[T]) {
        self.sections
            .push((name.to_string(), bytemuck::cast_slice(v).to_vec()));
    }

    /// Sets (or adds) the list's history ([`crate::state::Hist`]) as
    /// sections `nbr_hist` (ξ, k_t per entry) and, when `roll` (a rolling
    /// model with memory), `nbr_roll` (the rolling torque and its zero): a
    /// run without it saves what it saved before the rolling spring
    /// existed.
    pub fn put_hist<T: bytemuck::Pod>(&mut self, hist: &[[T; 8]], roll: bool) {
        let half = |k: usize| -> Vec<[T; 4]> {
            hist.iter()
                .map(|h| [h[k], h[k + 1], h[k + 2], h[k + 3]])
                .collect()
        };
        self.set("nbr_hist", &half(0));
        if roll {
            self.set("nbr_roll", &half(4));
        }
    }

    /// The list's history [`Saved::put_hist`] saved (the rolling half zero
    /// when the checkpoint has none), in `T` (f32 or f64, as saved).
    pub fn hist<T: bytemuck::Pod + Default>(&self) -> Result<Vec<[T; 8]>, String> {
        let t: Vec<[T; 4]> = self.array_any("nbr_hist")?;
        let r: Vec<[T; 4]> = match self.section("nbr_roll") {
            Ok(_) => self.array("nbr_roll", t.len())?,
            Err(_) => vec![[T::default(); 4]; t.len()],
        };
        Ok(t.iter()
            .zip(&r)
            .map(|(t, r)| [t[0], t[1], t[2], t[3], r[0], r[1], r[2], r[3]])
            .collect())
    }

    /// Section `name` set to `v` (added when missing).
    pub fn set<T: bytemuck::Pod>(&mut self, name: &str, v: &[T]) {
        let bytes = bytemuck::cast_slice(v).to_vec();
        match self.sections.iter_mut().find(|(n, _)| n == name) {
            Some((_, b)) => *b = bytes,
            None => self.sections.push((name.into(), bytes)),
        }
    }
}

/// The run driver's state at a checkpoint: enough to continue every output
/// where it stood.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct DriverState {
    /// Step index of the next energy row.
    pub next_row: u64,
    /// Number of the next snapshot.
    pub snapshot_k: usize,
    /// particles.pvd's entries (time, file).
    pub pvd: Vec<(f64, String)>,
    /// walls.pvd's entries.
    pub walls_pvd: Vec<(f64, String)>,
    /// `bodies.pvd`'s entries so far.
    #[serde(default)]
    pub bodies_pvd: Vec<(f64, String)>,
    /// The energy balance's reference: total and moving energy at the
    /// first row.
    pub e0: Option<(f64, f64)>,
    /// Bytes of each table written when the checkpoint was taken
    /// (`energy.csv`, `walls.csv`, `flow.csv`): a resumed run cuts them
    /// back to these, so nothing is written twice.
    pub tables: Vec<(String, u64)>,
    /// [`hash64`] of each table's bytes then (hex, as `tables`): a resumed
    /// run continues only the tables this checkpoint's run wrote (empty in
    /// checkpoints of earlier versions: lengths checked only).
    #[serde(default)]
    pub table_hashes: Vec<(String, String)>,
    pub flow: FlowTally,
    /// Wall-clock seconds the run has taken so far.
    pub wall_seconds: f64,
    /// Largest |residual| ratio so far.
    pub residual_ratio: f64,
}

/// A checkpoint's header.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Header {
    /// talus's version that wrote it.
    pub talus: String,
    pub scene: String,
    /// The scene file it ran (None for a scene built in code).
    pub scene_file: Option<String>,
    /// [`scene_hash`] of that file's bytes.
    pub scene_hash: String,
    /// "cpu" or "gpu", and the adapter.
    pub backend: String,
    pub adapter: String,
    /// The run's time step (s).
    pub dt: f64,
    /// The scene's material names, in its order (the particles' material
    /// indices point here; empty in checkpoints of earlier versions).
    #[serde(default)]
    pub materials: Vec<String>,
    pub state: SavedScalars,
    pub driver: DriverState,
}

/// A 64-bit hash of bytes (hex): a scene file's identity in a checkpoint,
/// and the checkpoint's checksum.
pub fn hash64(bytes: &[u8]) -> u64 {
    const P: u64 = 0x100_0000_01B3;
    let mut h: u64 = 0xCBF2_9CE4_8422_2325;
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        let w = u64::from_le_bytes(c.try_into().expect("8 bytes"));
        h = (h ^ w).wrapping_mul(P).rotate_left(29);
    }
    for &b in chunks.remainder() {
        h = (h ^ b as u64).wrapping_mul(P);
    }
    h ^ (bytes.len() as u64)
}

/// The hash of a scene file's bytes, as a checkpoint records it.
pub fn scene_hash(bytes: &[u8]) -> String {
    format!("{:016x}", hash64(bytes))
}
