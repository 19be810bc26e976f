//! The shape functions [`super::shapes`] replays, one per op, as TensorFlow registers them
//! (`tensorflow/core/ops/{array_ops,math_ops,nn_ops,parsing_ops,state_ops}.cc` and
//! `tensorflow/core/framework/common_shape_fns.cc`): same checks, same order, same words.
//!
//! Covered: sources (`Placeholder`, `PlaceholderWithDefault`, `Const`, variables), the
//! identities, every element-wise unary op of [`UNCHANGED`], the broadcasting binary ops of
//! [`BROADCAST`], `MatMul`, `BiasAdd`, `Reshape`, `ExpandDims`, `Squeeze`, `Shape`, `Size`,
//! `Rank`, `Fill`, `Pack`, `ConcatV2`, `Transpose`, the reductions, `ArgMax`/`ArgMin`,
//! `Softmax`, `LogSoftmax`, `Assign` and friends, and the example parsers (`ParseExample`,
//! `ParseExampleV2`, `ParseSingleExample`). Any other op's outputs are unknown.

use super::shapes::{
    Context, Dim, Known, Shape, Value, merge_dims, with_rank, with_rank_at_least, with_rank_at_most,
};
use crate::schema::AttrValue;
use crate::schema::attr_value::{ListValue, Value as Attr};

/// Ops whose output has their first input's shape (`UnchangedShape`).
pub(super) const UNCHANGED: &[&str] = &[
    "Abs",
    "Acos",
    "Acosh",
    "Asin",
    "Asinh",
    "Atan",
    "Atanh",
    "Cast",
    "Ceil",
    "CheckNumerics",
    "CheckNumericsV2",
    "Cos",
    "Cosh",
    "Elu",
    "Erf",
    "Erfc",
    "Exp",
    "Expm1",
    "Floor",
    "Identity",
    "Inv",
    "Invert",
    "IsFinite",
    "IsInf",
    "IsNan",
    "LeakyRelu",
    "Log",
    "Log1p",
    "LogicalNot",
    "Neg",
    "OnesLike",
    "PreventGradient",
    "Reciprocal",
    "RefIdentity",
    "Relu",
    "Relu6",
    "Rint",
    "Round",
    "Rsqrt",
    "Selu",
    "Sigmoid",
    "Sign",
    "Sin",
    "Sinh",
    "Snapshot",
    "Softplus",
    "Softsign",
    "Sqrt",
    "Square",
    "StopGradient",
    "Tan",
    "Tanh",
    "ZerosLike",
];

/// Binary ops whose output broadcasts their two inputs' shapes (`BroadcastBinaryOpShapeFn`).
pub(super) const BROADCAST: &[&str] = &[
    "Add",
    "AddV2",
    "Atan2",
    "BitwiseAnd",
    "BitwiseOr",
    "BitwiseXor",
    "Div",
    "DivNoNan",
    "FloorDiv",
    "FloorMod",
    "Greater",
    "GreaterEqual",
    "Less",
    "LessEqual",
    "LogicalAnd",
    "LogicalOr",
    "Maximum",
    "Minimum",
    "Mod",
    "Mul",
    "MulNoNan",
    "Pow",
    "RealDiv",
    "SquaredDifference",
    "Sub",
    "TruncateDiv",
    "TruncateMod",
    "Xdivy",
    "Xlogy",
];

/// Ops reduced by `ReductionShape`.
const REDUCTIONS: &[&str] = &[
    "All",
    "Any",
    "EuclideanNorm",
    "Max",
    "Mean",
    "Min",
    "Prod",
    "Sum",
];

