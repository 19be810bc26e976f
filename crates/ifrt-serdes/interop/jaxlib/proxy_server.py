"""A fake IFRT Proxy server (xla.ifrt.proxy.GrpcIfrtService) that a real jaxlib client talks to.

It decodes and encodes with the schema the client's own release was built with (the
FileDescriptorSet descriptors.py cut out of its shared object), so one server serves every
release. It answers just enough for jax to run: GetVersion, Init (four CPU devices), the array
requests (it echoes the handles the client picked), the host-buffer uploads; a Compile request
is recorded and answered UNIMPLEMENTED, because arriving is all there is to know about it: the
client wrote its program at the negotiated IFRT SerDes version.

What it writes to --record (JSON) is what the measurement needs:
  get_version: the request as sent (hex), its min/max as decoded, which IfrtProxyVersion fields
               were on the wire, and the version the server answered;
  session:     the kinds of request that came, in order (compile_request means a program came).

usage: proxy_server.py --schema DESC.pb --record OUT.json --port-file FILE
                       [--serdes-max N] [--protocol-max N]
  --serdes-max / --protocol-max: the newest IFRT SerDes / proxy protocol version this server
  pretends to support; it answers min(client's max, this). It binds a free port on 127.0.0.1
  (ALTS credentials, see alts_handshaker.py) and writes the port to FILE.
"""
import argparse
import json
import signal
import sys
import threading
from concurrent import futures

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.protobuf import (any_pb2, duration_pb2, empty_pb2, struct_pb2, timestamp_pb2,
                             wrappers_pb2)

PROXY = 'xla.ifrt.proxy.'
SESSION_METADATA = 'ifrt-proxy-grpc-ifrt-session-metadata-bin'


class ReleaseSchema:
    """The messages of one release's FileDescriptorSet, in a pool of their own."""

    def __init__(self, path):
        fds = descriptor_pb2.FileDescriptorSet()
        with open(path, 'rb') as f:
            fds.ParseFromString(f.read())
        self.pool = descriptor_pool.DescriptorPool()
        added = set()
        # The well-known types a release's schema may import; protobuf ships them.
        for module in (any_pb2, duration_pb2, empty_pb2, struct_pb2, timestamp_pb2,
                       wrappers_pb2, descriptor_pb2):
            proto = descriptor_pb2.FileDescriptorProto()
            module.DESCRIPTOR.CopyToProto(proto)
            self.pool.Add(proto)
            added.add(proto.name)
        by_name = {f.name: f for f in fds.file}

        def add(name):
            if name in added:
                return True
            proto = by_name.get(name)
            if proto is None or not all(add(dep) for dep in proto.dependency):
                return False  # an import the binary did not carry: skip this file
            self.pool.Add(proto)
            added.add(name)
            return True

        for name in sorted(by_name):
            add(name)

    def message(self, full_name):
        return message_factory.GetMessageClass(self.pool.FindMessageTypeByName(full_name))()

    def field_names(self, full_name):
        return {f.name for f in self.pool.FindMessageTypeByName(full_name).fields}


class Record:
    def __init__(self, path):
        self.path, self.data, self.lock = path, {'session': []}, threading.Lock()

    def set(self, key, value):
        with self.lock:
            self.data[key] = value
            self._write()

    def append(self, item):
        with self.lock:
            self.data['session'].append(item)
            self._write()

    def _write(self):
        with open(self.path, 'w') as f:
            json.dump(self.data, f, indent=1)


def version_fields(version):
    """The fields of an IfrtProxyVersion as decoded ({name: value}, defaults included) and the
    names of those present on the wire."""
    values = {f.name: getattr(version, f.name) for f in version.DESCRIPTOR.fields}
    on_wire = sorted(f.name for f, _ in version.ListFields())
    return values, on_wire


