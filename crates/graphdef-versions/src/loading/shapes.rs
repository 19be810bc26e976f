//! Shape inference, as far as TensorFlow 1 signatures need it: the shapes TensorFlow's shape
//! functions give a node's outputs from its inputs' shapes and attrs, and the errors they raise
//! (`InferenceContext`, `tensorflow/core/framework/shape_inference.cc`, and the ops' shape
//! functions in `tensorflow/core/ops/`, some of them through `common_shape_fns.cc`).
//!
//! `tf.saved_model.load` prunes each signature of a TensorFlow 1 SavedModel into a function: it
//! copies the ops the signature needs into a new graph, and each copy runs its shape function
//! there, at the loading release's GraphDef version. A graph written before version 22 was
//! imported by older rules (a placeholder whose `shape` is a scalar meant "unknown"), so its
//! copies can be refused where the import was not; and the shapes the signature records are
//! merged into what the copies infer. This module gives those shapes and refusals for the ops
//! [`super::shape_fns`] covers; any other op's outputs are unknown, which refuses nothing.

use std::fmt::Write as _;

use super::printing::{Dialect, node_for_error};
use crate::schema::{AttrValue, NodeDef, TensorProto, TensorShapeProto};

/// A dimension: its size, or `None` when unknown.
pub(super) type Dim = Option<i64>;

/// A shape: its dimensions, or `None` when even its rank is unknown.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub(super) struct Shape(pub(super) Option<Vec<Dim>>);

impl Shape {
    pub(super) fn unknown() -> Shape {
        Shape(None)
    }

    pub(super) fn known(dims: Vec<Dim>) -> Shape {
        Shape(Some(dims))
    }

    pub(super) fn scalar() -> Shape {
        Shape(Some(Vec::new()))
    }

    pub(super) fn vector(dim: Dim) -> Shape {
        Shape(Some(vec![dim]))
    }

    pub(super) fn dims(&self) -> Option<&[Dim]> {
        self.0.as_deref()
    }

    pub(super) fn rank(&self) -> Option<usize> {
        self.0.as_ref().map(Vec::len)
    }

    /// A `PartialTensorShape` as a `TensorShapeProto` gives it (`unknown_rank`, and `-1` for an
    /// unknown size).
    pub(super) fn from_proto(proto: &TensorShapeProto) -> Shape {
        if proto.unknown_rank {
            return Shape::unknown();
        }
        Shape::known(
            proto
                .dim
                .iter()
                .map(|dim| (dim.size >= 0).then_some(dim.size))
                .collect(),
        )
    }

    /// The number of elements, when every size is known.
    pub(super) fn num_elements(&self) -> Option<i64> {
        self.dims()?
            .iter()
            .try_fold(1i64, |n, dim| n.checked_mul((*dim)?))
    }

    /// `InferenceContext::DebugString`: `?`, `[]`, `[?,1]`.
    pub(super) fn debug_string(&self) -> String {
        match self.dims() {
            None => "?".to_string(),
            Some(dims) => {
                let dims: Vec<String> = dims.iter().map(|dim| dim_string(*dim)).collect();
                format!("[{}]", dims.join(","))
            }
        }
    }

    /// Python's `str(TensorShape)`: `<unknown>`, `()`, `(None,)`, `(None, 1)`.
    pub(super) fn python_string(&self) -> String {
        match self.dims() {
            None => "<unknown>".to_string(),
            Some([dim]) => format!("({},)", python_dim(*dim)),
            Some(dims) => {
                let dims: Vec<String> = dims.iter().map(|dim| python_dim(*dim)).collect();
                format!("({})", dims.join(", "))
            }
        }
    }

    /// `InferenceContext::Merge` of two shapes: the more precise of the two, or TensorFlow's
    /// refusal when they disagree.
    pub(super) fn merge(&self, other: &Shape) -> Result<Shape, String> {
        let (Some(a), Some(b)) = (self.dims(), other.dims()) else {
            return Ok(if self.0.is_none() { other } else { self }.clone());
        };
        if a.len() != b.len() {
            return Err(format!(
                "Shapes must be equal rank, but are {} and {}",
                a.len(),
                b.len()
            ));
        }
        let mut merged = Vec::with_capacity(a.len());
        for (i, (x, y)) in a.iter().zip(b).enumerate() {
            match (x, y) {
                (Some(x), Some(y)) if x != y => {
                    return Err(format!(
                        "Dimension {i} in both shapes must be equal, but are {x} and {y}. \
                         Shapes are {} and {}.",
                        self.debug_string(),
                        other.debug_string()
                    ));
                }
                (Some(_), _) => merged.push(*x),
                _ => merged.push(*y),
            }
        }
        Ok(Shape::known(merged))
    }
}

fn dim_string(dim: Dim) -> String {
    dim.map_or_else(|| "?".to_string(), |size| size.to_string())
}

fn python_dim(dim: Dim) -> String {
    dim.map_or_else(|| "None".to_string(), |size| size.to_string())
}

