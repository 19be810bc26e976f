//! The integration tests of ifrt-serdes, in one test binary (one link instead of one per file):
//! each module was a test file of its own, and `common` holds what they share.

mod cli;
mod common;
mod golden;
mod hostile;
mod matrix;
mod negotiation;
mod plugin_history;
mod real;
mod registry;
mod removal;
mod roundtrip;
