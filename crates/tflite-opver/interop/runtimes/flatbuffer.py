"""A FlatBuffer writer for hand-made TensorFlow Lite models, with no dependency.

Shared by `probe.py` (which `cargo xtask tflite-runtimes` runs inside each
runtime's venv, with this file beside it) and `crates/tflite-opver/interop/runtimes/specimens.py`.

It writes front to back: every table's vtable is written just before it, and every offset points
forward, to an object written later. Scalars are aligned to their size, tables and vectors to 4
bytes (8 when they hold 8-byte values), as FlatBuffers' verifier requires.
"""
import struct


class Table:
    """A table: {field id: (kind, value)}; kinds are struct formats, or "off" for an object."""

    def __init__(self, **fields):
        self.fields = {int(k[1:]): v for k, v in fields.items()}


class Vec:
    def __init__(self, kind, items):
        self.kind, self.items = kind, list(items)


class Str:
    def __init__(self, text):
        self.text = text


SIZES = {"b": 1, "B": 1, "?": 1, "h": 2, "H": 2, "i": 4, "I": 4, "f": 4, "q": 8, "Q": 8, "off": 4}


def serialize(root, identifier=b"TFL3"):
    buf = bytearray(8)
    buf[4:8] = identifier
    queue = [(0, root)]

    def align(n, extra=0):
        while (len(buf) + extra) % n:
            buf.append(0)

    def write(obj):
        if isinstance(obj, Str):
            align(4)
            at = len(buf)
            data = obj.text.encode()
            buf.extend(struct.pack("<I", len(data)) + data + b"\0")
            return at
        if isinstance(obj, (bytes, bytearray)):
            align(16, 4)
            at = len(buf)
            buf.extend(struct.pack("<I", len(obj)) + bytes(obj))
            return at
        if isinstance(obj, Vec):
            size = SIZES[obj.kind]
            align(max(4, size), 4)
            at = len(buf)
            buf.extend(struct.pack("<I", len(obj.items)))
            for item in obj.items:
                if obj.kind == "off":
                    queue.append((len(buf), item))
                    buf.extend(b"\0\0\0\0")
                else:
                    buf.extend(struct.pack("<" + obj.kind, item))
            return at
        # A table: fields laid out widest first, after the 4-byte offset to the vtable.
        fields = sorted(obj.fields.items(), key=lambda f: -SIZES[f[1][0]])
        slots = (max(obj.fields) + 1) if obj.fields else 0
        layout, size = {}, 4
        for fid, (kind, _) in fields:
            width = SIZES[kind]
            size = (size + width - 1) // width * width
            layout[fid] = size
            size += width
        size = (size + 3) // 4 * 4
        vtable = struct.pack("<HH", 4 + 2 * slots, size) + b"".join(
            struct.pack("<H", layout.get(fid, 0)) for fid in range(slots)
        )
        wide = any(SIZES[k] == 8 for k, _ in obj.fields.values())
        align(2)
        align(8 if wide else 4, len(vtable))
        vt = len(buf)
        buf.extend(vtable)
        at = len(buf)
        body = bytearray(size)
        struct.pack_into("<i", body, 0, at - vt)
        for fid, (kind, value) in obj.fields.items():
            if kind == "off":
                queue.append((at + layout[fid], value))
            else:
                struct.pack_into("<" + kind, body, layout[fid], value)
        buf.extend(body)
        return at

    while queue:
        slot, obj = queue.pop(0)
        at = write(obj)
        struct.pack_into("<I", buf, slot, at - slot)
    align(16)
    return bytes(buf)


# Two tables of the TensorFlow Lite schema (proto/tflite/schema.fbs) that both scripts build.


def tensor(type_, shape, buffer=0, name="t", variable=False, quantization=None, sparsity=None):
    fields = {"f0": ("off", Vec("i", shape)), "f1": ("b", type_), "f2": ("I", buffer),
              "f3": ("off", Str(name))}
    if variable:
        fields["f5"] = ("?", True)
    if quantization is not None:
        fields["f4"] = ("off", quantization)
    if sparsity is not None:
        fields["f6"] = ("off", sparsity)
    return Table(**fields)


def quantization(scales=None, zero_points=None, dimension=None):
    fields = {}
    if scales is not None:
        fields["f2"] = ("off", Vec("f", scales))
    if zero_points is not None:
        fields["f3"] = ("off", Vec("q", zero_points))
    if dimension is not None:
        fields["f6"] = ("i", dimension)
    return Table(**fields)
