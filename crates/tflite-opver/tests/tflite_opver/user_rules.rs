//! User-defined version rules (issue 15 §2): a custom op with three versions, a fork's rule for
//! a builtin, and the default range `[1, 1]`, through inspect (required versions and reasons),
//! stamp and check.

use crate::common::unary;
use tflite_opver::{
    BuiltinOperator as B, ElementType, Error, Model, ModelBuilder, OpSignature, OpVersion,
    OperatorKind, Resolver, RuntimeVersion, StampMode, VersionRules, stamp, stamp_with,
};

use ElementType::{Float32, Int8, Int16};

/// `MyOp`: v1 float32, v2 added int8, v3 added int16; the runtime has all three.
fn my_op_rules() -> VersionRules {
    let mut rules = VersionRules::new();
    rules
        .custom_versions(
            "MyOp",
            OpVersion::new(1),
            OpVersion::new(3),
            |sig| match sig.input_type(0) {
                Int16 => OpVersion::new(3),
                Int8 => OpVersion::new(2),
                _ => OpVersion::ONE,
            },
        )
        .unwrap();
    rules
}

fn my_op(ty: ElementType) -> OpSignature {
    let mut sig = unary(B::CUSTOM, ty);
    sig.custom_name = Some("MyOp".to_owned());
    sig
}

/// One `MyOp` code stamped `stored`, used by operators of the given types.
fn model_with(types: &[ElementType], stored: OpVersion) -> Vec<u8> {
    let mut builder = ModelBuilder::new();
    for &ty in types {
        builder.signature(&my_op(ty), stored);
    }
    builder.finish()
}

#[test]
fn each_of_the_three_versions_is_judged_by_the_rule() {
    let rules = my_op_rules();
    for (ty, want) in [(Float32, 1), (Int8, 2), (Int16, 3)] {
        assert_eq!(rules.version(&my_op(ty)), OpVersion::new(want), "{ty:?}");
        let bytes = model_with(&[ty], OpVersion::ONE);
        let model = Model::from_bytes(&bytes).unwrap();
        // Without rules a custom op keeps its stamp, as in TensorFlow.
        assert_eq!(model.required_versions(), [OpVersion::ONE]);
        assert_eq!(model.required_versions_with(&rules), [OpVersion::new(want)]);
        let reason = &model.required_version_reasons_with(&rules)[0];
        assert_eq!(reason.version(), OpVersion::new(want));
        assert_eq!(reason.rule(), "user-defined rule");
    }
    // One code serves all three operators: it needs the highest.
    let bytes = model_with(&[Float32, Int16, Int8], OpVersion::ONE);
    let model = Model::from_bytes(&bytes).unwrap();
    assert_eq!(model.required_versions_with(&rules), [OpVersion::new(3)]);
}

#[test]
fn stamp_raises_and_minimizes_custom_codes_with_a_rule() -> Result<(), Error> {
    let rules = my_op_rules();
    let bytes = model_with(&[Int8], OpVersion::ONE);
    // TF's stamp leaves custom codes alone.
    assert!(stamp(&bytes, StampMode::Raise)?.changes.is_empty());
    let raised = stamp_with(&bytes, StampMode::Raise, &rules)?;
    assert_eq!(raised.changes.len(), 1);
    let model = Model::from_bytes(&raised.bytes)?;
    assert_eq!(model.operator_codes()[0].version, OpVersion::new(2));

    // Stamped too high: raise keeps it, minimize lowers it to what the rule says.
    let high = model_with(&[Int8], OpVersion::new(3));
    assert!(
        stamp_with(&high, StampMode::Raise, &rules)?
            .changes
            .is_empty()
    );
    let minimized = stamp_with(&high, StampMode::Minimize, &rules)?;
    let model = Model::from_bytes(&minimized.bytes)?;
    assert_eq!(model.operator_codes()[0].version, OpVersion::new(2));
    Ok(())
}

#[test]
fn check_uses_the_registered_versions() {
    let runtime = RuntimeVersion::new(2, 21, 0);
    let codes = |version| [(OperatorKind::Custom("MyOp"), OpVersion::new(version))];

    let mut three = Resolver::for_runtime(&runtime);
    my_op_rules().register(&mut three, ());
    for version in 1..=3 {
        assert!(three.check(&codes(version)).is_ok(), "v{version}");
    }
    assert!(three.check(&codes(4)).is_err());

    // Registered without a range: the seed's default [1, 1].
    let mut rules = VersionRules::new();
    rules.custom("MyOp", |_| OpVersion::ONE);
    assert_eq!(
        rules.versions(OperatorKind::Custom("MyOp")),
        Some((OpVersion::ONE, OpVersion::ONE))
    );
    let mut one = Resolver::for_runtime(&runtime);
    rules.register(&mut one, ());
    assert!(one.check(&codes(1)).is_ok());
    let error = one.check(&codes(2)).unwrap_err().to_string();
    assert!(error.contains("MyOp"), "{error}");

    // A model whose int16 operator needs v3 does not run where MyOp has only [1, 1].
    let bytes = model_with(&[Int16], OpVersion::ONE);
    let model = Model::from_bytes(&bytes).unwrap();
    let required = model.required_versions_with(&my_op_rules());
    let kinds: Vec<_> = model
        .operator_codes()
        .iter()
        .zip(required)
        .map(|(c, v)| (c.kind(), v))
        .collect();
    assert!(one.check(&kinds).is_err());
    assert!(three.check(&kinds).is_ok());
}

#[test]
fn a_fork_can_version_a_builtin() {
    // A fork whose RELU gained a version 4 for int16 with a fused clamp, say.
    let mut rules = VersionRules::new();
    rules
        .builtin_versions(B::RELU, OpVersion::new(1), OpVersion::new(4), |sig| {
            if sig.input_type(0) == Int16 {
                OpVersion::new(4)
            } else {
                tflite_opver::op_version(sig)
            }
        })
        .unwrap();
    let relu = |ty| unary(B::RELU, ty);
    let bytes = ModelBuilder::new()
        .signature(&relu(Int16), OpVersion::ONE)
        .signature(&relu(Int8), OpVersion::ONE)
        .finish();
    let model = Model::from_bytes(&bytes).unwrap();
    assert_eq!(model.required_versions(), [OpVersion::new(3)]); // TF's rule
    assert_eq!(model.required_versions_with(&rules), [OpVersion::new(4)]);
    let stamped = stamp_with(&bytes, StampMode::Raise, &rules).unwrap();
    assert_eq!(
        Model::from_bytes(&stamped.bytes).unwrap().operator_codes()[0].version,
        OpVersion::new(4)
    );
    // Other builtins keep TF's rules.
    assert_eq!(rules.version(&relu(Int8)), OpVersion::new(2));
}

#[test]
fn an_empty_range_is_refused() {
    let mut rules = VersionRules::new();
    let error = rules
        .custom_versions("MyOp", OpVersion::new(3), OpVersion::new(1), |_| {
            OpVersion::ONE
        })
        .unwrap_err();
    assert!(
        matches!(error, Error::InvalidVersionRange { .. }),
        "{error}"
    );
    assert_eq!(rules.versions(OperatorKind::Custom("MyOp")), None);
}
