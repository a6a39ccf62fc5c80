//! Bonded cantilevers (parallel bonds, Potyondy & Cundall 2004) under
//! gravity against beam theory and against the bonded spheres' own
//! linear statics and slowest mode (`bond_lattice.rs`: the bonds' axial,
//! shear and bending springs on their arms to the disc midway, solved as a
//! linear system, written out there, not the engine's):
//!
//! - a chain of 11 spheres along x, the first held by `[[fixed]]`: its
//!   tip deflection against Euler–Bernoulli with the spheres' weights as
//!   point loads P at a_i = i L (L the centres' distance, l = N L),
//!   δ = Σ P a_i² (3l − a_i) / (6 E I), E I = E π R̄⁴/4 (a bond's bending
//!   spring k̄_n I = (E/L) I is a beam segment of rigidity E I and length
//!   L), and against the discrete chain's exact static deflection;
//! - a 3 × 3 × 11 bundle (layers of nine spheres, every neighbour bonded,
//!   the first layer held). Plane sections turning by φ stretch a column
//!   at height y by y Δφ, so its axial spring k̄_n A = E A / L adds E A y²
//!   to the section's rigidity, and each column's own bending spring
//!   k̄_n I adds E I: E I = E (9 I + A Σ y²) = E (9 π R̄⁴/4 + 6 π R̄² L²)
//!   (three columns at y = ±L about the bending axis). Ten layers long
//!   (l/L = 10) the bundle also shears, and the lattice shears more
//!   easily than its plane sections would: a sphere turns freely, so the
//!   shear a layer's bonds pass on (9 k̄_s A, plane sections' κ G A = 9
//!   k̄_s A L) must also pass between the rows through the in-layer bonds'
//!   shear springs, in series (as a continuum's complementary shear); with
//!   the force each carries from the spheres' balance (`lattice_kga`) the
//!   lattice's κ G A is 2.4 times softer. Judged: Euler–Bernoulli plus
//!   Timoshenko's shear term Σ P a_i / (κ G A) with the lattice's κ G A,
//!   within 2 % (−1.5 % at 10 layers, the clamp keeping the first spheres
//!   from turning: −0.3 % at 20, −0.1 % at 30, `the_lattice_shear_term_
//!   converges`), and the discrete bundle's exact deflection;
//!   Euler–Bernoulli alone and with plane sections' shear term printed.
//! - the first bending frequency: the tip's free oscillation against the
//!   slowest mode of the discrete chain (bundle) by inverse iteration (K φ
//!   = ω² M φ, the spheres' masses and moments of inertia 2/5 m r²), and
//!   the chain's against Rayleigh's quotient of Euler–Bernoulli's first
//!   mode with the spheres as point masses at the nodes. The continuum's
//!   f₁ = (1.875²/2π) √(E I / (μ l⁴)), μ = m / L, is printed beside, not
//!   judged: the spheres' masses sit at the nodes, the tip's at the free
//!   end, half a pitch beyond where a uniform beam's last L of mass sits
//!   on average, which (Rayleigh, ∫₀ˡ φ² = l φ(l)²/4) adds 2/N to the
//!   modal mass and lowers f₁ by 1/N: 9.4 % for N = 10. The spheres'
//!   rotary inertia lowers it by only 0.2 % (printed).
//!
//! Released from the straight shape the bonds carry nothing at t = 0, so
//! the structure rings about its static shape with no damping (the
//! bonds' own damping hardly reaches the slowest mode: a bond's bending
//! dashpot is sized for its own spring's rate on the spheres' moments of
//! inertia, ω_b = √(k̄_n I / I*) = 1.4·10⁵ rad/s, 140 times the chain's
//! ω₁, so the mode's damping ratio would be ~ζ ω₁/ω_b ≈ ζ/140 and
//! settling would take hundreds of thousands of steps). The tip's deflection is δ_s − Σ_k c_k cos
//! ω_k t: the static deflection is its mean over whole periods of the
//! first mode (exact for that mode; the higher modes, ~3 % of the swing,
//! average to within c_k / (ω_k T) of zero), and the period is the time
//! between the first and last of its upward crossings of that mean over
//! the periods between.