/// `InferenceContext::Merge` of two dimensions.
pub(super) fn merge_dims(a: Dim, b: Dim) -> Result<Dim, String> {
    match (a, b) {
        (Some(x), Some(y)) if x != y => {
            Err(format!("Dimensions must be equal, but are {x} and {y}"))
        }
        (Some(_), _) => Ok(a),
        _ => Ok(b),
    }
}

/// `InferenceContext::WithRank`.
pub(super) fn with_rank(shape: &Shape, rank: usize) -> Result<Shape, String> {
    match shape.rank() {
        None => Ok(Shape::known(vec![None; rank])),
        Some(r) if r == rank => Ok(shape.clone()),
        Some(r) => Err(format!("Shape must be rank {rank} but is rank {r}")),
    }
}

/// `InferenceContext::WithRankAtLeast`.
pub(super) fn with_rank_at_least(shape: &Shape, rank: usize) -> Result<Shape, String> {
    match shape.rank() {
        Some(r) if r < rank => Err(format!(
            "Shape must be at least rank {rank} but is rank {r}"
        )),
        _ => Ok(shape.clone()),
    }
}

/// `InferenceContext::WithRankAtMost`.
pub(super) fn with_rank_at_most(shape: &Shape, rank: usize) -> Result<Shape, String> {
    match shape.rank() {
        Some(r) if r > rank => Err(format!("Shape must be at most rank {rank} but is rank {r}")),
        _ => Ok(shape.clone()),
    }
}

/// The value of a small constant tensor, as shape functions read it (`input_tensor`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Value {
    /// An integer tensor's elements, and its shape.
    Ints(Vec<i64>, Vec<i64>),
}

/// Integer constants longer than this are not kept as values.
const MAX_VALUE_LEN: usize = 1 << 16;

impl Value {
    /// The elements of an `int32` or `int64` tensor, when the proto holds them all.
    pub(super) fn of(tensor: &TensorProto) -> Option<Value> {
        let shape = Shape::from_proto(tensor.tensor_shape.as_ref()?);
        let dims: Vec<i64> = shape.dims()?.iter().copied().collect::<Option<_>>()?;
        let count = usize::try_from(shape.num_elements()?).ok()?;
        if count > MAX_VALUE_LEN {
            return None;
        }
        let values: Vec<i64> = match tensor.dtype {
            3 if !tensor.tensor_content.is_empty() => tensor
                .tensor_content
                .chunks_exact(4)
                .map(|b| i64::from(i32::from_le_bytes([b[0], b[1], b[2], b[3]])))
                .collect(),
            9 if !tensor.tensor_content.is_empty() => tensor
                .tensor_content
                .chunks_exact(8)
                .map(|b| i64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]))
                .collect(),
            3 => tensor.int_val.iter().map(|&v| i64::from(v)).collect(),
            9 => tensor.int64_val.clone(),
            _ => return None,
        };
        // A value repeated to fill the shape is written once (`MakeTensorFromProto`).
        let values = match (values.len(), count) {
            (n, c) if n == c => values,
            (1, c) => vec![values[0]; c],
            (0, 0) => values,
            _ => return None,
        };
        Some(Value::Ints(values, dims))
    }

    /// `Tensor::SummarizeValue(256)` of the value, as an error prints it.
    fn summarize(&self) -> String {
        let Value::Ints(values, dims) = self;
        let shown: Vec<String> = values.iter().take(256).map(i64::to_string).collect();
        let mut text = shown.join(" ");
        if values.len() > 256 {
            text.push_str("...");
        }
        if dims.len() > 1 {
            // Only vectors and scalars are summarized flat here; a matrix is left as its
            // elements (shape functions read vectors).
            return text;
        }
        text
    }
}

/// What shape inference knows of a tensor: its shape, its value when it is a small integer
/// constant, and, for a resource variable's handle, the shape of the variable (the handle's
/// "shapes and types").
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub(super) struct Known {
    pub(super) shape: Shape,
    pub(super) value: Option<Value>,
    pub(super) handle: Option<Shape>,
}

impl Known {
    pub(super) fn shape(shape: Shape) -> Known {
        Known {
            shape,
            value: None,
            handle: None,
        }
    }
}

/// One node being inferred: what its shape function reads (`InferenceContext`).
pub(super) struct Context<'c> {
    pub(super) node: &'c NodeDef,
    /// The node's attrs, the op's defaults added.
    pub(super) attrs: &'c std::collections::HashMap<&'c str, &'c AttrValue>,
    pub(super) inputs: &'c [Known],
    /// How many outputs the node has.
    pub(super) outputs: usize,
    /// The GraphDef version the shape functions run at.
    pub(super) version: i32,
    /// Which inputs the shape function read as values or as shapes, for the error's context.
    requested: std::cell::RefCell<Vec<(usize, Option<Shape>)>>,
}

impl<'c> Context<'c> {
    pub(super) fn new(
        node: &'c NodeDef,
        attrs: &'c std::collections::HashMap<&'c str, &'c AttrValue>,
        inputs: &'c [Known],
        outputs: usize,
        version: i32,
    ) -> Self {
        Context {
            node,
            attrs,
            inputs,
            outputs,
            version,
            requested: std::cell::RefCell::new(Vec::new()),
        }
    }

