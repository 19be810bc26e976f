//! What a release checks of a node against its op (`ValidateNodeDef`,
//! `tensorflow/core/framework/node_def_util.cc`, and `op_def_util.cc`): every attr's type,
//! minimum and allowed values, the attrs the op requires, and the number of inputs; and the
//! input and output types that the attrs give the node.
//!
//! An attr the op does not know is not checked: TensorFlow logs it and ignores it.

use std::collections::{HashMap, HashSet};

use super::failure::Failure;
use super::printing::{Dialect, base_type, is_ref, node_for_error, ref_type};
use crate::schema::attr_value::{ListValue, Value};
use crate::schema::op_def::{ArgDef, AttrDef};
use crate::schema::{AttrValue, NodeDef, OpDef};

/// More than this many values of one input or output (a `number_attr` or a type list) is
/// refused before anything is allocated for them.
pub(super) const MAX_ARG_VALUES: usize = 1 << 20;

/// A node's attrs with the op's defaults filled in, by name.
pub(super) type Attrs<'a> = HashMap<&'a str, &'a AttrValue>;

/// The node's attrs with the op's defaults added (`AddDefaultsToNodeDef`).
pub(super) fn with_defaults<'a>(node: &'a NodeDef, op: &'a OpDef) -> Attrs<'a> {
    let mut attrs: Attrs<'a> = node.attr.iter().map(|(k, v)| (k.as_str(), v)).collect();
    for attr in &op.attr {
        if let Some(default) = &attr.default_value {
            attrs.entry(attr.name.as_str()).or_insert(default);
        }
    }
    attrs
}

/// `ValidateNodeDef` (`node_def_util.cc`) of a node named `name` with `data_inputs` data
/// inputs, on its attrs with the op's defaults added. Attrs are checked in name order
/// (TensorFlow's order is its map's); unknown ones are ignored.
pub(super) fn validate_node_def(
    d: &Dialect,
    name: &str,
    op: &OpDef,
    attrs: &Attrs<'_>,
    data_inputs: usize,
) -> Result<(), Failure> {
    let for_node = || {
        format!(
            "; NodeDef: {}; {}",
            node_for_error(name),
            d.summarize_op_def(op)
        )
    };
    let mut names: Vec<&str> = attrs.keys().copied().collect();
    names.sort_unstable();
    let mut seen = HashSet::new();
    for attr_name in names {
        if attr_name.starts_with('_') {
            continue;
        }
        let Some(attr) = op.attr.iter().find(|a| a.name == attr_name) else {
            continue;
        };
        let value = attrs[attr_name];
        if !matches!(value.value, Some(Value::Placeholder(_))) {
            validate_attr_value(d, value, attr)
                .map_err(|message| Failure::invalid(message).context(&for_node()))?;
        }
        seen.insert(attr_name);
    }
    // TensorFlow lists them in its `std::unordered_map`'s order, which for a handful of attrs
    // is the reverse of the op's (each new entry goes to the front of libstdc++'s list).
    let missing: Vec<&str> = op
        .attr
        .iter()
        .rev()
        .map(|a| a.name.as_str())
        .filter(|attr| !seen.contains(attr))
        .collect();
    if !missing.is_empty() {
        let plural = if missing.len() == 1 { " '" } else { "s '" };
        return Err(Failure::invalid(format!(
            "NodeDef missing attr{plural}{}' from {}; NodeDef: {}",
            missing.join("', '"),
            d.summarize_op_def(op),
            node_for_error(name)
        )));
    }
    let (inputs, _) = in_out_types(attrs, op).map_err(Failure::invalid)?;
    if data_inputs != inputs.len() {
        return Err(Failure::invalid(format!(
            "NodeDef expected inputs '{}' do not match {data_inputs} inputs specified; {}; NodeDef: {}",
            d.dtypes_string(&inputs),
            d.summarize_op_def(op),
            node_for_error(name)
        )));
    }
    Ok(())
}