use super::bond_lattice::{BondMake, Lattice};
use super::common::{err, measured, theory_series};
use crate::validate::maker::Maker;
use crate::validate::result::{CaseResult, Plot};
use crate::validate::row::{Row, Tol};
use std::f64::consts::PI;
use talus::scene::types::{BondPairs, BondSpec, Region};
use talus::scene::{Material, Scene, SceneBuilder};

/// The spheres' radius (m) and density, the bonds' modulus (Pa) and
/// normal over shear stiffness, the surface gap between neighbours (m:
/// they never touch, so no contact adds to the bonds), gravity.
pub(super) const R: f64 = 1e-3;
pub(super) const RHO: f64 = 2500.0;
pub(super) const E_BOND: f64 = 1e8;
pub(super) const RATIO: f64 = 2.5;
pub(super) const SURFACE_GAP: f64 = 1e-5;
pub(super) const PITCH: f64 = 2.0 * R + SURFACE_GAP;
const G: f64 = 9.81;
/// dt = SAFETY × the bonds' limit (half the fastest bond oscillator's
/// critical step, `timestep`; the case checks that the bonds, not the
/// contacts, set it):
/// the explicit step is stable there, and the slowest mode, some
/// thousands of steps a period, is integrated to ~(ω₁ dt)²/24 ~ 10⁻⁷.
const SAFETY: f64 = 0.5;
/// Bonds along the chain and along the bundle.
const CHAIN: usize = 10;
const BUNDLE: usize = 10;
/// Whole periods of the first mode a run covers.
const PERIODS: f64 = 3.3;
/// Euler–Bernoulli's first cantilever root, β₁ l.
const BETA1: f64 = 1.875_104_068_711_961;

/// The spheres' material (also case `beam`'s).
pub(super) fn grain() -> Material {
    Material {
        restitution: 0.5,
        friction: 0.5,
        ..Material::new("grain", RHO, 1e8)
    }
}

fn bond_spec() -> BondSpec {
    BondSpec {
        pairs: BondPairs::Materials([0, 0]),
        at: 0.0,
        gap: 2.0 * SURFACE_GAP,
        radius_ratio: 1.0,
        youngs_modulus: E_BOND,
        stiffness_ratio: RATIO,
        tensile_strength: None,
        shear_strength: None,
        damping: 0.0,
    }
}

/// A bonded cantilever along x of `side` × `side` columns and `bonds`
/// bonds along, its first layer (x = 0) held: the scene, its spheres'
/// centres (layer by layer: the tip's are the last side²) and the same
/// spheres as a lattice.
struct Beam {
    scene: Scene,
    side: usize,
    lattice: Lattice,
}

fn beam(name: &str, side: usize, bonds: usize) -> Result<Beam, String> {
    let half = 0.5 * (side as f64 - 1.0) * PITCH;
    let ext = half + 4.0 * R;
    let mut b = SceneBuilder::new(name)
        .domain(
            [-3.0 * R, -ext, -ext],
            [bonds as f64 * PITCH + 3.0 * R, ext, ext],
        )
        .gravity([0.0, 0.0, -G])
        .dt_auto(SAFETY)
        .steps(1)
        .material(grain())
        .bonds(bond_spec())
        .fixed(Region::Box {
            min: [-0.5 * R, -ext, -ext],
            max: [0.5 * R, ext, ext],
        });
    let (mut x, mut held) = (Vec::new(), Vec::new());
    for i in 0..=bonds {
        for j in 0..side {
            for k in 0..side {
                let p = [
                    i as f64 * PITCH,
                    j as f64 * PITCH - half,
                    k as f64 * PITCH - half,
                ];
                b = b.particle(p, [0.0; 3], R, "grain");
                x.push(p);
                held.push(i == 0);
            }
        }
    }
    let n = x.len();
    let lattice = Lattice::new(
        x,
        vec![R; n],
        held,
        RHO,
        BondMake {
            youngs: E_BOND,
            stiffness_ratio: RATIO,
            radius_ratio: 1.0,
            gap: 2.0 * SURFACE_GAP,
        },
    );
    Ok(Beam {
        scene: b.build().map_err(err)?,
        side,
        lattice,
    })
}

