//! Non-spherical particles (issue 37): rigid clumps of spheres. So far the
//! two pieces every clump needs, on their own and checked against exact
//! solutions: the mass properties of a union of spheres ([`mass`]) and the
//! rotation of a body with a full inertia tensor ([`rotation`]). Not yet
//! in scenes or either backend.

pub mod mass;
pub mod rotation;
