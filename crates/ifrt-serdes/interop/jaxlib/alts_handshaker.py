"""A stand-in for Google's ALTS handshaker service (grpc.gcp.HandshakerService), on localhost.

Both ends of the measured connection use gRPC's ALTS credentials: the jaxlib client (its IFRT
Proxy client offers no other) and the fake proxy server (grpcio's alts_server_credentials). Each
end asks a handshaker service to run the handshake for it. This one plays a three-message
exchange with fixed tokens and then gives both ends the same fixed record-protocol key, so the
ALTS record layer encrypts and decrypts on both sides. It proves no identity and keeps no secret:
for tests on one machine only.

The exchange, as the two ends drive it:
  client: client_start        -> out_frames = HELLO_C
  server: server_start(HELLO_C) -> out_frames = HELLO_S
  client: next(HELLO_S)       -> out_frames = FINISH, plus the result (the handshake is done)
  server: next(FINISH ...)    -> the result; bytes after FINISH are already records, so only
                                  FINISH is reported consumed
gRPC reads the result only on a `next` step, and waits for the handshaker call to end after the
result: the stream is closed right after it.

usage: alts_handshaker.py PORT_FILE   (binds a free port on 127.0.0.1 and writes it to PORT_FILE;
       the protos of grpc_gcp/ compiled by grpcio-tools must be importable)
"""
import sys
from concurrent import futures

import grpc
from src.proto.grpc.gcp import handshaker_pb2 as pb

HELLO_C, HELLO_S, FINISH = b'stand-in-alts:hello-c', b'stand-in-alts:hello-s', b'stand-in-alts:finish'
# ALTSRP_GCM_AES128_REKEY takes 44 bytes of key material.
RECORD_KEY = bytes(range(44))


def handshake_result(peer, me):
    result = pb.HandshakerResult(application_protocol='grpc',
                                 record_protocol='ALTSRP_GCM_AES128_REKEY',
                                 key_data=RECORD_KEY, keep_channel_open=False)
    result.peer_identity.service_account = peer
    result.local_identity.service_account = me
    versions = result.peer_rpc_versions
    for bound in (versions.max_rpc_version, versions.min_rpc_version):
        bound.major, bound.minor = 2, 1
    return result


def serve_handshake(requests, context):
    role, pending, finished = None, b'', False
    for raw in requests:
        request = pb.HandshakerReq.FromString(raw)
        kind = request.WhichOneof('req_oneof')
        reply = pb.HandshakerResp()
        reply.status.SetInParent()  # gRPC checks for a status, code 0 = OK
        if kind == 'client_start':
            role = 'client'
            reply.out_frames = HELLO_C
        elif kind == 'server_start':
            role = 'server'
            got = request.server_start.in_bytes
            reply.bytes_consumed = len(got)
            if got.startswith(HELLO_C):
                reply.out_frames = HELLO_S
        elif kind == 'next' and not finished:
            fresh = request.next.in_bytes
            seen = pending + fresh
            awaited = HELLO_S if role == 'client' else FINISH
            if len(seen) < len(awaited):  # the peer's token came in pieces: keep them
                pending = seen
                reply.bytes_consumed = len(fresh)
            else:
                surplus = len(seen) - len(awaited)
                reply.bytes_consumed = len(fresh) - surplus
                if role == 'client':
                    reply.out_frames = FINISH
                    reply.result.CopyFrom(handshake_result('fake-server', 'fake-client'))
                else:
                    reply.result.CopyFrom(handshake_result('fake-client', 'fake-server'))
                finished = True
        print(f'{role}: {kind} -> sent {len(reply.out_frames)} bytes, consumed '
              f'{reply.bytes_consumed}, done={finished}', file=sys.stderr, flush=True)
        yield reply.SerializeToString()
        if finished:
            return


def main():
    port_file = sys.argv[1]
    raw = lambda b: b
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=8))
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(
        'grpc.gcp.HandshakerService',
        {'DoHandshake': grpc.stream_stream_rpc_method_handler(serve_handshake, raw, raw)}),))
    port = server.add_insecure_port('127.0.0.1:0')
    server.start()
    with open(port_file, 'w') as f:
        f.write(str(port))
    server.wait_for_termination()


if __name__ == '__main__':
    main()
