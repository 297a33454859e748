//! Test support shared by jev-preflight's integration tests, its benches and `cargo xtask`:
//!
//! - [`payload`]: what the hook would send for a diff, through the real stages;
//! - [`eval_set`]: the hand-labeled set in `testdata/eval/` and the figures that measure a
//!   scorer on it;
//! - [`genrepo`]: the benches' generated repositories, hermetic git and the floors every
//!   timing is compared with.

pub mod eval_set;
pub mod genrepo;
pub mod payload;
