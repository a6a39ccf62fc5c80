//! Memory admission: what a run will hold, compared with what the machine
//! has, before anything large is allocated. A run that cannot fit is
//! refused in one line giving both figures and the largest count that
//! fits, instead of allocating until the allocator aborts.
//!
//! - The machine: `MemAvailable` of `/proc/meminfo` (what can be had
//!   without swapping: a shared machine's free memory and its reclaimable
//!   cache), capped by `TALUS_MEMORY` when set (`8G`, `512M`, `1.5GiB` or
//!   bytes: an operator's share of a shared machine, and how the tests
//!   play a small one). Unknown elsewhere: nothing is refused there.
//! - The estimates (`setup::MemoryPlan`, from a resolved scene): bytes
//!   per particle of each path at the list size `talus check` plans for
//!   ([`PLANNED_ENTRIES`]), the scene's own particle list, the grid's
//!   cells, the FEM bodies. The same plan and the same [`admit`] give
//!   `talus check` and `talus run` the same verdict. The GPU's device
//!   memory is admitted by `gpu::fit::admit` (against the adapter's).

/// The environment variable that caps the memory talus counts on.
pub const LIMIT_ENV: &str = "TALUS_MEMORY";

/// List entries per particle the plans count: a dense bed lists 12–16 (the
/// walls within reach are entries too) once its list has grown to its
/// need.
pub const PLANNED_ENTRIES: usize = 16;

/// Bytes of one particle in a scene's list (`ParticleInit`).
pub const SCENE_BYTES_PER_PARTICLE: u64 = std::mem::size_of::<crate::scene::ParticleInit>() as u64;

/// Host bytes per particle while a scene loads: its list and the initial
/// overlap check's positions, cell keys and order (40), with a margin for
/// the check's cells (8).
pub const LOAD_BYTES_PER_PARTICLE: u64 = SCENE_BYTES_PER_PARTICLE + 48;

/// Host bytes per particle the GPU path allocates as it starts (the
/// scene's list is already loaded): the f64 state it is converted from
/// (112), the f32 state (56), the fixed point positions (32) and the
/// motion records in f64 and f32 (128 + 64).
pub const GPU_HOST_BYTES_PER_PARTICLE: u64 = 112 + 56 + 32 + 128 + 64;

/// Host bytes per FEM element (connectivity, shape gradients and weights,
/// reference positions, incidence, the build's per-element scratch):
/// linear and quadratic tetrahedra; and per node (positions, velocities,
/// the force terms, saved state: ~20 vectors).
pub const FEM_BYTES_PER_TET: [u64; 2] = [600, 2400];
pub const FEM_BYTES_PER_NODE: u64 = 600;

/// The memory the run may count on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Host {
    /// Bytes it may use: available memory, or `TALUS_MEMORY` if smaller.
    pub usable: u64,
    /// The machine's total memory.
    pub total: u64,
    /// Whether `TALUS_MEMORY` set `usable`.
    pub capped: bool,
}

impl Host {
    /// "this machine has 21.30 GiB available of 23.40 GiB" (or
    /// "TALUS_MEMORY allows 1.00 GiB").
    pub fn describe(&self) -> String {
        if self.capped {
            format!("{LIMIT_ENV} allows {}", gib(self.usable))
        } else {
            format!(
                "this machine has {} available of {}",
                gib(self.usable),
                gib(self.total)
            )
        }
    }
}

/// Bytes as "1.50 GiB" (MiB below one GiB, KiB below one MiB).
pub fn gib(b: u64) -> String {
    if b >= 1 << 30 {
        format!("{:.2} GiB", b as f64 / 1073741824.0)
    } else if b >= 1 << 20 {
        format!("{:.1} MiB", b as f64 / 1048576.0)
    } else {
        format!("{:.1} KiB", b as f64 / 1024.0)
    }
}

/// A size like `8G`, `512M`, `1.5GiB`, `64k` or plain bytes.
pub fn parse_size(s: &str) -> Option<u64> {
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let x: f64 = num.parse().ok()?;
    let scale = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kb" | "kib" => 1024.0,
        "m" | "mb" | "mib" => 1048576.0,
        "g" | "gb" | "gib" => 1073741824.0,
        "t" | "tb" | "tib" => 1099511627776.0,
        _ => return None,
    };
    let b = x * scale;
    (b.is_finite() && b >= 1.0).then_some(b as u64)
}

/// The memory a run may count on (None: unknown here and not capped),
/// or an error for a `TALUS_MEMORY` that is not a size.
pub fn host() -> Result<Option<Host>, String> {
    let cap = match std::env::var(LIMIT_ENV) {
        Ok(v) => Some(parse_size(&v).ok_or_else(|| {
            format!("{LIMIT_ENV}: expected a size like 8G, 512M or a number of bytes, got \"{v}\"")
        })?),
        Err(_) => None,
    };
    let info = std::fs::read_to_string("/proc/meminfo").ok();
    let field = |name: &str| -> Option<u64> {
        let text = info.as_ref()?;
        let line = text.lines().find(|l| l.starts_with(name))?;
        let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kib * 1024)
    };
    let (avail, total) = (field("MemAvailable:"), field("MemTotal:"));
    Ok(match (avail.or(total), cap) {
        (Some(a), Some(c)) if c < a => Some(Host {
            usable: c,
            total: total.unwrap_or(a),
            capped: true,
        }),
        (Some(a), _) => Some(Host {
            usable: a,
            total: total.unwrap_or(a),
            capped: false,
        }),
        (None, Some(c)) => Some(Host {
            usable: c,
            total: c,
            capped: true,
        }),
        (None, None) => None,
    })
}

/// Refuses `need` bytes (`fixed` of them whatever the count, the rest `per`
/// bytes per `items`) when they exceed what the machine has: "`what` need
/// about N GiB of memory, this machine has M GiB available of T GiB: at
/// most K `items` fit". Nothing is refused where the memory is unknown.
pub fn admit(what: &str, need: u64, fixed: u64, per: u64, items: &str) -> Result<(), String> {
    let Some(h) = host()? else { return Ok(()) };
    if need <= h.usable {
        return Ok(());
    }
    let fits = h.usable.saturating_sub(fixed) / per.max(1);
    Err(format!(
        "{what} need about {} of memory, {}: at most {fits} {items} fit",
        gib(need),
        h.describe()
    ))
}

/// Refuses a list of `count` particles a generator is about to build when
/// the scene could not even be loaded and checked
/// ([`LOAD_BYTES_PER_PARTICLE`]; `what` names the generator).
pub fn admit_list(what: &str, count: u64) -> Result<(), String> {
    admit(
        &format!("{what}: {count} particles"),
        count.saturating_mul(LOAD_BYTES_PER_PARTICLE),
        0,
        LOAD_BYTES_PER_PARTICLE,
        "particles",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_as_operators_write_them() {
        assert_eq!(parse_size("8G"), Some(8 << 30));
        assert_eq!(parse_size("512M"), Some(512 << 20));
        assert_eq!(parse_size("1.5GiB"), Some(3 << 29));
        assert_eq!(parse_size("64k"), Some(65536));
        assert_eq!(parse_size("1000"), Some(1000));
        assert_eq!(parse_size(" 2 gb "), Some(2 << 30));
        for bad in ["", "G", "-1G", "8X", "0", "nan", "1e3"] {
            assert_eq!(parse_size(bad), None, "{bad}");
        }
        assert_eq!(gib(3 << 29), "1.50 GiB");
        assert_eq!(gib(5 << 20), "5.0 MiB");
        assert_eq!(gib(40 << 10), "40.0 KiB");
    }
}
