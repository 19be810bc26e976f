//! ifrt-serdes benchmarks: each operation beside a baseline measured in the same run.
//!
//! The operation is a versioned round trip of an `ArraySpec` (with a sharding-param sharding)
//! as IFRT sends one: a plain `ArraySpecProto` (IFRT's `ToProto`, no envelope of its own), its
//! sharding in a `Serialized` envelope inside, through the registry. Serialize for the requested
//! version (each part recording the oldest format that holds it, as IFRT does), then deserialize
//! by the recorded formats, nested sharding included. The baseline is plain prost encode +
//! decode of exactly the same message tree (`ArraySpecProto`, nested envelope, sharding proto),
//! with no registry, no version checks and no conversion to or from the crate's types. Both
//! sides write the same bytes (asserted before measuring).
//!
//! The registry fills per-thread spare prost messages from its own types and encodes them
//! straight into the returned buffer (see `ifrt_serdes`'s `spare` module), so a warm thread
//! allocates little more than the returned bytes; the baseline builds and encodes its messages
//! the way plain prost code does.
//!
//! Both sides must be built alike. prost's decode and encode loops are generic, so each side's
//! are compiled in the crate that calls them: the registry's in `ifrt-serdes`, the baseline's
//! here. Giving `ifrt-serdes` alone one codegen unit (`[profile.bench.package.ifrt-serdes]`)
//! inlines prost's loops into the registry's readers only and makes the round trip look about
//! 1.03 × the baseline; with this crate at one unit too it is about 1.08 ×, and with the 16 units
//! both have in the bench profile about 1.10 × (medians of paired runs, measured 2026-11-28).
//!
//! On a shared machine, criterion's one-after-the-other measurements drift with the load. So
//! before the criterion groups, the bench also prints *paired* ratios: the two sides run in
//! alternating short batches, and the median of the per-round ratios is reported.

use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

use criterion::{Criterion, criterion_group, criterion_main};
use ifrt_serdes::schema::{
    ArraySpecProto, DTypeProto, Serialized, ShapeProto, ShardingParamShardingProto, ShardingProto,
};
use ifrt_serdes::version::SupportedVersions;
use ifrt_serdes::{
    ArraySpec, Codec, DType, DeserializeOptions, MemoryKind, Registry, SerializeOptions, Shape,
    ShardingParam, ShardingParamSharding,
};
use prost::Message;

fn spec() -> ArraySpec {
    let param = ShardingParam::new(vec![4, 2], vec![1, 0], vec![4, 2], vec![1]).unwrap();
    ArraySpec {
        dtype: DType::BF16,
        shape: Shape::new(vec![4096, 1024]).unwrap(),
        sharding: Arc::new(
            ShardingParamSharding::new(param, (0..8).collect(), MemoryKind::device()).unwrap(),
        ),
        layout: None,
    }
}

/// The prost messages the registry writes for `spec`, taken apart.
struct Protos {
    dtype: DTypeProto,
    shape: ShapeProto,
    sharding: ShardingParamShardingProto,
}

fn protos(bytes: &[u8]) -> Protos {
    let spec = ArraySpecProto::decode(bytes).unwrap();
    let inner = spec.sharding.unwrap().serialized_sharding.unwrap();
    Protos {
        dtype: spec.dtype.unwrap(),
        shape: spec.shape.unwrap(),
        sharding: ShardingParamShardingProto::decode(inner.data.as_slice()).unwrap(),
    }
}

fn prost_encode(p: &Protos) -> Vec<u8> {
    let spec = ArraySpecProto {
        version_number: p.dtype.version_number,
        dtype: Some(p.dtype),
        shape: Some(p.shape.clone()),
        sharding: Some(ShardingProto {
            serialized_sharding: Some(Serialized {
                type_name: ShardingParamSharding::TYPE_NAME.to_string(),
                data: p.sharding.encode_to_vec(),
            }),
        }),
        layout: None,
    };
    spec.encode_to_vec()
}

fn prost_decode(bytes: &[u8]) -> (ArraySpecProto, ShardingParamShardingProto) {
    let spec = ArraySpecProto::decode(bytes).unwrap();
    let inner = spec
        .sharding
        .as_ref()
        .unwrap()
        .serialized_sharding
        .as_ref()
        .unwrap();
    let sharding = ShardingParamShardingProto::decode(inner.data.as_slice()).unwrap();
    (spec, sharding)
}