/// The node's outputs as its op's shape function gives them, or the function's refusal (the
/// message before [`Context::refusal`] adds the node's context).
pub(super) fn infer(c: &Context<'_>) -> Result<Vec<Known>, String> {
    let op = c.node.op.as_str();
    let one = |shape: Shape| Ok(vec![Known::shape(shape)]);
    match op {
        "Placeholder" => {
            let shape = attr_shape(c, "shape");
            // GraphDefs up to version 21 wrote "unknown" as a scalar.
            if c.version <= 21 && shape.rank().is_none_or(|rank| rank == 0) {
                return one(Shape::unknown());
            }
            one(shape)
        }
        "PlaceholderV2" | "VariableV2" | "Variable" | "TemporaryVariable" => {
            one(attr_shape(c, "shape"))
        }
        "PlaceholderWithDefault" => {
            let shape = attr_shape(c, "shape");
            c.input(0).merge(&shape)?;
            one(shape)
        }
        "Const" => match c.attr("value").and_then(|v| v.value.as_ref()) {
            Some(Attr::Tensor(tensor)) => Ok(vec![Known {
                shape: tensor
                    .tensor_shape
                    .as_ref()
                    .map(Shape::from_proto)
                    .unwrap_or_else(Shape::scalar),
                value: Value::of(tensor),
                handle: None,
            }]),
            _ => Ok(c.unknown_outputs()),
        },
        "VarHandleOp" => Ok(vec![Known {
            handle: Some(attr_shape(c, "shape")),
            ..Known::shape(Shape::scalar())
        }]),
        // A `_shape` annotation, else the shape the handle carries.
        "ReadVariableOp" => match c.attr("_shape") {
            Some(_) => one(attr_shape(c, "_shape")),
            None => one(c.input_handle(0).unwrap_or_default()),
        },
        "Size" | "Rank" => one(Shape::scalar()),
        "EnsureShape" => one(c.input(0).merge(&attr_shape(c, "shape"))?),
        "IdentityN" => Ok((0..c.outputs).map(|i| unchanged(c, i)).collect()),
        "Assign" => {
            if attr_bool(c, "validate_shape").unwrap_or(true) {
                one(c.input(0).merge(&c.input(1))?)
            } else {
                one(c.input(1))
            }
        }
        "AssignAdd" | "AssignSub" => one(c.input(0).merge(&c.input(1))?),
        "Softmax" | "LogSoftmax" => one(with_rank_at_least(&c.input(0), 1)?),
        "Equal" | "NotEqual" => {
            let strict = attr_bool(c, "incompatible_shape_error").unwrap_or(true);
            one(broadcast(&c.input(0), &c.input(1), strict)?)
        }
        "MatMul" => one(mat_mul(c)?),
        "BiasAdd" | "BiasAddV1" => one(bias_add(c)?),
        "Shape" => {
            let input = c.input(0);
            let value = input.dims().and_then(|dims| {
                let sizes: Option<Vec<i64>> = dims.iter().copied().collect();
                sizes.map(|sizes| Value::Ints(sizes, vec![dims.len() as i64]))
            });
            let rank = input.rank().map(|rank| rank as i64);
            Ok(vec![Known {
                shape: Shape::vector(rank),
                value,
                handle: None,
            }])
        }
        "Reshape" => one(reshape(c)?),
        "ExpandDims" => one(expand_dims(c)?),
        "Squeeze" => one(squeeze(c)?),
        "Fill" => {
            let dims = with_rank(&c.input(0), 1)?;
            with_rank(&c.input(1), 0)?;
            one(shape_from_tensor(c, 0, &dims))
        }
        "Pack" => one(pack(c)?),
        "ConcatV2" => one(concat(c)?),
        "Transpose" => one(transpose(c)),
        "ArgMax" | "ArgMin" => one(arg_op(c)?),
        "ParseExample" => parse_example(c, 1),
        "ParseExampleV2" => parse_example(c, 2),
        "ParseSingleExample" => parse_single_example(c),
        "NoOp" => Ok(Vec::new()),
        _ if UNCHANGED.contains(&op) => Ok(vec![unchanged(c, 0)]),
        _ if BROADCAST.contains(&op) => one(broadcast(&c.input(0), &c.input(1), true)?),
        _ if REDUCTIONS.contains(&op) => one(reduction(c)?),
        _ => Ok(c.unknown_outputs()),
    }
}

/// `UnchangedShape` of input `i`: its shape, and the variable shape its handle carries.
fn unchanged(c: &Context<'_>, i: usize) -> Known {
    Known {
        handle: c.input_handle(i),
        ..Known::shape(c.input(i))
    }
}

fn attr_shape(c: &Context<'_>, name: &str) -> Shape {
    match c.attr(name).and_then(|v| v.value.as_ref()) {
        Some(Attr::Shape(shape)) => Shape::from_proto(shape),
        _ => Shape::unknown(),
    }
}

fn attr_bool(c: &Context<'_>, name: &str) -> Option<bool> {
    match c.attr(name)?.value.as_ref()? {
        Attr::B(b) => Some(*b),
        _ => None,
    }
}

fn attr_int(c: &Context<'_>, name: &str) -> Option<i64> {
    match c.attr(name)?.value.as_ref()? {
        Attr::I(i) => Some(*i),
        _ => None,
    }
}

