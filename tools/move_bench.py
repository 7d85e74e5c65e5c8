#!/usr/bin/env python3
# move_bench.py: times an unthrottled replica move (KIP-113) of one partition by `lds-host serve`
# against `cp -r` plus `sync` of the same partition between the same two directories (the sync of
# the copied files and folders, as the move makes its copy durable; not of the whole machine).
#
# Usage: move_bench.py LDS_HOST PLUGIN_DIR [OUT_JSON]. The partition (LDS_MOVE_BENCH_MIB, default
# 2048 MiB) is written under $LDS_BENCH_DIR (default the temp folder) and removed afterwards. Prints
# one JSON object: bytes, move_seconds, copy_seconds, ratio.
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time


def call(sock_path, request):
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


def moving(sock_path):
    describe = call(sock_path, {"api": "DescribeLogDirs"})
    return any(p["isFuture"] for d in describe["brokers"][0]["logDirs"] for p in d["partitions"])


def main():
    host, plugins = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    out_file = sys.argv[3] if len(sys.argv) > 3 else None
    mib = int(os.environ.get("LDS_MOVE_BENCH_MIB", "2048"))
    parent = os.environ.get("LDS_BENCH_DIR") or tempfile.gettempdir()
    base = tempfile.mkdtemp(prefix="lds-move-bench-", dir=parent)
    server = None
    try:
        d1, d2 = os.path.join(base, "d1"), os.path.join(base, "d2")
        sock = os.path.join(base, "admin.sock")
        config = os.path.join(base, "broker.toml")
        with open(config, "w") as f:
            f.write(f'broker.id = 0\nlog.dirs = ["{d1}", "{d2}"]\nplugin.dir = "{plugins}"\n'
                    f'admin.socket = "{sock}"\n')
        server = subprocess.Popen([host, "serve", "--config", config],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(1000):
            if server.poll() is not None:
                raise RuntimeError(f"lds-host serve exited with code {server.returncode}")
            try:
                call(sock, {"api": "DescribeLogDirs"})
                break
            except OSError:
                time.sleep(0.01)
        call(sock, {"api": "CreatePartitions", "topic": "bench", "partitions": [0]})
        left = mib << 20
        while left > 0:
            n = min(left, 64 << 20)
            call(sock, {"api": "Produce", "topic": "bench", "partition": 0, "bytes": n})
            left -= n
        size = mib << 20
        src = os.path.join(d1, "bench-0")

        # `sync FILE...` fsyncs just those files and folders, as the move does with its copy; a bare
        # `sync` would also flush whatever else the machine has dirty.
        subprocess.run(["sync"], check=True)
        start = time.monotonic()
        copy = os.path.join(d2, "copy")
        subprocess.run(["cp", "-r", src, copy], check=True)
        files = [os.path.join(copy, name) for name in sorted(os.listdir(copy))]
        subprocess.run(["sync", *files, copy, d2], check=True)
        copy_seconds = time.monotonic() - start
        shutil.rmtree(os.path.join(d2, "copy"))

        subprocess.run(["sync"], check=True)
        start = time.monotonic()
        call(sock, {"api": "AlterReplicaLogDirs",
                    "dirs": [{"path": d2, "partitions": [{"topic": "bench", "partition": 0}]}]})
        while moving(sock):
            time.sleep(0.005)
        move_seconds = time.monotonic() - start
        if not os.path.isdir(os.path.join(d2, "bench-0")):
            raise RuntimeError("the partition did not arrive in " + d2)

        result = {"bytes": size, "move_seconds": move_seconds, "copy_seconds": copy_seconds,
                  "ratio": move_seconds / copy_seconds}
        text = json.dumps(result)
        if out_file:
            with open(out_file, "w") as f:
                f.write(text + "\n")
        print(text)
    finally:
        if server is not None:
            server.send_signal(signal.SIGTERM)
            server.wait(timeout=30)
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
