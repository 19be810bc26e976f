//! The revival of a TensorFlow 2 SavedModel's Python objects, as far as it decides whether a
//! release loads the file (`Loader` in `tensorflow/python/saved_model/load.py`).
//!
//! `tf.saved_model.load` rebuilds every object of the `SavedObjectGraph`. Two of its steps refuse
//! files that a release's functions and variables would otherwise load:
//!
//! - Python values recorded with the functions (their input and output signatures, their
//!   arguments' default values) are decoded by the release's `nested_structure_coder`, which
//!   knows the kinds of `StructuredValue` its `struct.proto` has. A value of a kind added
//!   later (a tensor default, `tensor_value`, written from 2.13 on; a numpy default,
//!   `numpy_value`, from 2.14 on) raises `NotEncodableError`.
//! - An optimizer's slot variables are made by calling `add_slot` on the revived optimizer. An
//!   object is revived as the class its release registers for the object's identifier, or as a
//!   plain `_UserObject` when none is registered: the Keras 2 optimizers (`optimizer`) are
//!   registered up to 2.15, whose default install has Keras 2, and not from 2.16 on (Keras 3),
//!   where their slot variables raise `AttributeError: '_UserObject' object has no attribute
//!   'add_slot'`.
//!
//! Both are facts of each release's default install (`pip install tensorflow-cpu==R`), read in
//! the ten venvs the oracle was made with: with `tf-keras` installed beside 2.16 and later, the
//! Keras 2 optimizers are registered again.

use std::collections::HashMap;

use super::report::LoadError;
use crate::policy::ReleaseNumber;
use crate::releases::TfRelease;
use crate::schema::saved_object::Kind as ObjectKind;
use crate::schema::structured_value::Kind as ValueKind;
use crate::schema::{SavedObject, SavedObjectGraph, StructuredValue};

/// Values nest at most this deep in a file this crate reads (prost's own decoding limit is
/// lower); a deeper one is not looked into.
const MAX_DEPTH: usize = 128;

/// A class a release registers for revived objects of an identifier
/// (`revived_types.register_revived_type`, `tensorflow/python/saved_model/revived_types.py`).
struct RevivedType {
    identifier: &'static str,
    /// The registration's version: it revives an object whose `min_consumer` is at most this,
    /// and that does not list it in `bad_consumers`.
    version: i32,
    /// The oldest producer version of an object it revives.
    min_producer: i32,
    /// The Python class it makes, as `AttributeError` names it.
    class: &'static str,
    /// Whether that class has `add_slot`.
    add_slot: bool,
    /// The first release whose default install does not register it, if any.
    until: Option<ReleaseNumber>,
}

/// Keras 3, in the default install from 2.16 on, registers no revived type of its own.
const KERAS_3: ReleaseNumber = ReleaseNumber::new(2, 16, 0);

/// Every revived type the ten releases register, as each release's default install has them
/// after `import tensorflow` (the wrappers and `signature_map` by TensorFlow itself,
/// `tf_deprecated_optimizer` by `tensorflow/python/training/optimizer.py`, `optimizer` and
/// `experimentalOptimizer` by Keras 2's optimizers). All have `min_producer_version` 1 and
/// `min_consumer_version` 1.
const REVIVED_TYPES: [RevivedType; 7] = [
    revived("trackable_dict_wrapper", 1, "_DictWrapper", false, None),
    revived("trackable_list_wrapper", 1, "ListWrapper", false, None),
    revived("trackable_tuple_wrapper", 1, "ListWrapper", false, None),
    revived(
        "tf_deprecated_optimizer",
        1,
        "RestoredOptimizer",
        true,
        None,
    ),
    revived("signature_map", 1, "_SignatureMap", false, None),
    revived(
        "experimentalOptimizer",
        2,
        "RestoredOptimizer",
        false,
        Some(KERAS_3),
    ),
    revived("optimizer", 2, "RestoredOptimizer", true, Some(KERAS_3)),
];

const fn revived(
    identifier: &'static str,
    version: i32,
    class: &'static str,
    add_slot: bool,
    until: Option<ReleaseNumber>,
) -> RevivedType {
    RevivedType {
        identifier,
        version,
        min_producer: 1,
        class,
        add_slot,
        until,
    }
}

/// The highest `StructuredValue` field a release decodes: the kinds of its `struct.proto`
/// (`tensorflow/core/protobuf/struct.proto`) that its `nested_structure_coder` has a codec for.
pub(super) fn last_value_field(release: TfRelease) -> u32 {
    let number = release.number();
    if number < ReleaseNumber::new(2, 13, 0) {
        54 // named_tuple_value
    } else if number < ReleaseNumber::new(2, 14, 0) {
        55 // tensor_value
    } else {
        56 // numpy_value
    }
}