    /// Input `i`'s shape (unknown when the node has fewer inputs).
    pub(super) fn input(&self, i: usize) -> Shape {
        self.inputs
            .get(i)
            .map(|known| known.shape.clone())
            .unwrap_or_default()
    }

    /// The variable shape input `i`'s handle carries, if any (`input_handle_shapes_and_types`).
    pub(super) fn input_handle(&self, i: usize) -> Option<Shape> {
        self.inputs.get(i)?.handle.clone()
    }

    /// Input `i`'s value, when it is a known constant (`input_tensor`).
    pub(super) fn input_value(&self, i: usize) -> Option<&Value> {
        self.requested.borrow_mut().push((i, None));
        self.inputs.get(i)?.value.as_ref()
    }

    /// Notes that input `i`, a shape tensor, was read as the shape `shape`
    /// (`MakeShapeFromShapeTensor`).
    pub(super) fn read_as_shape(&self, i: usize, shape: &Shape) {
        self.requested.borrow_mut().push((i, Some(shape.clone())));
    }

    pub(super) fn attr(&self, name: &str) -> Option<&'c AttrValue> {
        self.attrs.get(name).copied()
    }

    /// Every output unknown.
    pub(super) fn unknown_outputs(&self) -> Vec<Known> {
        vec![Known::default(); self.outputs]
    }

    /// `InferenceContext::AttachContext`: the message of a refusal of this node, with the
    /// node, its inputs' shapes and the values its shape function read.
    pub(super) fn refusal(&self, message: &str, d: &Dialect) -> String {
        let shapes: Vec<String> = self
            .inputs
            .iter()
            .map(|known| known.shape.debug_string())
            .collect();
        let mut text = format!(
            "{message} for '{}' with input shapes: {}",
            summarize_node(self.node, self.attrs, d),
            shapes.join(", ")
        );
        // An input read as a shape is given as that shape; one read as a value, as its value.
        let requested = self.requested.borrow();
        let (mut values, mut shapes) = (Vec::new(), Vec::new());
        for i in 0..self.inputs.len() {
            let as_shape = requested
                .iter()
                .rev()
                .find_map(|(at, shape)| (*at == i).then_some(shape.as_ref()).flatten());
            if let Some(shape) = as_shape.filter(|shape| shape.rank().is_some()) {
                shapes.push(format!("input[{i}] = {}", shape.debug_string()));
            } else if requested.iter().any(|(at, _)| *at == i)
                && let Some(value) = &self.inputs[i].value
            {
                values.push(format!("input[{i}] = <{}>", value.summarize()));
            }
        }
        if !values.is_empty() {
            let _ = write!(
                text,
                " and with computed input tensors: {}",
                values.join(", ")
            );
        }
        if !shapes.is_empty() {
            let _ = write!(
                text,
                " and with input tensors computed as partial shapes: {}",
                shapes.join(",")
            );
        }
        text.push('.');
        text
    }
}

/// `SummarizeNodeDef`: `{{node NAME}} = OP[attr=value, ...](input, ...)`, attrs sorted by
/// name, the device last as `_device`.
pub(super) fn summarize_node(
    node: &NodeDef,
    attrs: &std::collections::HashMap<&str, &AttrValue>,
    d: &Dialect,
) -> String {
    let mut names: Vec<&str> = attrs.keys().copied().collect();
    names.sort_unstable();
    let mut parts: Vec<String> = names
        .iter()
        .map(|name| format!("{name}={}", d.summarize_attr_value(attrs[name])))
        .collect();
    if !node.device.is_empty() {
        parts.push(format!("_device=\"{}\"", node.device));
    }
    format!(
        "{} = {}[{}]({})",
        node_for_error(&node.name),
        node.op,
        parts.join(", "),
        node.input.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_print_as_tensorflow_and_python_do() {
        let batch = Shape::known(vec![None, Some(1)]);
        assert_eq!(batch.debug_string(), "[?,1]");
        assert_eq!(batch.python_string(), "(None, 1)");
        assert_eq!(Shape::scalar().debug_string(), "[]");
        assert_eq!(Shape::scalar().python_string(), "()");
        assert_eq!(Shape::vector(Some(2)).python_string(), "(2,)");
        assert_eq!(Shape::unknown().debug_string(), "?");
        assert_eq!(Shape::unknown().python_string(), "<unknown>");
    }

    #[test]
    fn merging_keeps_what_either_knows_and_refuses_disagreement() {
        let a = Shape::known(vec![None, Some(1)]);
        let b = Shape::known(vec![Some(4), None]);
        assert_eq!(a.merge(&b), Ok(Shape::known(vec![Some(4), Some(1)])));
        assert_eq!(a.merge(&Shape::unknown()), Ok(a.clone()));
        assert_eq!(
            a.merge(&Shape::scalar()),
            Err("Shapes must be equal rank, but are 2 and 0".to_string())
        );
        assert_eq!(
            a.merge(&Shape::known(vec![None, Some(3)])),
            Err(
                "Dimension 1 in both shapes must be equal, but are 1 and 3. Shapes are \
                 [?,1] and [?,3]."
                    .to_string()
            )
        );
    }
}
