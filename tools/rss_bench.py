# rss_bench.py: the broker's resident memory at many partitions, created live, after a restart, and
# after a DescribeLogDirs of them all, each against the live figure of the same run.
#
# An `lds-host serve` on 4 log dirs creates LDS_RSS_PARTITIONS partitions (default 50,000; topics
# of 1,000) through its admin socket, each with one small filler batch, and VmRSS is read once the
# creations are done. It is then stopped cleanly and started again on the same dirs (VmRSS once it
# answers), and asked for DescribeLogDirs (VmRSS after the answer). Each figure is read a moment
# after the call, as the broker sits idle.
#
# Usage: rss_bench.py <lds-host> <plugin dir> [out.json]. The dirs go under $LDS_BENCH_DIR, else the
# system temp folder, and are removed afterwards. Prints one JSON object.
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_broker  # noqa: E402

PER_TOPIC = 1000


def rss_bytes(pid):
    """VmRSS of `pid`, in bytes."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS in /proc/{pid}/status")


def settled_rss(pid):
    """VmRSS once the broker has been idle a moment: its threads done with the last call."""
    time.sleep(0.5)
    return rss_bytes(pid)


def main():
    host, plugins, out_file, _, base = bench_broker.arguments("rss", "LDS_RSS_UNUSED", 0)
    partitions = int(os.environ.get("LDS_RSS_PARTITIONS", "50000"))
    dirs = [os.path.join(base, f"d{i}") for i in range(4)]
    server = None
    try:
        server, sock, _ = bench_broker.start(host, base, plugins, dirs, ready_api="DescribeConfigs")
        started = time.monotonic()
        for first in range(0, partitions, PER_TOPIC):
            topic = f"t{first // PER_TOPIC:05d}"
            ids = list(range(min(PER_TOPIC, partitions - first)))
            bench_broker.call(sock, {"api": "CreatePartitions", "topic": topic, "partitions": ids})
            for p in ids:
                bench_broker.call(sock, {"api": "Produce", "topic": topic, "partition": p,
                                         "bytes": 200})
        created_s = time.monotonic() - started
        live = settled_rss(server.pid)
        server.terminate()  # SIGTERM: a clean shutdown, so the restart is a clean one
        server.wait(timeout=60)
        server = None
        # Asked for its configs: a DescribeLogDirs would answer with every partition.
        server, sock, _ = bench_broker.start(host, base, plugins, dirs, ready_api="DescribeConfigs")
        restarted = settled_rss(server.pid)
        described = bench_broker.call(sock, {"api": "DescribeLogDirs"})
        listed = sum(len(d["partitions"]) for d in described["brokers"][0]["logDirs"])
        if listed != partitions:
            raise RuntimeError(f"DescribeLogDirs listed {listed} partitions, not {partitions}")
        after_describe = settled_rss(server.pid)
    finally:
        bench_broker.stop(server, base)
    bench_broker.report({"partitions": partitions, "create_seconds": round(created_s, 1),
                         "rss_live": live, "rss_restarted": restarted,
                         "rss_after_describe": after_describe}, out_file)


if __name__ == "__main__":
    main()
