"""Writes hand-made models, one for each way a TensorFlow Lite runtime refuses to construct an
interpreter, and a few it accepts.

    python3 specimens.py OUT_DIR

No dependency: the FlatBuffers are written by the repository's small writer,
`flatbuffer.py` beside this script, which the runtime probe (`probe.py`) uses too. Each model is named
for what it holds; `verdicts.py` has every runtime judge them.
"""
import os
import sys

# The FlatBuffer writer beside this script, which the runtime probe of `cargo xtask
# tflite-runtimes` uses too (Python puts a script's own folder on its import path).
from flatbuffer import Str, Table, Vec, quantization, serialize, tensor  # noqa: E402


FLOAT32, INT32, STRING, INT16, INT8, RESOURCE, VARIANT, INT4, BFLOAT16 = 0, 2, 5, 7, 9, 13, 14, 17, 18


def sparsity(dims):
    """A sparsity table with a traversal order and one DENSE dimension entry per dimension."""
    return Table(f0=("off", Vec("i", list(range(dims)))),
                 f2=("off", Vec("off", [Table() for _ in range(dims)])))


def operator(code, ins, outs, options=None):
    """An operator; `options`: (union field id, member tag) of an empty options table."""
    fields = {"f0": ("I", code), "f1": ("off", Vec("i", ins)), "f2": ("off", Vec("i", outs))}
    if options is not None:
        field, tag = options
        fields[f"f{field}"] = ("B", tag)
        fields[f"f{field + 1}"] = ("off", Table())
    return Table(**fields)


def subgraph(tensors=(), operators=(), with_tensors=True):
    fields = {"f1": ("off", Vec("i", [])), "f2": ("off", Vec("i", [])),
              "f3": ("off", Vec("off", [operator(*o) for o in operators]))}
    if with_tensors:
        fields["f0"] = ("off", Vec("off", list(tensors)))
    return Table(**fields)


def model(codes=(), subgraphs=None, buffers=(b"",), version=3, with_buffers=True, **one):
    """A model. `codes`: (builtin code, version) or ("custom", name or None, version);
    `buffers`: each buffer's data (b"": no data field; a `bytearray`: a data vector, even an
    empty one); without `subgraphs`, one subgraph of `one`'s tensors and operators."""
    opcodes = []
    for code in codes:
        if code[0] == "custom":
            fields = {"f0": ("b", 32), "f2": ("i", code[2]), "f3": ("i", 32)}
            if code[1] is not None:
                fields["f1"] = ("off", Str(code[1]))
        else:
            builtin, version_ = code
            fields = {"f0": ("b", max(-128, min(builtin, 127))), "f2": ("i", version_),
                      "f3": ("i", builtin)}
        opcodes.append(Table(**fields))
    if subgraphs is None:
        subgraphs = [subgraph(**one)]
    fields = {"f0": ("I", version), "f1": ("off", Vec("off", opcodes)),
              "f3": ("off", Str("specimen"))}
    if subgraphs != "absent":
        fields["f2"] = ("off", Vec("off", subgraphs))
    if with_buffers:
        fields["f4"] = ("off", Vec("off", [
            Table(f0=("off", data)) if isinstance(data, bytearray) or data else Table()
            for data in buffers]))
    return serialize(Table(**fields))


def f32(*shape):
    return tensor(FLOAT32, list(shape))


def unary(code, version, type_=FLOAT32):
    """One operator of (code, version) on two tensors of `type_`."""
    return model(codes=[(code, version)],
                 tensors=[tensor(type_, [1, 4]), tensor(type_, [1, 4])],
                 operators=[(0, [0], [1])])


