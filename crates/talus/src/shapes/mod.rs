//! Non-spherical particles (issue 37): rigid clumps of spheres. So far the
//! pieces every clump needs, on their own and checked against exact
//! solutions: the mass properties of a union of spheres ([`mass`]), a
//! closed mesh's, and a mesh filled with N spheres ([`fill`]), and the
//! rotation of a body with a full inertia tensor ([`rotation`]). Not yet
//! in scenes or either backend.

pub mod clumps;
pub mod fill;
pub mod mass;
pub mod rotation;
pub mod table;
