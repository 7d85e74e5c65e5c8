#!/usr/bin/env python3
# produce_cpu_bench.py: the CPU `lds-host serve` spends per MB that a librdkafka producer (kcat -P,
# its defaults: acks=all, no compression, batches of up to 1 MB) appends to one partition in records
# of 1 KiB over the Kafka listener; and the producer's throughput against `dd` writing the same
# bytes into the same log dir.
#
# Usage: produce_cpu_bench.py LDS_HOST PLUGIN_DIR [OUT_JSON]. The records (LDS_PRODUCE_CPU_BENCH_MIB,
# default 256 MiB) are written under $LDS_BENCH_DIR (default the temp folder), as kcat's input, the
# log and dd's copy, and removed afterwards. The broker's CPU is the sum over its threads of
# /proc/<pid>/task/*/schedstat, before and after kcat; dd's, its user plus system time, is the
# floor of any writer through the page cache. Prints one JSON object: bytes, records,
# broker_ms_per_mb, dd_ms_per_mb, produce_mb_s, dd_mb_s, ratio (produce throughput over dd's).
import os
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ left in tools/
import bench_broker  # noqa: E402 (after the line above)

RECORD_BYTES = 1024  # a record's value; kcat -l sends each line, without its newline, as one


def write_records(path, count):
    line = (b"r" * (RECORD_BYTES - 1)) + b"\n"
    block = line * 1024
    with open(path, "wb") as f:
        for _ in range(count // 1024):
            f.write(block)
        f.write(line * (count % 1024))


def main():
    host, plugins, out_file, mib, base = bench_broker.arguments("produce-cpu-bench", "LDS_PRODUCE_CPU_BENCH_MIB", 256)
    server = None
    try:
        d1 = os.path.join(base, "d1")
        server, sock, address = bench_broker.start_with_listener(host, base, plugins, [d1])
        bench_broker.call(sock, {"api": "CreatePartitions", "topic": "bench", "partitions": [0]})
        records = (mib << 20) // RECORD_BYTES
        size = records * (RECORD_BYTES - 1)  # the values; what dd writes too
        mb = size / 1e6
        source = os.path.join(base, "records.txt")
        write_records(source, records)

        # Both timed writes start with nothing of this benchmark's dirty in the page cache, so that
        # neither pays for writing back what came before it. Only its own files are synced: a bare
        # `sync` would flush, and stall, everything else the machine writes.
        subprocess.run(["sync", source], check=True)
        before = bench_broker.cpu_ns(server.pid)
        start = time.monotonic()
        kcat = subprocess.run(["kcat", "-P", "-b", address, "-t", "bench", "-p", "0", "-l", source],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
        produce_s = time.monotonic() - start
        broker_ms = (bench_broker.cpu_ns(server.pid) - before) / 1e6
        if kcat.returncode != 0:
            raise RuntimeError(f"kcat exited with code {kcat.returncode}: {kcat.stderr.decode()}")
        query = subprocess.run(["kcat", "-Q", "-b", address, "-t", "bench:0:-1"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
        log_end = query.stdout.decode().split()[-1] if query.returncode == 0 else "unknown"
        if log_end != str(records):
            raise RuntimeError(f"kcat sent {records} records; the log ends at offset {log_end}")

        copy = os.path.join(d1, "dd.copy")
        partition = os.path.join(d1, "bench-0")
        subprocess.run(["sync", *(os.path.join(partition, name) for name in os.listdir(partition))],
                       check=True)
        start = time.monotonic()
        dd = subprocess.Popen(["dd", "if=/dev/zero", f"of={copy}", "bs=1M", f"count={size >> 20}",
                               "status=none"])
        _, status, usage = os.wait4(dd.pid, 0)
        dd_s = time.monotonic() - start
        if os.waitstatus_to_exitcode(status) != 0:
            raise RuntimeError(f"dd exited with code {os.waitstatus_to_exitcode(status)}")
        dd_bytes = (size >> 20) << 20
        dd_ms = (usage.ru_utime + usage.ru_stime) * 1e3

        bench_broker.report({"bytes": size, "records": records, "broker_ms_per_mb": broker_ms / mb,
                             "dd_ms_per_mb": dd_ms / (dd_bytes / 1e6),
                             "produce_mb_s": mb / produce_s, "dd_mb_s": dd_bytes / 1e6 / dd_s,
                             "ratio": (mb / produce_s) / (dd_bytes / 1e6 / dd_s)}, out_file)
    finally:
        bench_broker.stop(server, base)


if __name__ == "__main__":
    main()
