"""Cut the protobuf schemas a jaxlib release was built with out of its shared object.

protobuf's C++ code generator stores each .proto file's FileDescriptorProto, serialized, as a
byte array in the binary (it is how the runtime builds its descriptor pool). Such a message
starts with field 1, the file's name: byte 0x0A, the name's length, then the name, e.g.
"xla/python/ifrt_proxy/common/ifrt_service.proto". From each such start we step over the
message's top-level fields (all of them fields of FileDescriptorProto) until a byte that cannot
begin one, parse what we stepped over, and keep it if it parses, names itself, and declares
something. Every `xla/`, `tsl/` and `third_party/` file is kept: the IFRT Proxy schema and
everything it imports.

So each release's requests are decoded with exactly the schema that release's client encoded
them with, and whether a field exists in a release is read from the release itself: that is
how "IfrtProxyVersion has no ifrt_serdes_version_number" is told apart from "it has one, at 0".

usage: descriptors.py LIB.so OUT.FileDescriptorSet.pb   (needs the protobuf package)
prints one JSON object: the files found, and the fields of xla.ifrt.proxy.IfrtProxyVersion.
"""
import json
import re
import sys

from google.protobuf import descriptor_pb2

# FileDescriptorProto's fields by wire type: length-delimited (name, package, dependency,
# message_type, enum_type, service, extension, options, source_code_info, syntax,
# option_dependency) and varint (public_dependency, weak_dependency, edition).
LENGTH_DELIMITED = {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 15}
VARINT = {10, 11, 14}
MAX_FIELD_BYTES = 4 << 20

FILE_NAME = re.compile(rb'\x0a([\x05-\x7f])((?:xla|tsl|third_party)/[\w./-]+?\.proto)')


def varint(data, at):
    """(value, next offset), or None if the bytes at `at` are not a varint."""
    value = shift = 0
    while at < len(data) and shift < 64:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, at
        shift += 7
    return None


def message_end(data, start):
    """The offset just after the top-level fields that follow `start` and could belong to a
    FileDescriptorProto: the first byte that does not start one ends the message."""
    at = start
    while True:
        tag = varint(data, at)
        if tag is None:
            return at
        number, wire_type = tag[0] >> 3, tag[0] & 7
        if wire_type == 2 and number in LENGTH_DELIMITED:
            length = varint(data, tag[1])
            if length is None or length[0] > MAX_FIELD_BYTES or length[1] + length[0] > len(data):
                return at
            at = length[1] + length[0]
        elif wire_type == 0 and number in VARINT:
            value = varint(data, tag[1])
            if value is None:
                return at
            at = value[1]
        else:
            return at


def schemas_in(data):
    """Every embedded FileDescriptorProto of a wanted file, by file name (the longest one when
    a name occurs more than once)."""
    found = {}
    for match in FILE_NAME.finditer(data):
        name = match.group(2)
        if match.group(1)[0] != len(name):
            continue  # the length byte does not fit: a string that merely looks like a name
        end = message_end(data, match.start())
        if end <= match.end():
            continue  # only the name: a plain string, not a descriptor
        candidate = descriptor_pb2.FileDescriptorProto()
        try:
            candidate.ParseFromString(data[match.start():end])
        except Exception:  # noqa: BLE001 - any parse failure means "not a descriptor"
            continue
        if candidate.name != name.decode() or not (
                candidate.message_type or candidate.enum_type or candidate.service):
            continue
        previous = found.get(candidate.name)
        if previous is None or previous.ByteSize() < candidate.ByteSize():
            found[candidate.name] = candidate
    return found


def message_fields(files, full_name):
    """{field name: number} of message `full_name` (a top-level message), or None if no file
    declares it."""
    package, _, short = full_name.rpartition('.')
    for f in files.values():
        if f.package != package:
            continue
        for message in f.message_type:
            if message.name == short:
                return {field.name: field.number for field in message.field}
    return None


def main():
    library, out = sys.argv[1], sys.argv[2]
    with open(library, 'rb') as f:
        data = f.read()
    files = schemas_in(data)
    fds = descriptor_pb2.FileDescriptorSet()
    for name in sorted(files):
        fds.file.add().CopyFrom(files[name])
    with open(out, 'wb') as f:
        f.write(fds.SerializeToString())
    print(json.dumps({
        'files': sorted(files),
        'IfrtProxyVersion': message_fields(files, 'xla.ifrt.proxy.IfrtProxyVersion'),
    }))


if __name__ == '__main__':
    main()