def fill_init_response(schema, init):
    """Four CPU devices, each with its own memory, in whatever fields this release has."""
    init.session_id = 1
    init.platform_name = 'cpu'
    init.platform_version = 'fake ifrt proxy server'
    init.platform_id = 0x0ce0bd49b3ee3fcc  # any id: jax only compares it with itself
    init.process_index = 0
    init.runtime_type = 'pjrt_ifrt'
    init_fields = schema.field_names(PROXY + 'InitResponse')
    device_fields = schema.field_names(PROXY + 'InitResponse.Device')
    # The list of every device is `all_devices` since jaxlib 0.4.35, `devices` before.
    devices = init.all_devices if 'all_devices' in init_fields else init.devices
    for i in range(4):
        device = devices.add()
        device.id = i
        device.device_kind = 'cpu'
        device.debug_string = f'TFRT_CPU_{i}'
        device.to_string = f'CpuDevice(id={i})'
        for name in ('local_hardware_id', 'local_device_id'):
            if name in device_fields:
                setattr(device, name, i)
        if 'platform_name' in device_fields:
            device.platform_name = 'cpu'
        if 'default_memory_id' in device_fields:
            device.default_memory_id = i
            device.memory_ids.append(i)
        init.addressable_device_ids.append(i)
        if 'primary_device_ids' in init_fields:
            init.primary_device_ids.append(i)
        if 'memories' in init_fields:
            memory = init.memories.add()
            memory.id = i
            memory.memory_space_kind = 'device'
            memory.device_ids.append(i)
            if 'kind_id' in schema.field_names(PROXY + 'InitResponse.Memory'):
                memory.kind_id = 0
            memory.debug_string = memory.to_string = f'MEMORY_SPACE_{i}'


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--schema', required=True)
    parser.add_argument('--record', required=True)
    parser.add_argument('--port-file', required=True)
    parser.add_argument('--serdes-max', type=int)
    parser.add_argument('--protocol-max', type=int)
    args = parser.parse_args()
    schema = ReleaseSchema(args.schema)
    record = Record(args.record)
    has_serdes = 'ifrt_serdes_version_number' in schema.field_names(PROXY + 'IfrtProxyVersion')
    next_handle = iter(range(5000, 1 << 40))

    def get_version(raw, context):
        request = schema.message(PROXY + 'GrpcGetVersionRequest')
        request.ParseFromString(raw)
        low, low_on_wire = version_fields(request.min_version)
        high, high_on_wire = version_fields(request.max_version)
        reply = schema.message(PROXY + 'GrpcGetVersionResponse')
        protocol = high['protocol_version']
        if args.protocol_max is not None:
            protocol = min(protocol, args.protocol_max)
        reply.version.protocol_version = protocol
        if has_serdes:
            serdes = high['ifrt_serdes_version_number']
            if args.serdes_max is not None:
                serdes = min(serdes, args.serdes_max)
            reply.version.ifrt_serdes_version_number = serdes
        record.set('get_version', {
            'request_hex': raw.hex(),
            'min': low, 'min_on_wire': low_on_wire,
            'max': high, 'max_on_wire': high_on_wire,
            'answered': version_fields(reply.version)[0],
        })
        return reply.SerializeToString()

    response_fields = schema.field_names(PROXY + 'IfrtResponse')

    def answer(request):
        kind = request.WhichOneof('request')
        response = schema.message(PROXY + 'IfrtResponse')
        response.response_metadata.op_id = request.request_metadata.op_id
        if kind == 'init_request':
            fill_init_response(schema, response.init_response)
        elif kind == 'compile_request':
            response.response_metadata.status.code = 12  # UNIMPLEMENTED
            response.response_metadata.status.message = 'fake server: compile not implemented'
        elif kind and kind.replace('_request', '_response') in response_fields:
            # The generic answer: an empty response of the right kind, with the handles the
            # client chose for its results (or fresh ones where it chose none).
            body = getattr(response, kind.replace('_request', '_response'))
            body.SetInParent()
            asked = getattr(request, kind)
            asked_fields = {f.name: f for f in asked.DESCRIPTOR.fields}
            repeated = lambda f: f.label == f.LABEL_REPEATED

            def single(name):
                f = asked_fields.get(name)
                return getattr(asked, name) if f is not None and not repeated(f) else 0

            def many(name):
                f = asked_fields.get(name)
                return list(getattr(asked, name)) if f is not None and repeated(f) else []

            body_fields = {f.name for f in body.DESCRIPTOR.fields}
            if 'array_handle' in body_fields:
                body.array_handle = (single('result_handle') or single('array_handle')
                                     or next(next_handle))
            if 'array_handles' in body_fields:
                body.array_handles.extend(many('result_handles') or many('array_handles')
                                          or [next(next_handle) for _ in range(4)])
            for name in ('deletion_future_handle', 'future_handle', 'ready_future_handle',
                         'status_handle'):
                if name in body_fields:
                    setattr(body, name, next(next_handle))
        return kind, response

    def session(requests, context):
        # Older clients (jaxlib 0.4.31) wait for the server's initial metadata before they send
        # their first request; grpcio would send it only with the first response.
        context.send_initial_metadata(())
        for key, value in context.invocation_metadata():
            if key == SESSION_METADATA:
                metadata = schema.message(PROXY + 'GrpcIfrtSessionMetadata')
                metadata.ParseFromString(value)
                record.set('session_version', version_fields(metadata.version)[0])
        for raw in requests:
            request = schema.message(PROXY + 'IfrtRequest')
            request.ParseFromString(raw)
            record.append(request.WhichOneof('request'))
            try:
                _, response = answer(request)
            except Exception as error:  # a schema this server does not know how to answer
                print(f'cannot answer {request.WhichOneof("request")}: {error!r}',
                      file=sys.stderr, flush=True)
                raise
            yield response.SerializeToString()

    def host_buffer_store(chunks, context):
        for _ in chunks:
            pass
        return schema.message(PROXY + 'GrpcHostBufferStoreResponse').SerializeToString()

    def host_buffer_delete(raw, context):
        return schema.message(PROXY + 'GrpcHostBufferDeleteResponse').SerializeToString()

    same = lambda b: b
    handlers = {
        'GetVersion': grpc.unary_unary_rpc_method_handler(get_version, same, same),
        'IfrtSession': grpc.stream_stream_rpc_method_handler(session, same, same),
        'HostBufferStore': grpc.stream_unary_rpc_method_handler(host_buffer_store, same, same),
        'HostBufferDelete': grpc.unary_unary_rpc_method_handler(host_buffer_delete, same, same),
    }
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8),
                         options=[('grpc.max_receive_message_length', 1 << 30)])
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler(PROXY + 'GrpcIfrtService', handlers),))
    port = server.add_secure_port('127.0.0.1:0', grpc.alts_server_credentials())
    server.start()
    with open(args.port_file, 'w') as f:
        f.write(str(port))
    signal.signal(signal.SIGTERM, lambda *_: (server.stop(0), sys.exit(0)))
    server.wait_for_termination()


if __name__ == '__main__':
    main()