/// Beam theory for a beam of `side` × `side` columns and `bonds` bonds
/// along: E I of its section, the tip deflection under the layers'
/// weights as point loads P at a_i = i L (Euler–Bernoulli's, and
/// Timoshenko's shear term with the lattice's κ G A and with plane
/// sections' 9 k̄_s A L), and f₁: Euler–Bernoulli's for a uniform μ, and
/// Rayleigh's quotient of its first mode φ with the spheres as point
/// masses at the nodes (`rayleigh`).
struct Theory {
    ei: f64,
    length: f64,
    bending: f64,
    shear: f64,
    shear_plane: f64,
    f1: f64,
    rayleigh: f64,
}

/// Timoshenko's κ G A of a bonded lattice `side` rows deep (m: N): see
/// the module's doc. Per column plane (the section's `side` planes ⊥ y
/// share V equally), rows at heights z_r and plane sections in bending:
/// row r's axial force grows by ΔN_r = (A z_r L / I_p) V per segment
/// (I_p = Σ A z² + side I), passed between rows by the in-layer bonds'
/// shear H (the sum of ΔN over the rows above an interface); each
/// sphere's turn balances its two inter-layer shear forces S_r (lever
/// L/2 each) against its bending springs' share (I / I_p) V L and the
/// in-layer shear at L/2 above and below: S_r = (I/I_p) V + (H_↑ + H_↓)/2.
/// Both kinds of shear spring (k̄_s A each) in series: a segment shears by
/// V c / (k̄_s A), c = Σ_r (S_r/V)² + Σ (H/V)², so κ G A = side k̄_s A L
/// / c. For a chain (side 1), c = 1: κ G A = k̄_s A L.
pub(super) fn lattice_kga(side: usize) -> f64 {
    let (area, i2) = (PI * R * R, 0.25 * PI * R.powi(4));
    let half = 0.5 * (side as f64 - 1.0) * PITCH;
    let z: Vec<f64> = (0..side).map(|r| r as f64 * PITCH - half).collect();
    let ip = z.iter().map(|z| area * z * z).sum::<f64>() + side as f64 * i2;
    // the rows' ΔN / V, and the interfaces' H / V (H_k between rows k, k+1)
    let dn: Vec<f64> = z.iter().map(|z| area * z * PITCH / ip).collect();
    let h: Vec<f64> = (0..side - 1).map(|k| dn[k + 1..].iter().sum()).collect();
    let mut c = h.iter().map(|h| h * h).sum::<f64>();
    for r in 0..side {
        let below = if r > 0 { h[r - 1] } else { 0.0 };
        let above = if r + 1 < side { h[r] } else { 0.0 };
        c += (i2 / ip + 0.5 * (below + above)).powi(2);
    }
    let ks = E_BOND / PITCH / RATIO * area;
    side as f64 * ks * PITCH / c
}

fn theory(side: usize, bonds: usize) -> Theory {
    let (area, i2) = (PI * R * R, 0.25 * PI * R.powi(4));
    let half = 0.5 * (side as f64 - 1.0) * PITCH;
    // Σ y² over the columns (bending about y: their heights z)
    let y2: f64 = (0..side)
        .map(|k| (k as f64 * PITCH - half).powi(2) * side as f64)
        .sum();
    let cols = (side * side) as f64;
    let ei = E_BOND * (cols * i2 + area * y2);
    let kga = lattice_kga(side);
    let kga_plane = cols * E_BOND * area / RATIO;
    let m = RHO * 4.0 / 3.0 * PI * R.powi(3);
    let p = cols * m * G;
    let l = bonds as f64 * PITCH;
    let (mut bending, mut shear, mut shear_plane) = (0.0, 0.0, 0.0);
    for i in 1..=bonds {
        let a = i as f64 * PITCH;
        bending += p * a * a * (3.0 * l - a) / (6.0 * ei);
        shear += p * a / kga;
        shear_plane += p * a / kga_plane;
    }
    let mu = cols * m / PITCH;
    // the first mode φ(x) = cosh βx − cos βx − σ (sinh βx − sin βx):
    // ∫ E I φ''² = E I β⁴ ∫ φ² and ∫₀ˡ φ² = l φ(l)²/4
    let beta = BETA1 / l;
    let sigma = (BETA1.cosh() + BETA1.cos()) / (BETA1.sinh() + BETA1.sin());
    let phi = |x: f64| {
        let b = beta * x;
        b.cosh() - b.cos() - sigma * (b.sinh() - b.sin())
    };
    let lumped: f64 = (1..=bonds)
        .map(|i| cols * m * phi(i as f64 * PITCH).powi(2))
        .sum();
    let rayleigh = (ei * beta.powi(4) * l * phi(l).powi(2) / 4.0 / lumped).sqrt() / (2.0 * PI);
    Theory {
        ei,
        length: l,
        bending,
        shear,
        shear_plane,
        f1: BETA1 * BETA1 / (2.0 * PI) * (ei / (mu * l.powi(4))).sqrt(),
        rayleigh,
    }
}