fn attr_list(value: Option<&AttrValue>) -> Option<&ListValue> {
    match value?.value.as_ref()? {
        Attr::List(list) => Some(list),
        _ => None,
    }
}

/// `BroadcastBinaryOpOutputShapeFnHelper`.
pub(super) fn broadcast(x: &Shape, y: &Shape, strict: bool) -> Result<Shape, String> {
    let (Some(xs), Some(ys)) = (x.dims(), y.dims()) else {
        return Ok(Shape::unknown());
    };
    let rank = xs.len().max(ys.len());
    let mut dims = Vec::with_capacity(rank);
    for i in 0..rank {
        let pad_x = rank - xs.len();
        let pad_y = rank - ys.len();
        let dx = if i < pad_x { Some(1) } else { xs[i - pad_x] };
        let y_is_padding = i < pad_y;
        let dy = if y_is_padding { Some(1) } else { ys[i - pad_y] };
        let dim = match (dx, dy) {
            (Some(a), Some(b)) if a == 1 && !y_is_padding => Some(b),
            (Some(a), Some(b)) if a == 1 || b == 1 => Some(a),
            (Some(_), Some(_)) => match merge_dims(dx, dy) {
                Ok(dim) => dim,
                Err(_) if !strict => return Ok(Shape::scalar()),
                Err(message) => return Err(message),
            },
            (Some(a), None) if a > 1 => {
                if !strict {
                    return Ok(Shape::unknown());
                }
                dx
            }
            (None, Some(b)) if b > 1 => {
                if !strict {
                    return Ok(Shape::unknown());
                }
                dy
            }
            (Some(1), None) => dy,
            (None, Some(1)) => dx,
            (None, None) => None,
            _ => {
                if !strict {
                    return Ok(Shape::unknown());
                }
                None
            }
        };
        dims.push(dim);
    }
    Ok(Shape::known(dims))
}

/// `MatMulShape`.
fn mat_mul(c: &Context<'_>) -> Result<Shape, String> {
    let a = with_rank(&c.input(0), 2)?;
    let b = with_rank(&c.input(1), 2)?;
    let (a, b) = (a.dims().unwrap_or_default(), b.dims().unwrap_or_default());
    let transpose_a = attr_bool(c, "transpose_a").unwrap_or(false);
    let transpose_b = attr_bool(c, "transpose_b").unwrap_or(false);
    let (rows, inner_a) = if transpose_a {
        (a[1], a[0])
    } else {
        (a[0], a[1])
    };
    let (inner_b, cols) = if transpose_b {
        (b[1], b[0])
    } else {
        (b[0], b[1])
    };
    merge_dims(inner_a, inner_b)?;
    Ok(Shape::known(vec![rows, cols]))
}

/// `BiasAddShape` (and `BiasAddV1`, which has no `data_format`).
fn bias_add(c: &Context<'_>) -> Result<Shape, String> {
    let nchw = c.node.op == "BiasAdd"
        && matches!(c.attr("data_format").and_then(|v| v.value.as_ref()),
            Some(Attr::S(format)) if format.as_slice() == b"NCHW");
    let input = with_rank_at_least(&c.input(0), if nchw { 3 } else { 2 })?;
    let bias = with_rank(&c.input(1), 1)?;
    let bias_dim = bias.dims().and_then(|dims| dims[0]);
    let Some(dims) = input.dims() else {
        return Ok(Shape::unknown());
    };
    let mut dims = dims.to_vec();
    let at = if nchw { 1 } else { dims.len() - 1 };
    dims[at] = merge_dims(dims[at], bias_dim)?;
    Ok(Shape::known(dims))
}

/// `MakeShapeFromShapeTensor` of input `i`, a vector whose own shape was checked as `shape`:
/// the sizes of a constant (`-1` unknown), or a shape of the right rank with unknown sizes.
fn shape_from_tensor(c: &Context<'_>, i: usize, shape: &Shape) -> Shape {
    let out = match c.inputs.get(i).and_then(|known| known.value.as_ref()) {
        Some(Value::Ints(values, _)) if values.iter().all(|&v| v >= -1) => {
            Shape::known(values.iter().map(|&v| (v >= 0).then_some(v)).collect())
        }
        _ => match shape.dims() {
            Some([Some(rank)]) => Shape::known(vec![None; usize::try_from(*rank).unwrap_or(0)]),
            _ => Shape::unknown(),
        },
    };
    c.read_as_shape(i, &out);
    out
}