/// `ValidateAttrValue` (`op_def_util.cc`): the value's type, minimum and allowed values.
fn validate_attr_value(d: &Dialect, value: &AttrValue, attr: &AttrDef) -> Result<(), String> {
    attr_value_has_type(d, value, &attr.r#type)
        .map_err(|message| format!("{message}\n\t for attr '{}'", attr.name))?;
    let list = match &value.value {
        Some(Value::List(list)) => Some(list),
        _ => None,
    };
    if attr.has_minimum {
        if attr.r#type == "int" {
            let i = match value.value {
                Some(Value::I(i)) => i,
                _ => 0,
            };
            if i < attr.minimum {
                return Err(format!(
                    "Value for attr '{}' of {i} must be at least minimum {}",
                    attr.name, attr.minimum
                ));
            }
        } else {
            let length = list.map_or(0, |l| match attr.r#type.as_str() {
                "list(string)" => l.s.len(),
                "list(int)" => l.i.len(),
                "list(float)" => l.f.len(),
                "list(bool)" => l.b.len(),
                "list(type)" => l.r#type.len(),
                "list(shape)" => l.shape.len(),
                "list(tensor)" => l.tensor.len(),
                "list(func)" => l.func.len(),
                _ => 0,
            });
            if (length as i64) < attr.minimum {
                return Err(format!(
                    "Length for attr '{}' of {length} must be at least minimum {}",
                    attr.name, attr.minimum
                ));
            }
        }
    }
    let Some(allowed) = attr.allowed_values.as_ref() else {
        return Ok(());
    };
    let no_values = ListValue::default();
    let allowed_list = match &allowed.value {
        Some(Value::List(list)) => list,
        _ => &no_values,
    };
    let allowed_type = |dtype: i32| {
        if allowed_list.r#type.contains(&dtype) {
            return Ok(());
        }
        let names: Vec<String> = allowed_list
            .r#type
            .iter()
            .map(|&t| d.dtype_string(t))
            .collect();
        Err(format!(
            "Value for attr '{}' of {} is not in the list of allowed values: {}",
            attr.name,
            d.dtype_string(dtype),
            names.join(", ")
        ))
    };
    let allowed_string = |s: &[u8]| {
        if allowed_list.s.iter().any(|a| a == s) {
            return Ok(());
        }
        let names: Vec<String> = allowed_list
            .s
            .iter()
            .map(|a| format!("\"{}\"", String::from_utf8_lossy(a)))
            .collect();
        Err(format!(
            "Value for attr '{}' of \"{}\" is not in the list of allowed values: {}",
            attr.name,
            String::from_utf8_lossy(s),
            names.join(", ")
        ))
    };
    match (attr.r#type.as_str(), &value.value) {
        ("type", Some(Value::Type(t))) => allowed_type(*t),
        ("list(type)", _) => list.map_or(Ok(()), |l| {
            l.r#type.iter().try_for_each(|&t| allowed_type(t))
        }),
        ("string", Some(Value::S(s))) => allowed_string(s),
        ("list(string)", _) => {
            list.map_or(Ok(()), |l| l.s.iter().try_for_each(|s| allowed_string(s)))
        }
        ("type" | "string", _) => Ok(()),
        (other, _) => Err(format!(
            "Support for allowed_values not implemented for type {other}"
        )),
    }
}

