//! Seeing a run: a renderer of spheres and walls on the simulation's own
//! device ([`render`]), pictures without a window ([`headless`]: `talus
//! render`, `talus run --render-every`), a window ([`window`]: `talus run
//! --view`, `talus view`), and what they share: the camera ([`camera`]),
//! colour maps and legends ([`colormap`]), the snapshots of a run on disk
//! ([`replay`]).
//!
//! Data flows one way: a run's particles (device buffers, or snapshots
//! read back from its VTU files) and walls → a [`frame::Frame`] → the
//! renderer → a texture (a window's surface or a PNG).

pub mod camera;
pub mod colormap;
pub mod frame;
pub mod headless;
pub mod overlay;
pub mod record;
pub mod render;
pub mod replay;
pub mod window;