/// `SetOutputShapeForReshape`.
fn reshape(c: &Context<'_>) -> Result<Shape, String> {
    let shape_of_shape = with_rank(&c.input(1), 1)?;
    let mut out = shape_from_tensor(c, 1, &shape_of_shape);
    let (Some(out_dims), Some(in_dims)) = (out.dims().map(<[Dim]>::to_vec), c.input(0).0) else {
        return Ok(out);
    };
    // The known elements of each side, and its one unknown size (more than one: nothing to do).
    let known = |dims: &[Dim]| {
        let unknown: Vec<usize> = (0..dims.len()).filter(|&i| dims[i].is_none()).collect();
        let product = dims
            .iter()
            .flatten()
            .try_fold(1i64, |n, &d| n.checked_mul(d));
        (product, unknown)
    };
    let (Some(out_known), out_unknown) = known(&out_dims) else {
        return Ok(out);
    };
    let (Some(in_known), in_unknown) = known(&in_dims) else {
        return Ok(out);
    };
    if out_unknown.len() > 1 || in_unknown.len() > 1 {
        return Ok(out);
    }
    match (in_unknown.first(), out_unknown.first()) {
        (None, None) if in_known != out_known => {
            return Err(format!(
                "Cannot reshape a tensor with {in_known} elements to shape {} ({out_known} \
                 elements)",
                out.debug_string()
            ));
        }
        (None, Some(&at)) if out_known > 0 => {
            if in_known % out_known != 0 {
                return Err(format!(
                    "Dimension size must be evenly divisible by {out_known} but is {in_known}"
                ));
            }
            let mut dims = out_dims;
            dims[at] = Some(in_known / out_known);
            out = Shape::known(dims);
        }
        (Some(_), None) if in_known != 0 && out_known % in_known != 0 => {
            return Err(format!(
                "Dimension size must be evenly divisible by {in_known} but is {out_known}"
            ));
        }
        (Some(&at_in), Some(&at_out)) if in_known == out_known => {
            let mut dims = out_dims;
            dims[at_out] = in_dims[at_in];
            out = Shape::known(dims);
        }
        _ => {}
    }
    Ok(out)
}

/// The single value of a constant input (a scalar or a vector of one).
fn single_value(c: &Context<'_>, i: usize) -> Option<Result<i64, String>> {
    let Value::Ints(values, _) = c.input_value(i)?;
    Some(match values.as_slice() {
        [value] => Ok(*value),
        _ => Err("'dim' input must be a tensor with a single value".to_string()),
    })
}

fn expand_dims(c: &Context<'_>) -> Result<Shape, String> {
    let input = c.input(0);
    let dim = single_value(c, 1).transpose()?;
    let (Some(dim), Some(dims)) = (dim, input.dims()) else {
        return Ok(Shape::unknown());
    };
    let rank = dims.len() as i64;
    let min = -rank - 1;
    if dim < min || dim > rank {
        return Err(format!("dim {dim} not in the interval [{min}, {rank}]."));
    }
    let at = if dim < 0 { dim + rank + 1 } else { dim } as usize;
    let mut out = dims.to_vec();
    out.insert(at, Some(1));
    Ok(Shape::known(out))
}

fn squeeze(c: &Context<'_>) -> Result<Shape, String> {
    let input = c.input(0);
    let Some(dims) = input.dims() else {
        return Ok(Shape::unknown());
    };
    let rank = dims.len() as i64;
    let mut squeeze: Vec<i64> = attr_list(c.attr("squeeze_dims"))
        .map(|list| list.i.clone())
        .unwrap_or_default();
    for (i, dim) in squeeze.iter_mut().enumerate() {
        if *dim < -rank || *dim >= rank {
            return Err(format!("squeeze_dims[{i}] not in [{},{rank}).", -rank));
        }
        if *dim < 0 {
            *dim += rank;
        }
    }
    let mut out = Vec::new();
    for (i, &dim) in dims.iter().enumerate() {
        let explicit = squeeze.contains(&(i as i64));
        match dim {
            None if explicit => continue,
            None if squeeze.is_empty() => return Ok(Shape::unknown()),
            Some(1) if explicit || squeeze.is_empty() => continue,
            Some(size) if explicit => {
                return Err(format!(
                    "Can not squeeze dim[{i}], expected a dimension of 1, got {size}"
                ));
            }
            _ => {}
        }
        out.push(dim);
    }
    Ok(Shape::known(out))
}

