# bench_broker.py: an `lds-host serve` for the Python benchmarks (move_bench.py,
# fetch_cpu_bench.py, produce_cpu_bench.py): started on a config they write, driven through its
# admin socket, filled with filler records, its CPU read.
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time


def arguments(name, mib_variable, default_mib):
    """What every benchmark's command line and environment give: (LDS_HOST, PLUGIN_DIR, the
    optional OUT_JSON, the MiB in `mib_variable` or `default_mib`, a new scratch folder under
    $LDS_BENCH_DIR or the temp folder, which stop() removes)."""
    host, plugins = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    out_file = sys.argv[3] if len(sys.argv) > 3 else None
    mib = int(os.environ.get(mib_variable, str(default_mib)))
    parent = os.environ.get("LDS_BENCH_DIR") or tempfile.gettempdir()
    return host, plugins, out_file, mib, tempfile.mkdtemp(prefix=f"lds-{name}-", dir=parent)


def call(sock_path, request):
    """One admin API call; its answer, or RuntimeError naming the API and the broker's error."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.connect(sock_path)
        s.sendall((json.dumps(request) + "\n").encode())
        data = b""
        while not data.endswith(b"\n"):
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    response = json.loads(data)
    if response.get("error") != "NONE":
        raise RuntimeError(f"{request['api']}: {response.get('error')}: {response.get('message')}")
    return response


def start(host, base, plugins, log_dirs, extra="", ready_api="DescribeLogDirs"):
    """`lds-host serve` on a config in `base` (admin socket base/admin.sock, then `extra` lines),
    once it answers `ready_api`; returns (process, admin socket, that answer). The caller stops
    it."""
    sock = os.path.join(base, "admin.sock")
    config = os.path.join(base, "broker.toml")
    dirs = ", ".join(f'"{d}"' for d in log_dirs)
    with open(config, "w") as f:
        f.write(f'broker.id = 0\nlog.dirs = [{dirs}]\nplugin.dir = "{plugins}"\n'
                f'admin.socket = "{sock}"\n{extra}')
    log = os.path.join(base, "serve.log")
    with open(log, "w") as out:
        server = subprocess.Popen([host, "serve", "--config", config],
                                  stdout=subprocess.DEVNULL, stderr=out)
    for _ in range(1000):
        if server.poll() is not None:
            with open(log) as f:
                said = f.read().strip().splitlines()
            raise RuntimeError(f"lds-host serve exited with code {server.returncode}: "
                               f"{said[-1] if said else 'it said nothing'}")
        try:
            return server, sock, call(sock, {"api": ready_api})
        except OSError:
            time.sleep(0.01)
    server.kill()
    server.wait()
    raise RuntimeError("lds-host serve did not answer on " + sock)


def start_with_listener(host, base, plugins, log_dirs):
    """start() with a Kafka listener on a free loopback port; (process, admin socket, host:port)."""
    server, sock, described = start(host, base, plugins, log_dirs,
                                    'listeners = "PLAINTEXT://127.0.0.1:0"\n')
    return server, sock, described["listeners"][len("PLAINTEXT://"):]


def fill(sock_path, topic, mib):
    """Creates partition 0 of `topic` and appends `mib` MiB of filler records to it, in batches of
    at most 64 KiB, 64 MiB a call."""
    call(sock_path, {"api": "CreatePartitions", "topic": topic, "partitions": [0]})
    left = mib << 20
    while left > 0:
        n = min(left, 64 << 20)
        call(sock_path, {"api": "Produce", "topic": topic, "partition": 0, "bytes": n})
        left -= n


def cpu_ns(pid):
    """Nanoseconds on a CPU, summed over the threads of `pid` (threads that ended are not counted;
    the broker's threads live as long as it does)."""
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/schedstat") as f:
                total += int(f.read().split()[0])
        except FileNotFoundError:
            pass
    return total


def stop(server, base):
    """Stops the broker, if it started, and removes its folder."""
    if server is not None:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
    shutil.rmtree(base, ignore_errors=True)


def report(result, out_file):
    """Prints the benchmark's figures as one JSON object, and writes them to `out_file` if given."""
    text = json.dumps(result)
    if out_file:
        with open(out_file, "w") as f:
            f.write(text + "\n")
    print(text)