q = quantization
SPECIMENS = {
    # Operator codes: the first one a runtime cannot resolve is named.
    "fully_connected_v14": unary(9, 14),
    "sqrt_v2_then_gelu_v2": model(codes=[(75, 2), (150, 2)],
                                  tensors=[f32(1, 4), f32(1, 4), f32(1, 4)],
                                  operators=[(0, [0], [1]), (1, [1], [2])]),
    "stablehlo_case": unary(209, 1),
    "dilate": unary(203, 1),
    "code_250": unary(250, 1),
    "negative_code": unary(-3, 1),
    "version_0": unary(0, 0),
    "custom_without_name": model(codes=[("custom", None, 1)], tensors=[f32(4), f32(4)],
                                 operators=[(0, [0], [1])]),
    "custom_unknown": model(codes=[("custom", "MyOp", 1)], tensors=[f32(4), f32(4)],
                            operators=[(0, [0], [1])]),
    "custom_then_add_v99": model(codes=[("custom", "MyOp", 1), (0, 99)],
                                 tensors=[f32(4), f32(4)],
                                 operators=[(0, [0], [1]), (1, [0, 1], [1])]),
    # The model's structure.
    "schema_version_4": model(version=4, tensors=[f32(4)]),
    "no_subgraphs": model(subgraphs=[]),
    "no_subgraphs_vector": model(subgraphs="absent"),
    "no_buffers": model(with_buffers=False, tensors=[f32(4)]),
    "second_subgraph_without_tensors": model(subgraphs=[
        subgraph(tensors=[f32(4)]), subgraph(with_tensors=False)]),
    # Tensor types.
    "bfloat16": model(tensors=[f32(4), tensor(BFLOAT16, [4])]),
    "int4_packed": model(tensors=[tensor(INT4, [8], buffer=1)], buffers=[b"", bytes(4)]),
    "int4_unpacked": model(tensors=[tensor(INT4, [8], buffer=1)], buffers=[b"", bytes(8)]),
    "int2": model(tensors=[tensor(19, [8])]),
    "uint4": model(tensors=[tensor(20, [8])]),
    "float8_e4m3": model(tensors=[tensor(21, [8])]),
    "float8_e5m2": model(tensors=[tensor(22, [8])]),
    "type_23": model(tensors=[tensor(23, [8])]),
    "type_minus_1": model(tensors=[tensor(-1, [8])]),
    "resource": model(tensors=[tensor(RESOURCE, [1])]),
    # Variables.
    "string_variable": model(tensors=[f32(4), f32(4), tensor(STRING, [1], variable=True)]),
    "resource_variable": model(tensors=[tensor(RESOURCE, [1], variable=True)]),
    "variable_with_buffer": model(tensors=[tensor(FLOAT32, [2], buffer=1, variable=True)],
                                  buffers=[b"", bytes(8)]),
    "int16_variable": model(tensors=[tensor(INT16, [4], variable=True)]),
    # Buffers and sizes.
    "buffer_out_of_range": model(tensors=[f32(4), tensor(FLOAT32, [4], buffer=5)],
                                 buffers=[b"", bytes(16)]),
    "constant_too_short": model(tensors=[tensor(FLOAT32, [4], buffer=1)], buffers=[b"", bytes(8)]),
    "constant_too_long": model(tensors=[tensor(FLOAT32, [4], buffer=1)], buffers=[b"", bytes(32)]),
    "constant_exact": model(tensors=[tensor(INT16, [3, 5], buffer=1)], buffers=[b"", bytes(30)]),
    "empty_data": model(tensors=[tensor(FLOAT32, [4], buffer=1)], buffers=[b"", bytearray()]),
    "empty_data_zero_size": model(tensors=[tensor(FLOAT32, [0], buffer=1)],
                                  buffers=[b"", bytearray()]),
    "string_constant": model(tensors=[tensor(STRING, [2], buffer=1)], buffers=[b"", bytes(3)]),
    "sparse_free_int8_constant": model(tensors=[tensor(INT8, [2, 2], buffer=1)],
                                       buffers=[b"", bytes(4)]),
    "negative_dimension_int8": model(tensors=[tensor(INT8, [-1])]),
    "negative_dimension_float32": model(tensors=[tensor(FLOAT32, [-1, 2])]),
    "negative_dimension_constant": model(tensors=[tensor(FLOAT32, [-1], buffer=1)],
                                         buffers=[b"", bytes(4)]),
    "elements_overflow": model(tensors=[tensor(FLOAT32, [2**31 - 1] * 3)]),
    "bytes_overflow": model(tensors=[tensor(FLOAT32, [2**31 - 1, 2**31 - 1, 4])]),
    # Quantization parameters.
    "quantization_no_zero_point": model(tensors=[tensor(INT8, [4], quantization=q([0.5]))]),
    "quantization_counts": model(tensors=[tensor(INT8, [4, 4], quantization=q([0.5] * 4, [0] * 3, 0))]),
    "quantization_dimension": model(tensors=[tensor(INT8, [4, 4], quantization=q([0.5], [0], 2))]),
    "quantization_scales": model(tensors=[tensor(INT8, [4, 6], quantization=q([0.5] * 4, [0] * 4, 1))]),
    "quantization_per_channel": model(tensors=[tensor(INT8, [4, 6], quantization=q([0.5] * 6, [0] * 6, 1))]),
    # Several refusals at once.
    "two_bad_tensors": model(tensors=[f32(4), tensor(BFLOAT16, [4]),
                                      tensor(FLOAT32, [4], buffer=1)], buffers=[b"", bytes(8)]),
    "bad_quantization_and_size": model(tensors=[
        tensor(INT8, [4], buffer=1, quantization=q([0.5] * 2, [0] * 2, 0))], buffers=[b"", bytes(2)]),
    "bad_tensor_in_second_subgraph": model(subgraphs=[
        subgraph(tensors=[f32(4)]), subgraph(tensors=[f32(4), tensor(BFLOAT16, [4])])]),
    "buffer_out_of_range_then_bad_type": model(tensors=[
        tensor(FLOAT32, [4], buffer=9), tensor(BFLOAT16, [4])]),
    "bad_type_then_buffer_out_of_range": model(tensors=[
        tensor(BFLOAT16, [4]), tensor(FLOAT32, [4], buffer=9), tensor(BFLOAT16, [4])]),
    "missing_op_and_bad_tensor": model(codes=[(0, 99)], tensors=[f32(4), tensor(BFLOAT16, [4])],
                                       operators=[(0, [0], [1])]),
    # Sparse constants: the table's vectors are checked; the size of a sparse one is not.
    "sparse_without_vectors": model(tensors=[f32(4), tensor(FLOAT32, [4, 4], buffer=1,
                                                           sparsity=Table())],
                                    buffers=[b"", bytes(64)]),
    "sparse_without_vectors_short_data": model(tensors=[tensor(FLOAT32, [4, 4], buffer=1,
                                                              sparsity=Table())],
                                               buffers=[b"", bytes(16)]),
    "sparse_dense_metadata_short_data": model(tensors=[tensor(FLOAT32, [4, 4], buffer=1,
                                                             sparsity=sparsity(2))],
                                              buffers=[b"", bytes(8)]),
    # Operators whose kernels' parsers need their options table.
    "lstm_without_options": model(codes=[(16, 1)], tensors=[f32(1, 4), f32(1, 4)],
                                  operators=[(0, [0], [1])]),
    "lstm_with_options": model(codes=[(16, 1)], tensors=[f32(1, 4), f32(1, 4)],
                               operators=[(0, [0], [1], (3, 14))]),
    "lstm_with_other_options": model(codes=[(16, 1)], tensors=[f32(1, 4), f32(1, 4)],
                                     operators=[(0, [0], [1], (3, 1))]),
    "stablehlo_pad_without_options": unary(195, 1),
    "stablehlo_composite_without_options": unary(206, 1),
    "tensor_and_options_refusals": model(codes=[(16, 1)], tensors=[f32(1, 4),
                                                                    tensor(BFLOAT16, [4])],
                                         operators=[(0, [0], [1])]),
}

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
for name, data in SPECIMENS.items():
    with open(os.path.join(out, f"{name}.tflite"), "wb") as f:
        f.write(data)
print(f"{len(SPECIMENS)} specimens")