/// The tip layer's mean downward deflection (m) every few steps: (t, δ).
fn ring(mk: &mut dyn Maker, b: &Beam, period: f64) -> Result<(f64, Vec<(f64, f64)>), String> {
    let setup = talus::Setup::new(b.scene.clone()).map_err(err)?;
    let dt = setup.dt;
    let mut be = mk.make_setup(&setup)?;
    let every = ((period / dt / 200.0) as u64).max(1);
    let chunks = (PERIODS * period / (every as f64 * dt)).ceil() as u64;
    let tips = b.side * b.side;
    let first = b.scene.particles.len() - tips;
    let z0: f64 = b.scene.particles[first..]
        .iter()
        .map(|p| p.position[2])
        .sum::<f64>()
        / tips as f64;
    let mut out = vec![(0.0, 0.0)];
    for c in 1..=chunks {
        be.advance(every).map_err(err)?;
        let s = be.snapshot();
        if s.pos_rad.len() != b.scene.particles.len() {
            return Err("a sphere left the domain".into());
        }
        let z = s.pos_rad[first..].iter().map(|p| p[2]).sum::<f64>() / tips as f64;
        out.push(((c * every) as f64 * dt, z0 - z));
    }
    let broken = be.bonds().counts();
    if broken.intact as usize != b.lattice.links.len() {
        return Err(format!(
            "{} bonds intact, {} formed by the lattice",
            broken.intact,
            b.lattice.links.len()
        ));
    }
    Ok((dt, out))
}

/// The mean of a ringing series over whole periods and the period: the
/// first and last upward crossings of the mean (found again about the
/// new mean, twice), the trapezoid mean between them, and their distance
/// over the periods between. None with fewer than two crossings.
fn whole_periods(s: &[(f64, f64)]) -> Option<(f64, f64, usize)> {
    let mut mean = s.iter().map(|p| p.1).sum::<f64>() / s.len() as f64;
    let mut out = None;
    for _ in 0..3 {
        let ups: Vec<f64> = s
            .windows(2)
            .filter(|w| w[0].1 < mean && w[1].1 >= mean)
            .map(|w| w[0].0 + (mean - w[0].1) / (w[1].1 - w[0].1) * (w[1].0 - w[0].0))
            .collect();
        if ups.len() < 2 {
            return None;
        }
        let (t0, t1) = (ups[0], ups[ups.len() - 1]);
        // ∫ δ dt over [t0, t1], the end intervals cut linearly
        let mut area = 0.0;
        for w in s.windows(2) {
            let (a, b) = (w[0].0.max(t0), w[1].0.min(t1));
            if b <= a {
                continue;
            }
            let at = |t: f64| w[0].1 + (w[1].1 - w[0].1) * (t - w[0].0) / (w[1].0 - w[0].0);
            area += 0.5 * (at(a) + at(b)) * (b - a);
        }
        mean = area / (t1 - t0);
        out = Some((mean, (t1 - t0) / (ups.len() - 1) as f64, ups.len() - 1));
    }
    out
}

/// What one beam's run measured against its references.
struct Measured {
    statics: f64,
    discrete: f64,
    freq: f64,
    freq_discrete: f64,
    freq_point: f64,
    periods: usize,
    dt: f64,
    steps: usize,
    most: f64,
    series: Vec<(f64, f64)>,
}

fn measure(mk: &mut dyn Maker, b: &Beam) -> Result<Measured, String> {
    let g = [0.0, 0.0, -G];
    let u = b.lattice.statics(g);
    let tips = b.side * b.side;
    let discrete = -u[u.len() - tips..].iter().map(|u| u[2]).sum::<f64>() / tips as f64;
    let omega = b.lattice.slowest(g, true);
    let (dt, s) = ring(mk, b, 2.0 * PI / omega)?;
    let (statics, period, periods) =
        whole_periods(&s).ok_or("the tip did not ring through two periods")?;
    Ok(Measured {
        statics,
        discrete,
        freq: 1.0 / period,
        freq_discrete: omega / (2.0 * PI),
        freq_point: b.lattice.slowest(g, false) / (2.0 * PI),
        periods,
        dt,
        steps: (s.last().map_or(0.0, |p| p.0) / dt).round() as usize,
        most: s.iter().map(|p| p.1).fold(0.0, f64::max),
        series: s,
    })
}

