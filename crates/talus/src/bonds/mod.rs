//! Bonds: parallel bonds between particles (Potyondy & Cundall 2004),
//! `[[bonds]]` in a scene (`scene::BondSpec`). A bond is a short cylinder
//! of radius R̄ = `radius_ratio` × the smaller radius between two centres,
//! with normal and shear stiffness per area k̄_n = E/L and k̄_s = k̄_n /
//! `stiffness_ratio` (L the centres' distance when it formed). It carries a
//! normal force, a shear force, a twisting and a bending moment, each grown
//! from the relative motion since formation, acts beside the pair's
//! contact (the contact law is unchanged), and breaks where its tensile or
//! shear stress reaches a strength.
//!
//! | file | job |
//! |------|-----|
//! | `law.rs` | one bond's step (CPU, f64; twin `shaders/bonds.wgsl`) |
//! | `form.rs` | which pairs an entry bonds; the bonds at t = 0 and their stiffest oscillation (`talus check`) |
//!
//! Not yet in this build: forming bonds in a run, their storage, the
//! stage, outputs and checkpoints (issue 38): a scene with `[[bonds]]` is
//! read, checked and reported by `talus check`, and refused by the set-up.

pub mod form;
pub mod law;
