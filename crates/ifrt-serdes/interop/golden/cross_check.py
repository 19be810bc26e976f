"""Cross-checks the golden bytes of ifrt-serdes against an independent encoder.

The schemas are IFRT's own, as compiled into jaxlib: this script finds the serialized
FileDescriptorProto of each IFRT .proto embedded in jaxlib's C++ library, loads them into a
protobuf descriptor pool, builds each golden's message with Python protobuf following IFRT's
ToProto rules (xla/python/ifrt/dtype.cc, shape.cc, device_list.cc, array_spec.cc, the sharding
serializers and ir/sharding_param.cc: every message records version 0, except a ShardingParam
with unreduced axes, which records 1), and compares the bytes with tests/data/golden/*.pb: the
shardings in `Serialized` envelopes (IFRT's SerDes), DType, Shape, DeviceList and ArraySpec as
bare messages (IFRT's ToProto; IFRT never puts them in an envelope).

Run it from anywhere; it makes its own venv (jaxlib, protobuf) under $IFRT_CROSS_CHECK_VENV or
./.venv-ifrt-cross-check:

    python3 crates/ifrt-serdes/interop/golden/cross_check.py

It prints one line per golden file and exits 1 if any differs.
"""

import os
import pathlib
import re
import subprocess
import sys
import venv

HERE = pathlib.Path(__file__).resolve().parent
GOLDEN = HERE.parents[1] / "tests" / "data" / "golden"
PROTOS = [
    "xla/python/ifrt/serdes.proto",
    "xla/python/ifrt/dtype.proto",
    "xla/python/ifrt/shape.proto",
    "xla/python/ifrt/device.proto",
    "xla/python/ifrt/ir/sharding_param.proto",
    "xla/python/ifrt/sharding.proto",
    "xla/python/ifrt/sharding_serdes.proto",
    "xla/python/ifrt/array_spec.proto",
    "xla/xla_data.proto",
    "xla/python/pjrt_ifrt/xla_sharding.proto",
    "xla/python/ifrt/layout_serdes.proto",
    "xla/python/pjrt_ifrt/pjrt_layout_serdes.proto",
]

# Checked elsewhere: xla_compile_options_v0.pb (its schema reaches most of XLA's compile
# options; the golden is a hand-made three-level message, checked field by field in
# tests/ifrt/golden.rs) and xla_program_v0.pb (opaque MLIR bytecode, the very bytes jaxlib
# 0.10.2 sent: its line in tests/data/real/jaxlib-0.10.2-default.txt).
NOT_HERE = {"xla_compile_options_v0.pb", "xla_program_v0.pb"}


def ensure_venv():
    """Re-runs this script inside a venv that has jaxlib and protobuf."""
    if os.environ.get("IFRT_CROSS_CHECK_INSIDE") == "1":
        return
    env_dir = pathlib.Path(os.environ.get("IFRT_CROSS_CHECK_VENV", ".venv-ifrt-cross-check"))
    python = env_dir / "bin" / "python"
    if not python.exists():
        venv.create(env_dir, with_pip=True)
        subprocess.check_call([python, "-m", "pip", "install", "-q", "jaxlib", "protobuf"])
    env = dict(os.environ, IFRT_CROSS_CHECK_INSIDE="1")
    sys.exit(subprocess.call([python, __file__, *sys.argv[1:]], env=env))


def varint(buf, i):
    shift = value = 0
    while True:
        byte = buf[i]
        i += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, i


def descriptor_end(buf, start):
    """Where the FileDescriptorProto starting at `start` ends: at the first key no
    FileDescriptorProto field (1 to 14, varint or length-delimited) has."""
    i = start
    while i < len(buf):
        key, j = varint(buf, i)
        field, wire = key >> 3, key & 7
        if not 1 <= field <= 14 or wire not in (0, 2):
            break
        if wire == 0:
            _, j = varint(buf, j)
        else:
            n, j = varint(buf, j)
            j += n
        if j > len(buf):
            break
        i = j
    return i


def load_pool():
    import jaxlib
    from google.protobuf import descriptor_pb2, descriptor_pool

    library = next(pathlib.Path(jaxlib.__file__).parent.glob("libjax_common.so"))
    data = library.read_bytes()
    pool = descriptor_pool.DescriptorPool()
    for name in PROTOS:
        needle = bytes([0x0A, len(name)]) + name.encode()
        for match in re.finditer(re.escape(needle), data):
            proto = descriptor_pb2.FileDescriptorProto()
            try:
                proto.ParseFromString(data[match.start() : descriptor_end(data, match.start())])
            except Exception:
                continue
            if proto.message_type:
                pool.Add(proto)
                break
        else:
            sys.exit(f"no descriptor of {name} in {library}")
    return pool, getattr(jaxlib, "__version__", "?")


