"""Registers one PJRT plugin with the JAX of this interpreter and asks for its devices, as a
user does; prints one JSON line: the jaxlib version, the step that stopped (`register` or
`devices`), and `str()` of what was raised (empty when devices came back).

    python load_one.py PLUGIN.so [NAME]

Run in a process of its own (a plugin may crash it): `measure.py` does, with a timeout.
"""
import json
import sys


def main():
    path = sys.argv[1]
    name = sys.argv[2] if len(sys.argv) > 2 else "probe"
    import jax
    import jaxlib
    from jax._src import xla_bridge

    out = {"jaxlib": jaxlib.__version__, "step": None, "error": ""}
    try:
        out["step"] = "register"
        xla_bridge.register_plugin(name, library_path=path)
        out["step"] = "devices"
        devices = jax.devices(name)
        out["step"] = "done"
        out["devices"] = [str(d) for d in devices]
    except Exception as e:  # what a user sees, whatever its type
        out["error"] = str(e)
        out["exception"] = type(e).__name__
    print("PJRT-PROBE-RESULT " + json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