pub fn case_bonds(mk: &mut dyn Maker) -> Result<CaseResult, String> {
    let mut out = CaseResult::default();
    out.notes.push(format!(
        "spheres R = {R} m, ρ = {RHO} kg/m³, {SURFACE_GAP:e} m apart (L = {PITCH:e} m); bonds E = {E_BOND:e} Pa, k̄_n/k̄_s = {RATIO}, R̄ = R, no damping; g = {G} m/s²; dt = {SAFETY} × the bonds' limit"
    ));
    for (name, side, bonds) in [("bonds chain", 1, CHAIN), ("bonds bundle", 3, BUNDLE)] {
        let b = beam(name, side, bonds)?;
        let th = theory(side, bonds);
        let m = measure(mk, &b)?;
        let what = if side == 1 {
            format!("a chain of {} spheres", bonds + 1)
        } else {
            format!("a {side} × {side} × {} bundle", bonds + 1)
        };
        let est = talus::timestep::estimate(&b.scene);
        if est.bond_limit > est.stable_limit {
            return Err(format!(
                "the step is set by the contacts ({:e} s), not the bonds ({:e} s)",
                est.stable_limit, est.bond_limit
            ));
        }
        out.notes.push(format!(
            "{name}: {what}, {} bonds, l = {:.4e} m, E I = {:.4e} N m²; dt = {:.3e} s, {} steps, {} whole periods; tip deflection at most {:.4e} m (2 × static: {:.4e})",
            b.lattice.links.len(),
            th.length,
            th.ei,
            m.dt,
            m.steps,
            m.periods,
            m.most,
            2.0 * m.discrete
        ));
        out.row(Row::new(
            name,
            "static tip deflection [m] vs the discrete structure's linear statics",
            m.discrete,
            m.statics,
            Tol::Rel(0.02),
        ));
        if side == 1 {
            out.row(Row::new(
                name,
                "static tip deflection [m] vs Euler–Bernoulli Σ P a²(3l − a)/(6EI)",
                th.bending,
                m.statics,
                Tol::Rel(0.02),
            ));
            out.notes.push(format!(
                "{name}: Timoshenko's shear term Σ P a/(k̄_s A L) would add {:.4e} m ({:.2} % of Euler–Bernoulli's)",
                th.shear,
                100.0 * th.shear / th.bending
            ));
        } else {
            out.row(Row::new(
                name,
                "static tip deflection [m] vs Euler–Bernoulli + Timoshenko's shear Σ P a/(κGA), the lattice's κGA",
                th.bending + th.shear,
                m.statics,
                Tol::Rel(0.02),
            ));
            out.row(Row::new(
                name,
                "static tip deflection [m] vs Euler–Bernoulli + shear with plane sections' κGA = 9 k̄_s A L",
                th.bending + th.shear_plane,
                m.statics,
                Tol::Info,
            ));
            out.row(Row::new(
                name,
                "static tip deflection [m] vs Euler–Bernoulli alone",
                th.bending,
                m.statics,
                Tol::Info,
            ));
        }
        out.row(Row::new(
            name,
            "first bending frequency [Hz] vs the discrete structure's slowest mode",
            m.freq_discrete,
            m.freq,
            Tol::Rel(0.02),
        ));
        if side == 1 {
            out.row(Row::new(
                name,
                "first bending frequency [Hz] vs Rayleigh: Euler–Bernoulli's mode, the spheres as point masses",
                th.rayleigh,
                m.freq,
                Tol::Rel(0.02),
            ));
        }
        out.row(Row::new(
            name,
            "first bending frequency [Hz] vs Euler–Bernoulli (1.875²/2π)√(EI/(μl⁴)), uniform μ = m/L",
            th.f1,
            m.freq,
            Tol::Info,
        ));
        out.notes.push(format!(
            "{name}: the spheres' moments of inertia lower the discrete f₁ by {:.2} % (point masses: {:.4} Hz); the masses at the nodes, the last at the free end, by ~1/N of a uniform beam's",
            100.0 * (1.0 - m.freq_discrete / m.freq_point),
            m.freq_point
        ));
        // in ms and µm (the plot's ticks print few digits)
        let end = 1e3 * m.series.last().map_or(0.0, |p| p.0);
        let flat = |v: f64| vec![(0.0, 1e6 * v), (end, 1e6 * v)];
        let beam_line = if side == 1 {
            ("Euler–Bernoulli", th.bending)
        } else {
            (
                "Euler–Bernoulli + shear (lattice κGA)",
                th.bending + th.shear,
            )
        };
        out.plots.push(Plot {
            stem: name.replace(' ', "_"),
            title: format!("{name}: the tip's free oscillation under gravity"),
            x_label: "t [ms]".into(),
            y_label: "tip deflection [µm]".into(),
            caption: format!(
                "{what}, released straight under gravity with no damping: the tip layer's mean deflection rings about the static deflection (its mean over {} whole periods: {:.4e} m)",
                m.periods, m.statics
            ),
            series: vec![
                theory_series("discrete statics", flat(m.discrete)),
                theory_series(beam_line.0, flat(beam_line.1)),
                measured(
                    "tip",
                    m.series.iter().map(|p| (1e3 * p.0, 1e6 * p.1)).collect(),
                ),
            ],
        });
        out.point(name, "tip", "static_deflection", m.statics);
        out.point(name, "tip", "frequency", m.freq);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lattice the case builds bonds what the engine's `[[bonds]]`
    /// forms: the same number of bonds.
    #[test]
    fn the_lattice_bonds_what_the_scene_bonds() {
        for (side, bonds) in [(1, CHAIN), (3, BUNDLE)] {
            let b = beam("b", side, bonds).unwrap();
            let setup = talus::Setup::new(b.scene.clone()).unwrap();
            assert_eq!(setup.bonds.len(), b.lattice.links.len());
        }
    }

    /// The bundle's beam theory (Euler–Bernoulli plus the lattice's
    /// shear term) tends to the discrete bundle as it grows longer: the
    /// clamp, where the held layer keeps the spheres from turning, stiffens
    /// a short one (−1.5 % at N = 10, −0.3 % at 20); plane sections' shear
    /// term stays ~1/N² too stiff.
    #[test]
    fn the_lattice_shear_term_converges() {
        let mut last = f64::INFINITY;
        for bonds in [10, 20] {
            let b = beam("b", 3, bonds).unwrap();
            let th = theory(3, bonds);
            let u = b.lattice.statics([0.0, 0.0, -G]);
            let d = -u[u.len() - 9..].iter().map(|u| u[2]).sum::<f64>() / 9.0;
            let err = (th.bending + th.shear) / d - 1.0;
            assert!(
                err > 0.0 && err < 0.02 && err < 0.3 * last,
                "{bonds}: {err}"
            );
            last = err;
        }
        assert!(last < 5e-3, "{last}");
    }

    /// References side by side, printed (`-- --ignored --nocapture`).
    #[test]
    #[ignore = "prints the references for longer beams"]
    fn references() {
        for (side, bonds) in [(1, CHAIN), (3, BUNDLE), (1, 20), (3, 20), (3, 30)] {
            let b = beam("b", side, bonds).unwrap();
            let th = theory(side, bonds);
            let g = [0.0, 0.0, -G];
            let u = b.lattice.statics(g);
            let tips = side * side;
            let d = -u[u.len() - tips..].iter().map(|u| u[2]).sum::<f64>() / tips as f64;
            let f = b.lattice.slowest(g, true) / (2.0 * PI);
            let pc = |a: f64, b: f64| 100.0 * (a / b - 1.0);
            println!(
                "{side} x {bonds}: discrete {d:e}, EB {:e} ({:+.3} %), EB+T {:e} ({:+.3} %), EB+T plane {:+.3} %; f discrete {f}, EB {} ({:+.3} %), Rayleigh lumped {} ({:+.3} %)",
                th.bending,
                pc(d, th.bending),
                th.bending + th.shear,
                pc(d, th.bending + th.shear),
                pc(d, th.bending + th.shear_plane),
                th.f1,
                pc(f, th.f1),
                th.rayleigh,
                pc(f, th.rayleigh),
            );
        }
    }
}