def main():
    ensure_venv()
    from google.protobuf import message_factory

    pool, version = load_pool()

    def new(name):
        full = name if name.startswith("xla.") else "xla.ifrt." + name
        return message_factory.GetMessageClass(pool.FindMessageTypeByName(full))()

    def envelope(type_name, message):
        serialized = new("Serialized")
        serialized.type_name = type_name
        serialized.data = message.SerializeToString()
        return serialized

    def dtype(kind):
        proto = new("DTypeProto")
        proto.version_number = 0
        proto.kind = kind
        return proto

    def shape(dims):
        proto = new("ShapeProto")
        proto.version_number = 0
        proto.dims.extend(dims)
        return proto

    def param_sharding(unreduced):
        proto = new("ShardingParamShardingProto")
        proto.version_number = 0
        param = proto.sharding_param
        # sharding_param.cc: 1 only when there are unreduced axes.
        param.version_number = 1 if unreduced else 0
        param.dim_shards.extend([2, 1])
        param.permutation.extend([1, 0])
        param.axis_sizes.extend([2, 2])
        param.unreduced_axes.extend(unreduced)
        proto.devices.version_number = 0
        proto.devices.device_ids.extend([0, 1, 2, 3])
        proto.memory_kind = "device"
        return proto

    def array_spec(unreduced):
        proto = new("ArraySpecProto")
        proto.version_number = 0
        proto.dtype.CopyFrom(dtype(11))  # F32
        proto.shape.CopyFrom(shape([16, 4]))
        sharding = envelope("xla::ifrt::ShardingParamSharding", param_sharding(unreduced))
        proto.sharding.serialized_sharding.CopyFrom(sharding)
        return proto

    single = new("SingleDeviceShardingProto")
    single.version_number = 0
    single.device_id = 3
    single.memory_kind = "pinned_host"

    def devices(proto, ids):
        proto.devices.version_number = 0
        proto.devices.device_ids.extend(ids)

    # xla_sharding_serdes.cc: jax's P('a') on a 2x2 mesh, as jaxlib 0.10.2 sends it.
    hlo = new("HloShardingProto")
    hlo.version_number = 0
    devices(hlo, [0, 1, 2, 3])
    hlo.xla_op_sharding.type = 3  # OTHER
    hlo.xla_op_sharding.tile_assignment_dimensions.extend([2, 1, 2])
    hlo.xla_op_sharding.replicate_on_last_tile_dim = True
    hlo.xla_op_sharding.iota_reshape_dims.append(4)
    hlo.xla_op_sharding.iota_transpose_perm.append(0)
    hlo.memory_kind = "device"

    # sharding_serdes.cc: shapes and shard shapes, memory kinds by name.
    concrete = new("ConcreteShardingProto")
    concrete.version_number = 0
    devices(concrete, [0, 1])
    concrete.shape.CopyFrom(shape([10, 20]))
    concrete.shard_shapes.append(shape([3, 20]))
    concrete.shard_shapes.append(shape([7, 20]))
    concrete.memory_kind = "abc"
    even = new("ConcreteEvenShardingProto")
    even.version_number = 0
    devices(even, [0, 1])
    even.shape.CopyFrom(shape([10, 20]))
    even.shard_shape.CopyFrom(shape([5, 20]))
    even.memory_kind = "pinned_host"
    even.is_fully_replicated = False
    opaque = new("OpaqueShardingProto")
    opaque.version_number = 0
    devices(opaque, [2, 3])

    # layout_serdes.cc, pjrt_layout_serdes.cc.
    compact = new("CompactLayoutProto")
    compact.version_number = 0
    compact.major_to_minor.extend([1, 0])
    pjrt = new("PjRtLayoutProto")
    pjrt.version_number = 0
    pjrt.xla_layout.minor_to_major.extend([1, 0])
    pjrt.xla_layout.tiles.add().dimensions.extend([8, 128])

    devices = new("DeviceListProto")
    devices.version_number = 0
    devices.device_ids.extend([3, 0, 2, 1])

    expected = {
        "hlo_sharding_v0.pb": envelope("xla::ifrt::HloSharding", hlo),
        "concrete_sharding_v0.pb": envelope("xla::ifrt::ConcreteSharding", concrete),
        "concrete_even_sharding_v0.pb": envelope("xla::ifrt::ConcreteEvenSharding", even),
        "opaque_sharding_v0.pb": envelope("xla::ifrt::OpaqueSharding", opaque),
        "compact_layout_v0.pb": envelope("xla::ifrt::CompactLayout", compact),
        "pjrt_layout_v0.pb": envelope("xla::ifrt::PjRtLayout", pjrt),
        "dtype_proto_v0.pb": dtype(16),  # BF16
        "shape_proto_v0.pb": shape([16, 128]),
        "device_list_proto_v0.pb": devices,
        "single_device_sharding_v0.pb": envelope("xla::ifrt::SingleDeviceSharding", single),
        "sharding_param_sharding_v0.pb": envelope(
            "xla::ifrt::ShardingParamSharding", param_sharding([])
        ),
        "sharding_param_sharding_v1.pb": envelope(
            "xla::ifrt::ShardingParamSharding", param_sharding([1])
        ),
        "array_spec_proto_v0.pb": array_spec([]),
        "array_spec_proto_v1.pb": array_spec([1]),
    }
    on_disk = sorted(p.name for p in GOLDEN.glob("*.pb") if p.name not in NOT_HERE)
    failed = sorted(set(on_disk) ^ set(expected))
    for name in failed:
        print(f"{name}: on disk or expected, not both")
    for name, message in sorted(expected.items()):
        path = GOLDEN / name
        if not path.exists():
            continue
        same = path.read_bytes() == message.SerializeToString()
        print(f"{name}: {'same bytes' if same else 'DIFFERENT'}")
        if not same:
            failed.append(name)
    print(f"schemas from jaxlib {version}; {len(expected) - len(failed)} of {len(expected)} agree")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