/// The field number of a value's kind.
fn field_number(kind: &ValueKind) -> u32 {
    match kind {
        ValueKind::NoneValue(_) => 1,
        ValueKind::Float64Value(_) => 11,
        ValueKind::Int64Value(_) => 12,
        ValueKind::StringValue(_) => 13,
        ValueKind::BoolValue(_) => 14,
        ValueKind::TensorShapeValue(_) => 31,
        ValueKind::TensorDtypeValue(_) => 32,
        ValueKind::TensorSpecValue(_) => 33,
        ValueKind::TypeSpecValue(_) => 34,
        ValueKind::BoundedTensorSpecValue(_) => 35,
        ValueKind::ListValue(_) => 51,
        ValueKind::TupleValue(_) => 52,
        ValueKind::DictValue(_) => 53,
        ValueKind::NamedTupleValue(_) => 54,
        ValueKind::TensorValue(_) => 55,
        ValueKind::NumpyValue(_) => 56,
    }
}

/// `nested_structure_coder.decode_proto` of `value` in `release`: `NotEncodableError` for a
/// value, or a value nested in it, whose kind the release has no codec for (a kind it does not
/// know reads as no kind at all, as does a value with none set).
pub(super) fn decode_value(value: &StructuredValue, release: TfRelease) -> Result<(), LoadError> {
    let last = last_value_field(release);
    let mut pending = vec![(value, 0usize)];
    while let Some((value, depth)) = pending.pop() {
        let decodable = value
            .kind
            .as_ref()
            .filter(|kind| field_number(kind) <= last);
        let Some(kind) = decodable else {
            return Err(LoadError {
                python_class: "NotEncodableError",
                // `str(proto)` of a value whose kind is unknown is empty: two spaces.
                message: "No encoder for object  of type <class \
                          'tensorflow.core.protobuf.struct_pb2.StructuredValue'>."
                    .to_string(),
            });
        };
        if depth >= MAX_DEPTH {
            continue;
        }
        let nested: Vec<&StructuredValue> = match kind {
            ValueKind::ListValue(list) => list.values.iter().collect(),
            ValueKind::TupleValue(tuple) => tuple.values.iter().collect(),
            ValueKind::DictValue(dict) => dict.fields.values().collect(),
            ValueKind::NamedTupleValue(named) => named
                .values
                .iter()
                .filter_map(|pair| pair.value.as_ref())
                .collect(),
            ValueKind::TypeSpecValue(spec) => spec.type_state.iter().map(AsRef::as_ref).collect(),
            _ => Vec::new(),
        };
        pending.extend(nested.into_iter().rev().map(|value| (value, depth + 1)));
    }
    Ok(())
}

/// A `StructuredValue` field that is absent reads as an empty value, which no release decodes.
fn decode_field(value: Option<&StructuredValue>, release: TfRelease) -> Result<(), LoadError> {
    match value {
        Some(value) => decode_value(value, release),
        None => decode_value(&StructuredValue::default(), release),
    }
}

/// What `load_function_def_library` decodes of the concrete function `name` before it imports
/// its body: its input and output signatures, when the object graph records them.
pub(super) fn decode_concrete_function(
    objects: &SavedObjectGraph,
    name: &str,
    release: TfRelease,
) -> Result<(), LoadError> {
    let Some(function) = objects.concrete_functions.get(name) else {
        return Ok(());
    };
    decode_field(function.canonicalized_input_signature.as_ref(), release)?;
    decode_field(function.output_signature.as_ref(), release)
}

/// `Loader._load_nodes` in `release`: every object revived in turn (the functions' Python
/// signatures decoded), and every slot variable made by its optimizer's `add_slot`. The objects
/// are taken in the order of their ids; TensorFlow takes them in an order of their
/// dependencies, which changes only which of several refusals comes first (and two refusals of
/// one kind read alike).
pub(super) fn revive(objects: &SavedObjectGraph, release: TfRelease) -> Result<(), LoadError> {
    let mut optimizer_of = HashMap::new();
    for node in &objects.nodes {
        for reference in &node.slot_variables {
            optimizer_of.insert(reference.slot_variable_node_id, node);
        }
    }
    for (id, object) in objects.nodes.iter().enumerate() {
        let slot = i32::try_from(id).ok().and_then(|id| optimizer_of.get(&id));
        if let Some(optimizer) = slot {
            add_slot(optimizer, release)?;
            continue;
        }
        let spec = match &object.kind {
            Some(ObjectKind::Function(function)) => function.function_spec.as_ref(),
            Some(ObjectKind::BareConcreteFunction(function)) => {
                // Decoded only when present.
                let Some(spec) = function.function_spec.as_ref() else {
                    continue;
                };
                Some(spec)
            }
            _ => continue,
        };
        decode_field(spec.and_then(|s| s.fullargspec.as_ref()), release)?;
        decode_field(spec.and_then(|s| s.input_signature.as_ref()), release)?;
    }
    Ok(())
}