fn pack(c: &Context<'_>) -> Result<Shape, String> {
    let count = c.inputs.len();
    let Some(mut merged) = count.checked_sub(1).map(|last| c.input(last)) else {
        return Ok(Shape::unknown());
    };
    for i in (0..count.saturating_sub(1)).rev() {
        merged = c
            .input(i)
            .merge(&merged)
            .map_err(|message| format!("{message}\n\tFrom merging shape {i} with other shapes."))?;
    }
    let Some(dims) = merged.dims() else {
        return Ok(Shape::unknown());
    };
    let rank = dims.len() as i64 + 1;
    let axis = attr_int(c, "axis").unwrap_or(0);
    if axis < -rank || axis >= rank {
        return Err(format!(
            "Invalid axis: {axis}; must be in [{}, {rank})",
            -rank
        ));
    }
    let at = if axis < 0 { axis + rank } else { axis } as usize;
    let mut out = dims.to_vec();
    out.insert(at, Some(count as i64));
    Ok(Shape::known(out))
}

/// `ConcatShapeHelper` of `ConcatV2`: the values, then the axis.
fn concat(c: &Context<'_>) -> Result<Shape, String> {
    let values = c.inputs.len().saturating_sub(1);
    with_rank(&c.input(values), 0)?;
    let Some(axis) = single_value(c, values).and_then(Result::ok) else {
        let rank = (0..values).find_map(|i| c.input(i).rank());
        return match rank {
            None => Ok(Shape::unknown()),
            Some(0) => Err("Can't concatenate scalars (use tf.stack instead)".to_string()),
            Some(rank) => {
                for i in 0..values {
                    with_rank(&c.input(i), rank)?;
                }
                Ok(Shape::known(vec![None; rank]))
            }
        };
    };
    // With an unknown rank among the values, TensorFlow still merges what it knows; this keeps
    // to the plain case and gives up on the output.
    let shapes: Option<Vec<Vec<Dim>>> = (0..values).map(|i| c.input(i).0).collect();
    let Some(shapes) = shapes else {
        return Ok(Shape::unknown());
    };
    let min_rank = if axis < 0 { -axis } else { axis + 1 };
    // Each value split around the axis: before, the axis' size, after; the last value first,
    // then each earlier one merged into it.
    let split = |dims: &Vec<Dim>| -> Result<(Shape, Dim, Shape), String> {
        let rank = dims.len() as i64;
        if rank < min_rank {
            return Err(format!(
                "Shape must be at least rank {min_rank} but is rank {rank}"
            ));
        }
        let at = if axis < 0 { rank + axis } else { axis } as usize;
        Ok((
            Shape::known(dims[..at].to_vec()),
            dims[at],
            Shape::known(dims[at + 1..].to_vec()),
        ))
    };
    let Some((last, earlier)) = shapes.split_last() else {
        return Ok(Shape::unknown());
    };
    let (mut before, mut middle, mut after) = split(last)?;
    for dims in earlier.iter().rev() {
        let (b, m, a) = split(dims)?;
        before = b.merge(&before)?;
        middle = middle.zip(m).map(|(x, y)| x + y);
        after = a.merge(&after)?;
    }
    let mut out = before.0.unwrap_or_default();
    out.push(middle);
    out.extend(after.0.unwrap_or_default());
    Ok(Shape::known(out))
}

fn transpose(c: &Context<'_>) -> Shape {
    let input = c.input(0);
    let Some(dims) = input.dims() else {
        return Shape::unknown();
    };
    match c.input_value(1) {
        Some(Value::Ints(perm, _)) if perm.len() == dims.len() => {
            let permuted: Option<Vec<Dim>> = perm
                .iter()
                .map(|&p| usize::try_from(p).ok().and_then(|p| dims.get(p).copied()))
                .collect();
            permuted.map_or_else(|| Shape::known(vec![None; dims.len()]), Shape::known)
        }
        _ => Shape::known(vec![None; dims.len()]),
    }
}

/// `ReductionShape`.
fn reduction(c: &Context<'_>) -> Result<Shape, String> {
    let input = c.input(0);
    if c.version >= 21 {
        with_rank_at_most(&c.input(1), 1)?;
    }
    let keep_dims = attr_bool(c, "keep_dims").unwrap_or(false);
    let (Some(Value::Ints(indices, _)), Some(dims)) = (c.input_value(1), input.dims()) else {
        return Ok(match input.rank() {
            Some(rank) if keep_dims => Shape::known(vec![None; rank]),
            _ => Shape::unknown(),
        });
    };
    let rank = dims.len() as i64;
    let mut reduced = std::collections::BTreeSet::new();
    for &index in indices {
        if index < -rank || index >= rank {
            return Err(format!(
                "Invalid reduction dimension {index} for input with {rank} dimensions."
            ));
        }
        reduced.insert(if index < 0 { index + rank } else { index });
    }
    let mut out = Vec::new();
    for (i, &dim) in dims.iter().enumerate() {
        if reduced.contains(&(i as i64)) {
            if keep_dims {
                out.push(Some(1));
            }
        } else {
            out.push(dim);
        }
    }
    Ok(Shape::known(out))
}

