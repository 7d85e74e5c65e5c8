#!/usr/bin/env python3
# fetch_cpu_bench.py: the CPU `lds-host serve` spends per MB it serves to a Kafka consumer (kcat
# reading one partition from its start to its end over the Kafka listener), against the CPU of
# `cat` reading the same segment files to /dev/null.
#
# Usage: fetch_cpu_bench.py LDS_HOST PLUGIN_DIR [OUT_JSON]. The partition (LDS_FETCH_CPU_BENCH_MIB,
# default 512 MiB, in 64 KiB batches) is written under $LDS_BENCH_DIR (default the temp folder) and
# removed afterwards; both readers find it in the page cache. The broker's CPU is the sum over its
# threads of the time /proc/<pid>/task/*/schedstat counts on a CPU, before and after the consumer;
# cat's is its user plus system time. A third figure is the floor of any zero-copy sender on
# loopback: a bare process sending the same files over a loopback TCP connection with sendfile.
# Prints one JSON object: bytes, broker_ms_per_mb, cat_ms_per_mb, sendfile_ms_per_mb, ratio.
import os
import socket
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ left in tools/
import bench_broker  # noqa: E402 (after the line above)


SENDER = """
import os, socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
for path in sys.argv[2:]:
    with open(path, "rb") as f:
        size, sent = os.fstat(f.fileno()).st_size, 0
        while sent < size:
            sent += os.sendfile(s.fileno(), f.fileno(), sent, min(size - sent, 1 << 20))
s.close()
"""


def sendfile_floor_ms(segments):
    """CPU milliseconds of a bare process that sends the segments over a loopback TCP connection
    with sendfile, 1 MiB a call, to a reader that discards them: on loopback the kernel charges the
    receiving side's TCP processing to the sender, so this is what any zero-copy sender pays."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        sender = subprocess.Popen([sys.executable, "-c", SENDER, str(listener.getsockname()[1]),
                                   *segments])
        conn, _ = listener.accept()
        with conn:
            while conn.recv(1 << 20):
                pass
        _, status, usage = os.wait4(sender.pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            raise RuntimeError("the sendfile sender failed")
    # Less the interpreter's own start, timed alone.
    start = subprocess.Popen([sys.executable, "-c", "import os, socket, sys"])
    _, _, idle = os.wait4(start.pid, 0)
    return max(0.0, (usage.ru_utime + usage.ru_stime - idle.ru_utime - idle.ru_stime) * 1e3)


def main():
    host, plugins, out_file, mib, base = bench_broker.arguments("fetch-cpu-bench", "LDS_FETCH_CPU_BENCH_MIB", 512)
    server = None
    try:
        d1 = os.path.join(base, "d1")
        server, sock, address = bench_broker.start_with_listener(host, base, plugins, [d1])
        bench_broker.fill(sock, "bench", mib)
        size = mib << 20
        mb = size / 1e6

        segments = sorted(os.path.join(d1, "bench-0", name)
                          for name in os.listdir(os.path.join(d1, "bench-0"))
                          if name.endswith(".log"))
        with open(os.devnull, "wb") as null:
            cat = subprocess.Popen(["cat", *segments], stdout=null)
            _, status, usage = os.wait4(cat.pid, 0)
            cat.returncode = os.waitstatus_to_exitcode(status)
        if cat.returncode != 0:
            raise RuntimeError(f"cat exited with code {cat.returncode}")
        cat_ms = (usage.ru_utime + usage.ru_stime) * 1e3

        before = bench_broker.cpu_ns(server.pid)
        kcat = subprocess.run(["kcat", "-C", "-b", address, "-t", "bench", "-p", "0",
                               "-o", "beginning", "-e", "-q", "-f", "%o\n"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
        broker_ms = (bench_broker.cpu_ns(server.pid) - before) / 1e6
        if kcat.returncode != 0:
            raise RuntimeError(f"kcat exited with code {kcat.returncode}: {kcat.stderr.decode()}")
        offsets = kcat.stdout.split()
        query = subprocess.run(["kcat", "-Q", "-b", address, "-t", "bench:0:-1"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
        log_end = query.stdout.decode().split()[-1] if query.returncode == 0 else "unknown"
        if not offsets or int(offsets[-1]) + 1 != int(log_end):
            raise RuntimeError(f"kcat read {len(offsets)} records, the last at offset "
                               f"{offsets[-1].decode() if offsets else 'none'}; the log ends at "
                               f"{log_end}")

        floor_ms = sendfile_floor_ms(segments)
        result = {"bytes": size, "broker_ms_per_mb": broker_ms / mb, "cat_ms_per_mb": cat_ms / mb,
                  "sendfile_ms_per_mb": floor_ms / mb,
                  "ratio": broker_ms / cat_ms if cat_ms > 0 else None}
        bench_broker.report(result, out_file)
    finally:
        bench_broker.stop(server, base)


if __name__ == "__main__":
    main()
