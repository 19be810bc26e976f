//! Resolver presets per TFLite release, derived from TF's minimum-runtime table.

use tflite_opver::{
    BuiltinOperator, OpVersion, OperatorKind, ResolveError, Resolver, RuntimeVersion,
    min_runtime_version_for_op, runtime_table,
};

fn rv(text: &str) -> RuntimeVersion {
    text.parse().unwrap()
}

fn v(n: i32) -> OpVersion {
    OpVersion::new(n)
}

const RELEASES: [&str; 12] = [
    "1.0.0", "1.5.0", "1.13.1", "1.14.0", "1.15.0", "2.3.0", "2.4.0", "2.9.0", "2.14.0", "2.15.0",
    "2.17.0", "2.21.0",
];

#[test]
fn preset_accepts_exactly_the_pairs_released_by_then() {
    for release in RELEASES {
        let runtime = rv(release);
        let resolver = Resolver::for_runtime(&runtime);
        let mut accepted = 0;
        for op in BuiltinOperator::all() {
            for n in 0..=16 {
                let expected =
                    min_runtime_version_for_op(op, v(n)).is_some_and(|min| min <= runtime);
                let found = resolver.find_builtin(op, v(n)).is_some();
                assert_eq!(found, expected, "{release}: {op} v{n}");
                accepted += usize::from(found);
            }
        }
        let in_table = runtime_table().filter(|e| e.min_runtime <= runtime).count();
        assert_eq!(accepted, in_table, "{release}");
    }
}

#[test]
fn newer_releases_accept_a_superset() {
    let resolvers: Vec<Resolver> = RELEASES
        .iter()
        .map(|r| Resolver::for_runtime(&rv(r)))
        .collect();
    for (older, newer) in resolvers.iter().zip(&resolvers[1..]) {
        assert!(older.max_builtin_code() <= newer.max_builtin_code());
        for entry in runtime_table() {
            if older.find_builtin(entry.op, entry.version).is_some() {
                assert!(newer.find_builtin(entry.op, entry.version).is_some());
            }
        }
    }
    // The newest release runs every row of the table.
    let newest = resolvers.last().unwrap();
    assert!(runtime_table().all(|e| newest.find_builtin(e.op, e.version).is_some()));
    // Nothing predates 1.5.0.
    let first = &resolvers[0];
    assert!(runtime_table().all(|e| first.find_builtin(e.op, e.version).is_none()));
}

#[test]
fn tflite_2_3_on_a_conv_model() {
    let resolver = Resolver::for_runtime(&rv("2.3.0"));
    let conv = OperatorKind::Builtin(BuiltinOperator::CONV_2D);
    // CONV_2D 1..=4 shipped by 2.3.0; 5 came with 2.4.0.
    for n in 1..=4 {
        assert!(resolver.resolve(conv, v(n)).is_ok(), "v{n}");
    }
    let err = resolver.resolve(conv, v(5)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "Didn't find op for builtin opcode 'CONV_2D' version '5'. An older version of this \
         builtin might be supported. Are you using an old TFLite binary with a newer model?"
    );
    assert_eq!(
        resolver.max_builtin_version(BuiltinOperator::CONV_2D),
        Some(v(4))
    );
    assert_eq!(
        resolver.max_builtin_version(BuiltinOperator::FULLY_CONNECTED),
        Some(v(9))
    );
}

#[test]
fn old_releases_do_not_know_newer_codes() {
    // TF 2.3's schema ended at BATCH_MATMUL (126); CUMSUM (128) arrived with 2.4.0.
    let r23 = Resolver::for_runtime(&rv("2.3.0"));
    assert_eq!(r23.max_builtin_code(), BuiltinOperator::BATCH_MATMUL);
    let err = r23
        .resolve(OperatorKind::Builtin(BuiltinOperator::CUMSUM), v(1))
        .unwrap_err();
    assert!(matches!(
        err,
        ResolveError::BuiltinCodeOutOfRange { code: 128 }
    ));
    assert_eq!(
        err.to_string(),
        "Op builtin_code out of range: 128. Are you using old TFLite binary with newer model?"
    );

    let r24 = Resolver::for_runtime(&rv("2.4.0"));
    assert_eq!(r24.max_builtin_code(), BuiltinOperator::CUMSUM);
    assert!(
        r24.resolve(OperatorKind::Builtin(BuiltinOperator::CUMSUM), v(1))
            .is_ok()
    );

    // 1.14's last op was ROUND (116); HARD_SWISH (117) came with 1.15.
    assert_eq!(
        Resolver::for_runtime(&rv("1.14.0")).max_builtin_code(),
        BuiltinOperator::ROUND
    );
    assert_eq!(
        Resolver::for_runtime(&rv("2.21.0")).max_builtin_code(),
        BuiltinOperator::STABLEHLO_CASE
    );
}

#[test]
fn broadcast_to_version_one_never_resolves() {
    // BROADCAST_TO v1 was rolled back; TF's table starts it at v2.
    let resolver = Resolver::for_runtime(&rv("2.21.0"));
    let op = OperatorKind::Builtin(BuiltinOperator::BROADCAST_TO);
    assert!(resolver.resolve(op, v(1)).is_err());
    assert!(resolver.resolve(op, v(2)).is_ok());
    assert!(resolver.resolve(op, v(3)).is_ok());
}

#[test]
fn presets_take_custom_kernels() {
    let mut resolver = Resolver::for_runtime(&rv("2.9.0"));
    let model = [
        (OperatorKind::Builtin(BuiltinOperator::ADD), v(1)),
        (OperatorKind::Custom("TFLite_Detection_PostProcess"), v(1)),
    ];
    assert!(resolver.check(&model).is_err());
    resolver
        .add_custom("TFLite_Detection_PostProcess", v(1), v(1), ())
        .unwrap();
    assert!(resolver.check(&model).is_ok());
}
