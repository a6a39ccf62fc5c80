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
//! | `law.rs` | one bond's step (CPU, f64; twin `shaders/bond_law.wgsl`) |
//! | `form.rs` | which pairs an entry bonds; the bonds at t = 0 and their stiffest oscillation (`talus check`, `dt = "auto"`) |
//! | `table.rs` | a run's bonds, a row each (ids, entry, length, radius, state, status) |
//!
//! The stage is part of the contacts stage on both paths (`cpu::bonds`
//! after the pairs, `gpu::bonds` before them: exact sums either way);
//! bonds with `at > 0` form at their step (`cpu::bonds::form_due`,
//! `gpu::bond_form`). Not yet: bonds on several ranks (refused).

pub mod form;
pub mod law;
pub mod table;
