#!/usr/bin/env python3
# move_bench.py: times an unthrottled replica move (KIP-113) of one partition by `lds-host serve`
# against `cp -r` plus `sync` of the same partition between the same two directories (the sync of
# the copied files and folders, as the move makes its copy durable; not of the whole machine).
#
# Usage: move_bench.py LDS_HOST PLUGIN_DIR [OUT_JSON]. The partition (LDS_MOVE_BENCH_MIB, default
# 2048 MiB) is written under $LDS_BENCH_DIR (default the temp folder) and removed afterwards. Prints
# one JSON object: bytes, move_seconds, copy_seconds, ratio.
import os
import shutil
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ left in tools/
import bench_broker  # noqa: E402 (after the line above)
from bench_broker import call


def moving(sock_path):
    describe = call(sock_path, {"api": "DescribeLogDirs"})
    return any(p["isFuture"] for d in describe["brokers"][0]["logDirs"] for p in d["partitions"])


def main():
    host, plugins, out_file, mib, base = bench_broker.arguments("move-bench", "LDS_MOVE_BENCH_MIB", 2048)
    server = None
    try:
        d1, d2 = os.path.join(base, "d1"), os.path.join(base, "d2")
        server, sock, _ = bench_broker.start(host, base, plugins, [d1, d2])
        bench_broker.fill(sock, "bench", mib)
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
        bench_broker.report(result, out_file)
    finally:
        bench_broker.stop(server, base)


if __name__ == "__main__":
    main()
