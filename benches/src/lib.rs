//! Criterion benchmarks for the workspace, one bench target per crate under `benches/benches/`.
//!
//! Every measurement stands beside a baseline measured in the same run (a raw field read, a full
//! protobuf decode, a plain prost encode...), so the ratio between the two is what counts, not
//! the absolute time on whatever machine runs it. Run them with `cargo bench -p benches`.
#![forbid(unsafe_code)]
