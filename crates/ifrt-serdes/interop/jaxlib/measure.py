"""Measure jaxlib releases' IFRT Proxy clients: what each offers in GetVersion, and whether it
can compile at each IFRT SerDes version a server may choose.

For each release this script
  1. makes a venv with the release (jax==jaxlib==RELEASE from PyPI, with the given python),
     downloading the jaxlib wheel itself first so that its shared object can be read;
  2. cuts the protobuf schemas compiled into that shared object (descriptors.py): whether the
     release's IfrtProxyVersion has an `ifrt_serdes_version_number` field at all;
  3. runs the release's real client (client.py) against the fake server (proxy_server.py),
     first with the server accepting the client's newest versions, then once for every older
     IFRT SerDes version the client offers (--serdes-max N), and records, for each run, the
     version the server answered and which of the client's steps worked, with the error's exact
     words where one failed (jit fails on the client, before any Compile request is sent, when
     the program cannot be written at the negotiated version);
  4. writes the facts (one compact JSON object, sorted keys) to --out and deletes the venv and
     the wheel, unless --keep.
The gRPC transport is ALTS, as jaxlib's client insists: fake_gcp.c (preloaded into the client)
and alts_handshaker.py make it work on localhost. The server side runs in a venv of its own
(grpcio, protobuf, grpcio-tools, pinned), made once in the work folder.

usage: measure.py --work DIR --release RELEASE --out FACTS.json [--python EXE] [--keep]
       (--python: the interpreter of the release's venv, default python3.11; jaxlib 0.11 and
       later publish wheels for CPython 3.12 and later only). Needs a C compiler (cc) and PyPI.
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
SERVER_PINS = ['grpcio==1.68.1', 'protobuf==5.29.3', 'grpcio-tools==1.68.1']
SERVER_PYTHON = 'python3.11'
# What the fake server answers a Compile request with: seeing it means the program was sent.
COMPILE_ANSWER = 'fake server: compile not implemented'
SHARED_OBJECTS = ('jaxlib/libjax_common.so', 'jaxlib/xla_extension.so')


def log(text):
    print(f'[measure] {text}', file=sys.stderr, flush=True)


def run(command, **kwargs):
    log(' '.join(str(c) for c in command))
    subprocess.run([str(c) for c in command], check=True, **kwargs)


def nice(command):
    return ['nice', '-n', '10', *command]


def server_venv(work):
    """The venv the fake server and handshaker run in; made once."""
    venv = work / 'server-venv'
    python = venv / 'bin' / 'python'
    if not (venv / 'ready').exists():
        run(nice([SERVER_PYTHON, '-m', 'venv', '--clear', venv]))
        run(nice([python, '-m', 'pip', 'install', '--quiet', '--disable-pip-version-check',
                  *SERVER_PINS]))
        (venv / 'ready').write_text(' '.join(SERVER_PINS))
    return python


def handshaker_protos(work, server_python):
    out = work / 'grpc_gcp_py'
    if not (out / 'src' / 'proto' / 'grpc' / 'gcp' / 'handshaker_pb2.py').exists():
        out.mkdir(parents=True, exist_ok=True)
        protos = HERE / 'grpc_gcp'
        run([server_python, '-m', 'grpc_tools.protoc', f'-I{protos}', f'--python_out={out}',
             *sorted((protos / 'src' / 'proto' / 'grpc' / 'gcp').glob('*.proto'))])
    return out


def shim(work):
    out = work / 'fake_gcp.so'
    if not out.exists():
        run(['cc', '-shared', '-fPIC', '-O2', '-o', out, HERE / 'fake_gcp.c', '-ldl'])
    return out


def wait_for_port(port_file, process, what):
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f'{what} exited ({process.returncode}) before listening')
        try:
            return int(port_file.read_text())
        except (OSError, ValueError):
            time.sleep(0.1)
    raise RuntimeError(f'{what} did not listen within 30 s')


def stop(process):
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def client_venv(work, release, python):
    """A venv with jax==jaxlib==release; returns (its python, the jaxlib wheel)."""
    venv = work / f'client-{release}'
    wheels = work / f'wheels-{release}'
    if (venv / 'ready').exists():  # kept by an earlier --keep run
        return venv / 'bin' / 'python', next(wheels.glob('jaxlib-*.whl'))
    shutil.rmtree(venv, ignore_errors=True)
    shutil.rmtree(wheels, ignore_errors=True)
    run(nice([python, '-m', 'venv', venv]))
    pip = [venv / 'bin' / 'python', '-m', 'pip', '--disable-pip-version-check']
    run(nice([*pip, 'download', '--quiet', '--no-deps', '--only-binary=:all:', '--no-cache-dir',
              '-d', wheels, f'jaxlib=={release}']))
    run(nice([*pip, 'install', '--quiet', '--find-links', wheels, f'jaxlib=={release}',
              f'jax=={release}']))
    (wheel,) = wheels.glob('jaxlib-*.whl')
    (venv / 'ready').write_text(release)
    return venv / 'bin' / 'python', wheel


def cut_schemas(work, release, wheel, server_python):
    """The shared object's name in the wheel, its schemas (a FileDescriptorSet file) and the
    fields of its IfrtProxyVersion."""
    with zipfile.ZipFile(wheel) as archive:
        names = [n for n in SHARED_OBJECTS if n in archive.namelist()]
        if not names:
            raise RuntimeError(f'{wheel.name} has none of {SHARED_OBJECTS}')
        library = work / f'{release}.so'
        with archive.open(names[0]) as src, open(library, 'wb') as dst:
            shutil.copyfileobj(src, dst)
    schema = work / f'jaxlib-{release}.FileDescriptorSet.pb'
    found = subprocess.run([server_python, HERE / 'descriptors.py', library, schema],
                           check=True, capture_output=True, text=True)
    library.unlink()
    return names[0], schema, json.loads(found.stdout)


def one_run(work, release, client_python, server_python, schema, handshaker_port, shim_so,
            serdes_max):
    """Runs the client once against a server capped at `serdes_max` (None: no cap)."""
    scratch = Path(tempfile.mkdtemp(prefix=f'run-{release}-', dir=work))
    port_file, record_file = scratch / 'port', scratch / 'record.json'
    command = [server_python, HERE / 'proxy_server.py', '--schema', schema,
               '--record', record_file, '--port-file', port_file]
    if serdes_max is not None:
        command += ['--serdes-max', str(serdes_max)]
    # Both ends use ALTS credentials, so both need the stand-in cloud VM.
    env = dict(os.environ, LD_PRELOAD=str(shim_so), GRPC_DNS_RESOLVER='native',
               FAKE_HANDSHAKER_PORT=str(handshaker_port), JAX_PLATFORMS='',
               TF_CPP_MIN_LOG_LEVEL='2')
    server_log = open(scratch / 'server.log', 'w')
    server = subprocess.Popen([str(c) for c in command], stdout=server_log, stderr=server_log,
                              env=env, start_new_session=True)
    try:
        port = wait_for_port(port_file, server, 'the fake server')
        started = time.monotonic()
        try:
            done = subprocess.run([str(client_python), str(HERE / 'client.py'),
                                   f'grpc://127.0.0.1:{port}'], env=env, capture_output=True,
                                  text=True, timeout=150)
            out, err, code = done.stdout, done.stderr, done.returncode
        except subprocess.TimeoutExpired as expired:
            out = (expired.stdout or b'').decode(errors='replace') if isinstance(
                expired.stdout, bytes) else (expired.stdout or '')
            err, code = 'killed after 150 s', None
        seconds = round(time.monotonic() - started, 1)
    finally:
        stop(server)
        server_log.close()
    steps = {}
    for line in out.splitlines():
        if line.startswith('{'):
            try:
                item = json.loads(line)
            except ValueError:
                continue
            steps[item.pop('step')] = item
    record = json.loads(record_file.read_text()) if record_file.exists() else {}
    (scratch / 'client.log').write_text(out + '\n--- stderr ---\n' + err)
    log(f'{release} serdes-max {serdes_max}: exit {code} in {seconds} s, steps '
        + ', '.join(f'{k}={"ok" if v.get("ok") else v.get("error", "?")[:80]}'
                    for k, v in steps.items()))
    return {'steps': steps, 'record': record, 'exit': code, 'seconds': seconds,
            'stderr_tail': err[-2000:] if code not in (0,) else '', 'scratch': scratch}


def verdict(steps, name):
    """'ok', the step's error text, or None when the run never got to the step."""
    step = steps.get(name)
    if step is None:
        return None
    return 'ok' if step.get('ok') else step.get('error', '')