/// `optimizer.add_slot(...)` on the object `optimizer` revives as in `release`.
fn add_slot(optimizer: &SavedObject, release: TfRelease) -> Result<(), LoadError> {
    // Only user objects are looked at: another kind of object holding slot variables is not
    // something TensorFlow writes.
    let Some(ObjectKind::UserObject(user)) = &optimizer.kind else {
        return Ok(());
    };
    let versions = user.version.clone().unwrap_or_default();
    let registered = REVIVED_TYPES.iter().find(|revived| {
        revived.identifier == user.identifier
            && revived.until.is_none_or(|until| release.number() < until)
            && revived.version >= versions.min_consumer
            && versions.producer >= revived.min_producer
            && !versions.bad_consumers.contains(&revived.version)
    });
    let (class, has_add_slot) = registered.map_or(("_UserObject", false), |revived| {
        (revived.class, revived.add_slot)
    });
    if has_add_slot {
        return Ok(());
    }
    Err(LoadError {
        python_class: "AttributeError",
        message: format!("'{class}' object has no attribute 'add_slot'"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{
        SavedUserObject, SlotVariableReference, TensorProto, TupleValue, VersionDef,
    };

    fn release(name: &str) -> TfRelease {
        TfRelease::get(name).unwrap()
    }

    fn value(kind: ValueKind) -> StructuredValue {
        StructuredValue { kind: Some(kind) }
    }

    #[test]
    fn each_release_decodes_the_kinds_its_struct_proto_has() {
        let tensor = value(ValueKind::TensorValue(TensorProto::default()));
        let numpy = value(ValueKind::NumpyValue(TensorProto::default()));
        let nested = value(ValueKind::TupleValue(TupleValue {
            values: vec![value(ValueKind::BoolValue(true)), numpy.clone()],
        }));
        let verdict = |v: &StructuredValue, r| decode_value(v, release(r)).is_ok();
        assert!(!verdict(&tensor, "2.12.1"));
        assert!(verdict(&tensor, "2.13.1"));
        assert!(!verdict(&numpy, "2.13.1"));
        assert!(verdict(&numpy, "2.14.1"));
        assert!(!verdict(&nested, "2.13.1"));
        assert!(verdict(&nested, "2.21.0"));
        // A value with no kind set (or one of a kind no release knows) decodes nowhere.
        let error = decode_value(&StructuredValue::default(), release("2.21.0")).unwrap_err();
        assert_eq!(error.python_class(), "NotEncodableError");
        assert_eq!(
            error.message(),
            "No encoder for object  of type <class \
             'tensorflow.core.protobuf.struct_pb2.StructuredValue'>."
        );
    }

    fn optimizer(identifier: &str) -> SavedObjectGraph {
        let user = SavedObject {
            kind: Some(ObjectKind::UserObject(SavedUserObject {
                identifier: identifier.into(),
                version: Some(VersionDef {
                    producer: 1,
                    min_consumer: 1,
                    bad_consumers: vec![],
                }),
            })),
            slot_variables: vec![SlotVariableReference {
                original_variable_node_id: 1,
                slot_name: "m".into(),
                slot_variable_node_id: 2,
            }],
            ..SavedObject::default()
        };
        SavedObjectGraph {
            nodes: vec![user, SavedObject::default(), SavedObject::default()],
            ..SavedObjectGraph::default()
        }
    }

    #[test]
    fn slot_variables_need_an_optimizer_the_release_revives_with_add_slot() {
        let keras_2 = optimizer("optimizer");
        assert!(revive(&keras_2, release("2.15.1")).is_ok());
        let error = revive(&keras_2, release("2.16.2")).unwrap_err();
        assert_eq!(error.python_class(), "AttributeError");
        assert_eq!(
            error.message(),
            "'_UserObject' object has no attribute 'add_slot'"
        );
        // A generic object holding slots (a TF1 optimizer tracked by a tf.Module) has no
        // add_slot in any release.
        assert!(revive(&optimizer("_generic_user_object"), release("2.12.1")).is_err());
        assert_eq!(
            revive(&optimizer("experimentalOptimizer"), release("2.12.1"))
                .unwrap_err()
                .message(),
            "'RestoredOptimizer' object has no attribute 'add_slot'"
        );
        assert!(revive(&optimizer("tf_deprecated_optimizer"), release("2.21.0")).is_ok());
    }
}