/// `ArgOpShape`.
fn arg_op(c: &Context<'_>) -> Result<Shape, String> {
    with_rank(&c.input(1), 0)?;
    let input = c.input(0);
    let Some(dims) = input.dims() else {
        return Ok(Shape::unknown());
    };
    let rank = dims.len() as i64;
    if rank <= 1 {
        return Ok(Shape::scalar());
    }
    let Some(Value::Ints(values, _)) = c.input_value(1) else {
        return Ok(Shape::known(vec![None; dims.len() - 1]));
    };
    let Some(&value) = values.first() else {
        return Ok(Shape::known(vec![None; dims.len() - 1]));
    };
    let axis = if value < 0 { value + rank } else { value };
    if axis < 0 || axis >= rank {
        return Err(format!(
            "Dimension ({value}) must be in the range [{}, {rank}), where {rank} is the number \
             of dimensions in the input.",
            -rank
        ));
    }
    let mut out = dims.to_vec();
    out.remove(axis as usize);
    Ok(Shape::known(out))
}

/// `ParseExample` (version 1: one serialized example per row) and `ParseExampleV2` (a scalar
/// or a vector of them).
fn parse_example(c: &Context<'_>, version: u8) -> Result<Vec<Known>, String> {
    let (sparse, dense_shapes, ragged) = if version == 1 {
        (
            attr_int(c, "Nsparse").unwrap_or(0),
            attr_list(c.attr("dense_shapes")),
            0,
        )
    } else {
        let ragged = attr_list(c.attr("ragged_value_types")).map_or(0, |list| list.r#type.len());
        (
            attr_int(c, "num_sparse").unwrap_or(0),
            attr_list(c.attr("dense_shapes")),
            ragged,
        )
    };
    let input = if version == 1 {
        let input = with_rank(&c.input(0), 1)?;
        with_rank(&c.input(1), 1)?;
        input
    } else {
        let input = with_rank_at_most(&c.input(0), 1)?;
        with_rank_at_most(&c.input(1), 1)?;
        input
    };
    let sparse = usize::try_from(sparse).unwrap_or(0);
    let sparse_rank = input.rank().map(|rank| rank as i64 + 1);
    let mut out = Vec::new();
    out.extend((0..sparse).map(|_| Known::shape(Shape::known(vec![None, sparse_rank]))));
    out.extend((0..sparse).map(|_| Known::shape(Shape::vector(None))));
    out.extend((0..sparse).map(|_| Known::shape(Shape::vector(sparse_rank))));
    for shape in dense_shapes
        .map(|list| list.shape.as_slice())
        .unwrap_or_default()
    {
        let dense = Shape::from_proto(shape);
        let shape = match (input.dims(), dense.dims()) {
            (Some(a), Some(b)) => Shape::known([a, b].concat()),
            _ => Shape::unknown(),
        };
        out.push(Known::shape(shape));
    }
    out.extend((0..2 * ragged).map(|_| Known::default()));
    out.resize(c.outputs, Known::default());
    Ok(out)
}

fn parse_single_example(c: &Context<'_>) -> Result<Vec<Known>, String> {
    with_rank(&c.input(0), 0)?;
    let sparse = usize::try_from(attr_int(c, "num_sparse").unwrap_or(0)).unwrap_or(0);
    let mut out = Vec::new();
    out.extend((0..sparse).map(|_| Known::shape(Shape::known(vec![None, Some(1)]))));
    out.extend((0..sparse).map(|_| Known::shape(Shape::vector(None))));
    out.extend((0..sparse).map(|_| Known::shape(Shape::vector(Some(1)))));
    for shape in attr_list(c.attr("dense_shapes"))
        .map(|list| list.shape.as_slice())
        .unwrap_or_default()
    {
        out.push(Known::shape(Shape::from_proto(shape)));
    }
    out.resize(c.outputs, Known::default());
    Ok(out)
}

#[cfg(test)]
mod tests;
