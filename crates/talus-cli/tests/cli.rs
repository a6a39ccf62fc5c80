//! The command line's integration tests as one binary: each file of
//! `tests/` is a module here (`cargo test -p talus-cli --test cli
//! restart::` runs `tests/restart.rs`): one link instead of seven, and the
//! test threads take the next test whichever file it is in.

#[path = "analyze.rs"]
mod analyze;
#[path = "architecture.rs"]
mod architecture;
#[path = "bad_input.rs"]
mod bad_input;
#[path = "bodies.rs"]
mod bodies;
#[path = "render.rs"]
mod render;
#[path = "restart.rs"]
mod restart;
#[path = "view.rs"]
mod view;
