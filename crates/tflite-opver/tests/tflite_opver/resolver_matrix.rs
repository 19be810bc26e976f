//! Resolver behaviour: every registered range × every requested version, for builtin and custom
//! operators, with TFLite's exact error wording.

use tflite_opver::{BuiltinOperator, Error, OpVersion, OperatorKind, ResolveError, Resolver};

fn v(n: i32) -> OpVersion {
    OpVersion::new(n)
}

const CONV: BuiltinOperator = BuiltinOperator::CONV_2D;

#[test]
fn builtin_range_matrix() {
    // Every inclusive range [min, max] within 1..=6, against every requested version -1..=8.
    let mut cells = 0;
    for min in 1..=6 {
        for max in min..=6 {
            let mut resolver = Resolver::new();
            resolver
                .add_builtin(CONV, v(min), v(max), (min, max))
                .unwrap();
            for requested in -1..=8 {
                let inside = (min..=max).contains(&requested);
                let found = resolver.find_builtin(CONV, v(requested));
                assert_eq!(found.is_some(), inside, "[{min}, {max}] asked {requested}");
                if inside {
                    assert_eq!(found, Some(&(min, max)));
                }
                let resolved = resolver.resolve(OperatorKind::Builtin(CONV), v(requested));
                match resolved {
                    Ok(kernel) => assert_eq!(*kernel, (min, max)),
                    Err(e) => {
                        assert!(!inside);
                        assert_eq!(
                            e.to_string(),
                            format!(
                                "Didn't find op for builtin opcode 'CONV_2D' version '{requested}'. \
                                 An older version of this builtin might be supported. Are you \
                                 using an old TFLite binary with a newer model?"
                            )
                        );
                    }
                }
                // Other operators never see CONV_2D's kernel.
                assert!(
                    resolver
                        .find_builtin(BuiltinOperator::DEPTHWISE_CONV_2D, v(requested))
                        .is_none()
                );
                assert_eq!(resolver.max_builtin_version(CONV), Some(v(max)));
                cells += 1;
            }
        }
    }
    assert_eq!(cells, 21 * 10);
}

#[test]
fn custom_range_matrix() {
    for min in 1..=4 {
        for max in min..=4 {
            let mut resolver = Resolver::new();
            resolver.add_custom("MyOp", v(min), v(max), ()).unwrap();
            for requested in 0..=6 {
                let inside = (min..=max).contains(&requested);
                assert_eq!(resolver.find_custom("MyOp", v(requested)).is_some(), inside);
                assert!(resolver.find_custom("myop", v(requested)).is_none());
                assert!(resolver.find_custom("OtherOp", v(requested)).is_none());
                let resolved = resolver.resolve(OperatorKind::Custom("MyOp"), v(requested));
                assert_eq!(resolved.is_ok(), inside);
                if let Err(e) = resolved {
                    assert!(matches!(
                        &e,
                        ResolveError::UnresolvedCustomOp { name, version } if name == "MyOp" && *version == v(requested)
                    ));
                    assert_eq!(
                        e.to_string(),
                        "Encountered unresolved custom op: MyOp. See instructions: \
                         https://www.tensorflow.org/lite/guide/ops_custom"
                    );
                }
            }
        }
    }
}

#[test]
fn disjoint_ranges_leave_a_gap() {
    let mut resolver = Resolver::new();
    resolver
        .add_builtin(CONV, v(1), v(2), "old")
        .unwrap()
        .add_builtin(CONV, v(4), v(5), "new")
        .unwrap();
    let got: Vec<_> = (0..=6)
        .map(|n| resolver.find_builtin(CONV, v(n)).copied())
        .collect();
    assert_eq!(
        got,
        [
            None,
            Some("old"),
            Some("old"),
            None,
            Some("new"),
            Some("new"),
            None
        ]
    );
}

#[test]
fn later_registration_replaces_earlier_for_the_same_version() {
    let mut resolver = Resolver::new();
    resolver.add_builtin(CONV, v(1), v(3), "reference").unwrap();
    resolver.add_builtin(CONV, v(2), v(2), "optimized").unwrap();
    assert_eq!(resolver.find_builtin(CONV, v(1)), Some(&"reference"));
    assert_eq!(resolver.find_builtin(CONV, v(2)), Some(&"optimized"));
    assert_eq!(resolver.find_builtin(CONV, v(3)), Some(&"reference"));
    resolver.add_custom("X", v(1), v(1), "a").unwrap();
    resolver.add_custom("X", v(1), v(1), "b").unwrap();
    assert_eq!(resolver.find_custom("X", v(1)), Some(&"b"));
}

#[test]
fn empty_ranges_are_refused() {
    let mut resolver: Resolver = Resolver::new();
    let err = resolver.add_builtin(CONV, v(3), v(2), ()).unwrap_err();
    assert!(matches!(err, Error::InvalidVersionRange { .. }));
    assert_eq!(
        err.to_string(),
        "cannot register CONV_2D for versions 3 to 2: the first version must not exceed the last"
    );
    assert!(resolver.add_custom("X", v(2), v(1), ()).is_err());
    // Nothing was registered by the refused calls.
    assert!(resolver.find_builtin(CONV, v(2)).is_none());
    assert!(resolver.find_custom("X", v(1)).is_none());
    assert_eq!(resolver.max_builtin_version(CONV), None);
}