/// An operation's name, the registry's version of it and the baseline's.
type Pair<'a> = (&'a str, &'a mut dyn FnMut(), &'a mut dyn FnMut());

/// Runs each closure in alternating batches; prints the median over rounds of
/// `time(registry) / time(baseline)` for each pair.
fn paired_ratios(pairs: &mut [Pair<'_>]) {
    const ROUNDS: usize = 101;
    const BATCH: u32 = 400;
    let time = |f: &mut dyn FnMut()| {
        let start = Instant::now();
        for _ in 0..BATCH {
            f();
        }
        start.elapsed().as_secs_f64()
    };
    let mut ratios = vec![Vec::with_capacity(ROUNDS); pairs.len()];
    for round in 0..ROUNDS {
        for (i, (_, registry, baseline)) in pairs.iter_mut().enumerate() {
            // Which side runs first alternates, so neither always finds the other's leftovers
            // (caches, the allocator's free lists).
            let (ours, theirs) = if round % 2 == 0 {
                let ours = time(*registry);
                (ours, time(*baseline))
            } else {
                let theirs = time(*baseline);
                (time(*registry), theirs)
            };
            ratios[i].push(ours / theirs);
        }
    }
    let report: Vec<String> = pairs
        .iter()
        .zip(&mut ratios)
        .map(|((name, _, _), ratios)| {
            ratios.sort_by(f64::total_cmp);
            format!("{name} {:.3}", ratios[ROUNDS / 2])
        })
        .collect();
    println!(
        "ifrt_serdes paired registry/baseline ratios (median of {ROUNDS} alternating rounds): {}",
        report.join(", ")
    );
}

fn array_spec_round_trip(c: &mut Criterion) {
    let registry = Registry::with_builtin_types(SupportedVersions::BUILT_IN);
    let options = SerializeOptions::new(SupportedVersions::BUILT_IN.current());
    let read = DeserializeOptions::default();
    let spec = spec();
    let bytes = registry.to_proto_bytes(&spec, &options).unwrap();
    let protos = protos(&bytes);
    assert_eq!(
        prost_encode(&protos),
        bytes,
        "the baseline writes the same message"
    );

    paired_ratios(&mut [
        (
            "round trip",
            &mut || {
                let bytes = registry.to_proto_bytes(black_box(&spec), &options).unwrap();
                let back: ArraySpec = registry.from_proto_bytes(&bytes, &read).unwrap();
                black_box(back);
            },
            &mut || {
                let bytes = prost_encode(black_box(&protos));
                black_box(prost_decode(&bytes));
            },
        ),
        (
            "serialize",
            &mut || {
                black_box(registry.to_proto_bytes(black_box(&spec), &options).unwrap());
            },
            &mut || {
                black_box(prost_encode(black_box(&protos)));
            },
        ),
        (
            "deserialize",
            &mut || {
                let back: ArraySpec = registry.from_proto_bytes(black_box(&bytes), &read).unwrap();
                black_box(back);
            },
            &mut || {
                black_box(prost_decode(black_box(&bytes)));
            },
        ),
    ]);

    let mut group = c.benchmark_group("ifrt_serdes/array_spec_round_trip");
    group.bench_function("registry_versioned", |b| {
        b.iter(|| {
            let bytes = registry.to_proto_bytes(black_box(&spec), &options).unwrap();
            let back: ArraySpec = registry.from_proto_bytes(&bytes, &read).unwrap();
            black_box(back)
        })
    });
    group.bench_function("baseline_prost_plain", |b| {
        b.iter(|| {
            let bytes = prost_encode(black_box(&protos));
            black_box(prost_decode(&bytes))
        })
    });
    group.finish();

    let mut group = c.benchmark_group("ifrt_serdes/array_spec_serialize");
    group.bench_function("registry_versioned", |b| {
        b.iter(|| registry.to_proto_bytes(black_box(&spec), &options).unwrap())
    });
    group.bench_function("baseline_prost_plain", |b| {
        b.iter(|| prost_encode(black_box(&protos)))
    });
    group.finish();

    let mut group = c.benchmark_group("ifrt_serdes/array_spec_deserialize");
    group.bench_function("registry_versioned", |b| {
        b.iter(|| {
            let back: ArraySpec = registry.from_proto_bytes(black_box(&bytes), &read).unwrap();
            back
        })
    });
    group.bench_function("baseline_prost_plain", |b| {
        b.iter(|| prost_decode(black_box(&bytes)))
    });
    group.finish();
}

criterion_group!(benches, array_spec_round_trip);
criterion_main!(benches);