def summarize_run(result):
    steps, record = result['steps'], result['record']
    answered = record.get('get_version', {}).get('answered', {})
    sent = 'compile_request' in record.get('session', [])
    jit = verdict(steps, 'jit')
    if sent and jit == COMPILE_ANSWER.join(['UNIMPLEMENTED: ', '']):
        jit = 'ok'  # the program reached the server, which refuses every compile
    stopped = None
    if 'done' not in steps:
        last = next((s for s in ('timeout', 'failed') if s in steps), None)
        stopped = (steps[last].get('error') if last == 'failed' else
                   'the client did not finish within 75 s') if last else (
            f'the client exited {result["exit"]}: {result["stderr_tail"][-400:]}')
    return {
        'answered_protocol': answered.get('protocol_version'),
        'answered_serdes': answered.get('ifrt_serdes_version_number'),
        'session_version': record.get('session_version'),
        'requests': sorted(set(k for k in record.get('session', []) if k)),
        'get_client': verdict(steps, 'get_client'),
        'device_put': verdict(steps, 'device_put'),
        'device_put_sharded': verdict(steps, 'device_put_sharded'),
        'jit': jit,
        'program_sent': sent,
        'stopped': stopped,
    }


def measure(args):
    work = Path(args.work).resolve()
    work.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    server_python = server_venv(work)
    gen = handshaker_protos(work, server_python)
    shim_so = shim(work)
    hs_port_file = work / f'handshaker-{os.getpid()}.port'
    hs_port_file.unlink(missing_ok=True)
    hs_log = open(work / 'handshaker.log', 'a')
    handshaker = subprocess.Popen([str(server_python), str(HERE / 'alts_handshaker.py'),
                                   str(hs_port_file)], env=dict(os.environ, PYTHONPATH=str(gen)),
                                  stdout=hs_log, stderr=hs_log, start_new_session=True)
    venv = None
    try:
        hs_port = wait_for_port(hs_port_file, handshaker, 'the ALTS handshaker')
        client_python, wheel = client_venv(work, args.release, args.python)
        venv = client_python.parent.parent
        python_version = subprocess.run(
            [client_python, '-c', 'import sys; print("%d.%d" % sys.version_info[:2])'],
            check=True, capture_output=True, text=True).stdout.strip()
        library, schema, found = cut_schemas(work, args.release, wheel, server_python)
        fields = found['IfrtProxyVersion']
        if fields is None:
            raise RuntimeError(f'{library} declares no xla.ifrt.proxy.IfrtProxyVersion')
        has_serdes = 'ifrt_serdes_version_number' in fields
        runs = []
        first = one_run(work, args.release, client_python, server_python, schema, hs_port,
                        shim_so, None)
        offered = first['record'].get('get_version')
        if offered is None:
            raise RuntimeError(f'jaxlib {args.release} sent no GetVersion request: '
                               f'{first["stderr_tail"][-1500:]}')
        runs.append(summarize_run(first))
        serdes = None
        if has_serdes:
            serdes = [offered['min']['ifrt_serdes_version_number'],
                      offered['max']['ifrt_serdes_version_number']]
            for n in range(serdes[1] - 1, serdes[0] - 1, -1):
                runs.append(summarize_run(one_run(work, args.release, client_python,
                                                  server_python, schema, hs_port, shim_so, n)))
        facts = {
            'jaxlib': args.release,
            'python': python_version,
            'wheel': wheel.name,
            'shared_object': library,
            'ifrt_proxy_version_fields': fields,
            'get_version_request_hex': offered['request_hex'],
            'proxy_protocol': [offered['min']['protocol_version'],
                               offered['max']['protocol_version']],
            'serdes': serdes,
            'serdes_on_wire': ('ifrt_serdes_version_number' in offered['max_on_wire']
                               if has_serdes else None),
            'runs': runs,
        }
    finally:
        stop(handshaker)
        hs_log.close()
        hs_port_file.unlink(missing_ok=True)
        if not args.keep:
            if venv is not None:
                shutil.rmtree(venv, ignore_errors=True)
            shutil.rmtree(work / f'wheels-{args.release}', ignore_errors=True)
    Path(args.out).write_text(json.dumps(facts, sort_keys=True, separators=(',', ':')) + '\n')
    log(f'jaxlib {args.release}: protocol {facts["proxy_protocol"]}, serdes {serdes}, '
        f'{len(runs)} runs, {round(time.monotonic() - started)} s')


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--work', required=True, help='scratch folder (venvs, wheels, logs)')
    parser.add_argument('--release', required=True, help='the jaxlib release, e.g. 0.10.2')
    parser.add_argument('--out', required=True, help='where the facts go (JSON)')
    parser.add_argument('--python', default='python3.11',
                        help="the interpreter of the release's venv (default python3.11)")
    parser.add_argument('--keep', action='store_true', help='keep the venv and the wheel')
    measure(parser.parse_args())


if __name__ == '__main__':
    main()