#[test]
fn builtin_codes_out_of_range() {
    let mut resolver: Resolver = Resolver::new();
    assert_eq!(resolver.max_builtin_code(), BuiltinOperator::MAX_KNOWN);
    for code in [210, 4000, i32::MAX, -1, i32::MIN] {
        let err = resolver
            .resolve(OperatorKind::Builtin(BuiltinOperator::new(code)), v(1))
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "Op builtin_code out of range: {code}. Are you using old TFLite binary with newer model?"
            )
        );
    }
    // The schema's last code is in range (so "not found", not "out of range").
    let err = resolver
        .resolve(OperatorKind::Builtin(BuiltinOperator::STABLEHLO_CASE), v(1))
        .unwrap_err();
    assert!(matches!(err, ResolveError::BuiltinOpNotFound { .. }));

    // An older schema: everything past its last code is out of range, even if registered.
    resolver.set_max_builtin_code(BuiltinOperator::BATCH_MATMUL);
    resolver
        .add_builtin(BuiltinOperator::CUMSUM, v(1), v(1), ())
        .unwrap();
    let err = resolver
        .resolve(OperatorKind::Builtin(BuiltinOperator::CUMSUM), v(1))
        .unwrap_err();
    assert!(matches!(
        err,
        ResolveError::BuiltinCodeOutOfRange { code: 128 }
    ));
}

#[test]
fn custom_code_missing() {
    let resolver: Resolver = Resolver::new();
    let err = resolver
        .resolve(OperatorKind::Builtin(BuiltinOperator::CUSTOM), v(1))
        .unwrap_err();
    assert!(matches!(err, ResolveError::MissingCustomCode));
    assert_eq!(
        err.to_string(),
        "Operator with CUSTOM builtin_code has no custom_code."
    );
}

#[test]
fn check_reports_every_failure_in_order() {
    let mut resolver: Resolver = Resolver::new();
    resolver.add_builtin(CONV, v(1), v(3), ()).unwrap();
    resolver
        .add_builtin(BuiltinOperator::ADD, v(1), v(2), ())
        .unwrap();
    resolver.add_custom("Good", v(1), v(1), ()).unwrap();

    let fine = [
        (OperatorKind::Builtin(CONV), v(3)),
        (OperatorKind::Builtin(BuiltinOperator::ADD), v(1)),
        (OperatorKind::Custom("Good"), v(1)),
    ];
    assert!(resolver.check(&fine).is_ok());
    assert!(resolver.check(&[]).is_ok());

    let model = [
        (OperatorKind::Builtin(CONV), v(3)),                      // ok
        (OperatorKind::Builtin(CONV), v(4)),                      // too new
        (OperatorKind::Builtin(BuiltinOperator::ADD), v(1)),      // ok
        (OperatorKind::Builtin(BuiltinOperator::new(300)), v(1)), // unknown code
        (OperatorKind::Custom("Bad"), v(1)),                      // no kernel
        (OperatorKind::Builtin(BuiltinOperator::CUSTOM), v(1)),   // no custom_code
        (OperatorKind::Builtin(BuiltinOperator::MUL), v(1)),      // not registered
    ];
    let positions: Vec<usize> = resolver.unresolved(&model).map(|(i, _)| i).collect();
    assert_eq!(positions, [1, 3, 4, 5, 6]);

    let err = resolver.check(&model).unwrap_err();
    let Error::UnresolvedOperators { failures } = &err else {
        panic!("expected UnresolvedOperators, got {err:?}");
    };
    assert_eq!(failures.len(), 5);
    assert!(
        matches!(failures[0], ResolveError::BuiltinOpNotFound { op: CONV, version } if version == v(4))
    );
    assert!(matches!(
        failures[1],
        ResolveError::BuiltinCodeOutOfRange { code: 300 }
    ));
    assert!(matches!(
        failures[2],
        ResolveError::UnresolvedCustomOp { .. }
    ));
    assert!(matches!(failures[3], ResolveError::MissingCustomCode));
    assert!(matches!(
        failures[4],
        ResolveError::BuiltinOpNotFound {
            op: BuiltinOperator::MUL,
            ..
        }
    ));

    let text = err.to_string();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "5 operator code(s) cannot be resolved:");
    assert_eq!(lines.len(), 6);
    assert!(
        lines[1]
            .trim_start()
            .starts_with("Didn't find op for builtin opcode 'CONV_2D' version '4'.")
    );
    assert!(
        lines[2]
            .trim_start()
            .starts_with("Op builtin_code out of range: 300.")
    );
    assert!(
        lines[3]
            .trim_start()
            .starts_with("Encountered unresolved custom op: Bad.")
    );
    assert_eq!(
        lines[4].trim_start(),
        "Operator with CUSTOM builtin_code has no custom_code."
    );
    assert!(
        lines[5]
            .trim_start()
            .starts_with("Didn't find op for builtin opcode 'MUL' version '1'.")
    );
}
