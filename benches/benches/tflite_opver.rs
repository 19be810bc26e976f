//! tflite-opver benchmarks: each operation beside a baseline measured in the same run.
//! The crate's own issue adds its measurements here.

use criterion::{Criterion, criterion_group, criterion_main};

fn nothing_yet(_c: &mut Criterion) {}

criterion_group!(benches, nothing_yet);
criterion_main!(benches);
