//! Non-spherical particles (issue 37): rigid clumps of spheres. The
//! pieces every clump needs, each checked against exact solutions: the
//! mass properties of a union of spheres ([`mass`]), a closed mesh's, and
//! a mesh filled with N spheres ([`fill`]); the rotation of a body with a
//! full inertia tensor ([`rotation`]); the shapes of a scene ([`table`]);
//! the clumps' state ([`clumps`]) and what pouring appends ([`pour`]).
//! Both backends move them (`cpu::clumps`, `gpu::clumps`).

pub mod clumps;
pub mod fill;
pub mod mass;
pub mod pour;
pub mod rotation;
pub mod table;