/// `AttrValueHasType` (`attr_value_util.cc`).
pub(super) fn attr_value_has_type(
    d: &Dialect,
    value: &AttrValue,
    expected: &str,
) -> Result<(), String> {
    let mismatch = |found: &str| {
        Err(format!(
            "AttrValue had value with type '{found}' when '{expected}' expected"
        ))
    };
    let mut num_set = 0;
    match &value.value {
        Some(Value::List(list)) => {
            for (len, name) in [
                (list.s.len(), "list(string)"),
                (list.i.len(), "list(int)"),
                (list.f.len(), "list(float)"),
                (list.b.len(), "list(bool)"),
                (list.r#type.len(), "list(type)"),
                (list.shape.len(), "list(shape)"),
                (list.tensor.len(), "list(tensor)"),
                (list.func.len(), "list(func)"),
            ] {
                if len > 0 {
                    if expected != name {
                        return mismatch(name);
                    }
                    num_set += 1;
                }
            }
        }
        Some(Value::Placeholder(_)) => {
            return Err("AttrValue had value with unexpected type 'placeholder'".to_string());
        }
        Some(scalar) => {
            let found = scalar_kind(scalar);
            if expected != found {
                return mismatch(found);
            }
            num_set += 1;
        }
        None => {}
    }
    let is_list = expected.starts_with("list(");
    if is_list && !matches!(value.value, Some(Value::List(_))) && num_set > 0 {
        return Err(format!(
            "AttrValue missing value with expected type '{expected}'"
        ));
    }
    if num_set == 0 && !is_list {
        return Err(format!(
            "AttrValue missing value with expected type '{expected}'"
        ));
    }
    let check_type = |t: i32| {
        if !d.is_valid_dtype(t) || (is_ref(t) && base_type(t) == 0) {
            Err(format!("AttrValue has invalid DataType enum: {t}"))
        } else if is_ref(t) {
            Err(format!(
                "AttrValue must not have reference type value of {}",
                d.dtype_string(t)
            ))
        } else if t == 0 {
            Err("AttrValue has invalid DataType".to_string())
        } else {
            Ok(())
        }
    };
    match (expected, &value.value) {
        ("type", Some(Value::Type(t))) => check_type(*t),
        ("list(type)", Some(Value::List(list))) => {
            list.r#type.iter().try_for_each(|&t| check_type(t))
        }
        _ => Ok(()),
    }
}

/// The attr type a single (non-list) value has.
fn scalar_kind(value: &Value) -> &'static str {
    match value {
        Value::S(_) => "string",
        Value::I(_) => "int",
        Value::F(_) => "float",
        Value::B(_) => "bool",
        Value::Type(_) => "type",
        Value::Shape(_) => "shape",
        Value::Tensor(_) => "tensor",
        Value::Func(_) => "func",
        Value::List(_) => "list",
        Value::Placeholder(_) => "placeholder",
    }
}

/// `ArgNumType` (`function.cc`): the types one argument stands for, from the attrs.
pub(super) fn arg_num_type(attrs: &Attrs<'_>, arg: &ArgDef) -> Result<Vec<i32>, String> {
    if !arg.type_list_attr.is_empty() {
        return match attrs.get(arg.type_list_attr.as_str()).map(|v| &v.value) {
            Some(Some(Value::List(list))) if list.r#type.len() <= MAX_ARG_VALUES => {
                Ok(list.r#type.clone())
            }
            Some(Some(Value::List(_))) => Err(too_many(arg)),
            Some(_) => Ok(Vec::new()),
            None => Err(format!("type attr not found: {}", arg.type_list_attr)),
        };
    }
    let mut count = 1usize;
    if !arg.number_attr.is_empty() {
        match attrs.get(arg.number_attr.as_str()) {
            None => return Err(format!("type attr not found: {}", arg.type_attr)),
            Some(value) => {
                let n = match value.value {
                    Some(Value::I(n)) => n,
                    _ => 0,
                };
                count = usize::try_from(n).unwrap_or(0);
                if count > MAX_ARG_VALUES {
                    return Err(too_many(arg));
                }
            }
        }
    }
    let dtype = if arg.r#type != 0 {
        arg.r#type
    } else if arg.type_attr.is_empty() {
        0
    } else {
        match attrs.get(arg.type_attr.as_str()) {
            None => return Err(format!("type attr not found: {}", arg.type_attr)),
            Some(value) => match value.value {
                Some(Value::Type(t)) => t,
                _ => 0,
            },
        }
    };
    Ok(vec![dtype; count])
}

fn too_many(arg: &ArgDef) -> String {
    format!(
        "argument '{}' stands for more than {MAX_ARG_VALUES} tensors; a graph this size is \
         not one TensorFlow can load",
        arg.name
    )
}

/// `InOutTypesForNode`: the node's input and output types (references for `Ref` args).
pub(super) fn in_out_types(attrs: &Attrs<'_>, op: &OpDef) -> Result<(Vec<i32>, Vec<i32>), String> {
    let collect = |args: &[ArgDef]| -> Result<Vec<i32>, String> {
        let mut out = Vec::new();
        for arg in args {
            let types = arg_num_type(attrs, arg)?;
            if out.len() + types.len() > MAX_ARG_VALUES {
                return Err(too_many(arg));
            }
            out.extend(
                types
                    .into_iter()
                    .map(|t| if arg.is_ref { ref_type(t) } else { t }),
            );
        }
        Ok(out)
    };
    Ok((collect(&op.input_arg)?, collect(&op.output_arg)?))
}
