"""Run one jaxlib release's real IFRT Proxy client against the fake server, as jax would.

Runs inside the release's own venv (jax==jaxlib==RELEASE). It makes the client with jaxlib's
ifrt_proxy.get_client (which sends GetVersion, then opens the session and sends Init), makes it
jax's only backend, puts an array on one device and one sharded over two, and jit-compiles a
function, which makes the client serialize the program (an `xla::ifrt::XlaProgram` envelope at
the negotiated IFRT SerDes version) and send a Compile request. Each step prints one JSON line:
{"step": ..., "ok": true} or {"step": ..., "ok": false, "error": "..."}.

usage: client.py ADDRESS   (e.g. grpc://127.0.0.1:PORT; run with fake_gcp.so preloaded)
"""
import json
import os
import sys
import threading

import numpy as np


def say(step, **facts):
    print(json.dumps({'step': step, **facts}), flush=True)


def proxy_module():
    """jaxlib's ifrt_proxy bindings, wherever this release keeps them."""
    try:
        from jaxlib import _ifrt_proxy  # newer releases: a module of its own
        return _ifrt_proxy
    except ImportError:
        pass
    try:
        from jaxlib import _jax  # then: inside jaxlib._jax
        return _jax.ifrt_proxy
    except (ImportError, AttributeError):
        pass
    from jaxlib import xla_extension  # up to 0.5.x: inside xla_extension
    return xla_extension.ifrt_proxy


def attempt(step, action):
    try:
        action()
    except Exception as error:  # noqa: BLE001 - the error's text is the measurement
        text = str(error) or repr(error)
        say(step, ok=False, error_type=type(error).__name__, error=text[:1000])
    else:
        say(step, ok=True)


def main():
    address = sys.argv[1]
    import jax
    import jaxlib
    from jax._src import xla_bridge
    from jax.sharding import Mesh, NamedSharding, PartitionSpec

    say('import', jax=jax.__version__, jaxlib=jaxlib.__version__)
    proxy = proxy_module()
    options = proxy.ClientConnectionOptions()
    if hasattr(options, 'connection_timeout_in_seconds'):
        options.connection_timeout_in_seconds = 20
    client = proxy.get_client(address, options)
    say('get_client', ok=True, platform_version=client.platform_version)
    xla_bridge.register_backend_factory('proxy', lambda: client, priority=1000)
    jax.config.update('jax_platforms', 'proxy')
    devices = jax.devices()
    say('devices', ok=True, count=len(devices))

    values = np.arange(8, dtype=np.float32).reshape(2, 4)
    attempt('device_put', lambda: jax.device_put(values, devices[0]))
    mesh = Mesh(np.array(devices[:2]), ('x',))
    attempt('device_put_sharded',
            lambda: jax.device_put(values, NamedSharding(mesh, PartitionSpec('x'))))
    program = jax.jit(lambda a: a * 2 + 1)
    attempt('jit', lambda: program.lower(jax.ShapeDtypeStruct((2, 4), np.float32)).compile())
    say('done')


if __name__ == '__main__':
    # A client that never gets past Init (some releases loop on it) must not hang the sweep.
    threading.Timer(75, lambda: (say('timeout'), os._exit(3))).start()
    try:
        main()
    except Exception as error:  # noqa: BLE001
        say('failed', error_type=type(error).__name__, error=(str(error) or repr(error))[:1000])
        os._exit(1)
    os._exit(0)  # no atexit handlers: they would wait on the fake server
