//! graphdef-versions benchmarks: each operation beside a baseline measured in the same run.

use criterion::{Criterion, criterion_group, criterion_main};
use graphdef_versions::VersionDef;
use prost::Message;
use std::hint::black_box;

fn version_def_decode(c: &mut Criterion) {
    let bytes = VersionDef {
        producer: 2474,
        min_consumer: 12,
        bad_consumers: vec![3, 7],
    }
    .encode_to_vec();
    let mut group = c.benchmark_group("version_def");
    group.bench_function("baseline/copy_bytes", |b| {
        b.iter(|| black_box(bytes.clone()))
    });
    group.bench_function("prost_decode", |b| {
        b.iter(|| VersionDef::decode(black_box(bytes.as_slice())))
    });
    group.finish();
}

criterion_group!(benches, version_def_decode);
criterion_main!(benches);
