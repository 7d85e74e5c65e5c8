#!/usr/bin/env python3
# kafka_throughput_bench.py: `lds-host serve`'s produce and fetch throughput against Apache Kafka
# 4.4.0's on the same machine, in one run. Kafka's own ProducerPerformance writes the same records
# (1 KiB values, the producer's defaults: acks=all, batches of 16 KiB, linger 5 ms) into one
# partition of a one-node Kafka 4.4.0 and of `lds-host serve`, one broker after the other; then
# kcat (librdkafka) reads each partition from its start to its end. ConsumerPerformance is not
# used: it subscribes through a consumer group, which lds-host does not serve. Each broker runs
# alone, with its log dir a plain folder on the same filesystem and segments of 1 GiB, and is
# first warmed up with an eighth of the records, untimed; each side is run twice and its better run
# kept.
#
# Usage: kafka_throughput_bench.py LDS_HOST PLUGIN_DIR [OUT_JSON]. The records
# (LDS_KAFKA_BENCH_MIB, default 256 MiB) are written under $LDS_BENCH_DIR (default the temp
# folder), and removed afterwards. Needs Kafka's jars in the Maven repository
# (tools/install-deps.sh) and kcat; without them it prints why on stderr, writes no JSON and exits
# 0, and the table says the figure was not measured. Prints one JSON object: bytes, records, and for
# each of kafka and lds-host produce_mb_s and fetch_mb_s, then produce_ratio and fetch_ratio
# (lds-host's over Kafka's).
import os
import re
import shutil
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ left in tools/ or tests/support/
import bench_broker  # noqa: E402 (after the line above)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                                "support"))
import real_kafka  # noqa: E402

VERSION = "4.4.0"
RECORD_BYTES = 1024
SEGMENT_BYTES = 1 << 30
RUNS = 2
# The producer is a real client, not a quick tool: both compilers, more heap.
PRODUCER_JVM = ["-XX:TieredStopAtLevel=4", "-Xmx512m"]
SENT = re.compile(r"(\d+) records sent, [\d.]+ records/sec \(([\d.]+) MB/sec\)")


def produce(cluster, bootstrap, topic, records):
    """ProducerPerformance into `topic` partition 0 at `bootstrap`: MB/s of values (the tool
    reports MiB/s as "MB/sec")."""
    result = cluster.tool("ProducerPerformance", "--topic", topic, "--num-records", records,
                          "--record-size", RECORD_BYTES, "--throughput", -1,
                          "--bootstrap-server", bootstrap, timeout=900, jvm_opts=PRODUCER_JVM)
    found = SENT.findall(result.stdout)
    if not found or int(found[-1][0]) != records:
        raise RuntimeError("ProducerPerformance did not send %d records to %s:\n%s%s" % (
            records, bootstrap, result.stdout[-2000:], result.stderr[-2000:]))
    return float(found[-1][1]) * (1 << 20) / 1e6


def fetch(bootstrap, topic, records):
    """kcat -C of `topic` partition 0 at `bootstrap` from its start to its end: MB/s of values."""
    began = time.monotonic()
    kcat = subprocess.run(["kcat", "-C", "-b", bootstrap, "-t", topic, "-p", "0", "-o",
                           "beginning", "-e", "-q", "-f", "%o\n"],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False, timeout=900)
    took = time.monotonic() - began
    if kcat.returncode != 0:
        raise RuntimeError(f"kcat -C at {bootstrap} exited with code {kcat.returncode}: "
                           f"{kcat.stderr.decode()[-2000:]}")
    got = kcat.stdout.count(b"\n")
    if got != records:
        raise RuntimeError(f"kcat read {got} records at {bootstrap}, not {records}")
    return records * RECORD_BYTES / 1e6 / took


def warm_up(cluster, bootstrap, topic, records):
    """An eighth of the records into `topic`, and read back, untimed: Kafka's JIT compiles its
    hot paths, and both brokers have their first segment and connections made."""
    produce(cluster, bootstrap, topic, records // 8)
    fetch(bootstrap, topic, records // 8)


def run_lds(host, plugins, base, records, cluster):
    """One run against a fresh `lds-host serve`, with the producer of `cluster` (stopped)."""
    server = None
    folder = os.path.join(base, "lds-host")
    os.makedirs(folder)
    try:
        server, sock, described = bench_broker.start(
            host, folder, plugins, [os.path.join(folder, "d1")],
            f'listeners = "PLAINTEXT://127.0.0.1:0"\nlog.segment.bytes = {SEGMENT_BYTES}\n')
        address = described["listeners"][len("PLAINTEXT://"):]
        for name in ("bench", "warm"):
            bench_broker.call(sock, {"api": "CreatePartitions", "topic": name, "partitions": [0]})
        warm_up(cluster, address, "warm", records)
        return produce(cluster, address, "bench", records), fetch(address, "bench", records)
    finally:
        bench_broker.stop(server, folder)


def not_measured():
    """Why Kafka's side cannot run here, or None."""
    if shutil.which("kcat") is None:
        return "kcat is not installed"
    if not shutil.which("mvn"):
        return "mvn is not on PATH, so Kafka's jars cannot be resolved"
    try:
        real_kafka.classpath(VERSION)
    except real_kafka.KafkaRuntimeError as e:
        return str(e)
    return None


def main():
    host, plugins, out_file, mib, base = bench_broker.arguments(
        "kafka-throughput-bench", "LDS_KAFKA_BENCH_MIB", 256)
    try:
        why = not_measured()
        if why:
            print(f"kafka_throughput_bench.py: not measured: {why}", file=sys.stderr)
            return
        records = (mib << 20) // RECORD_BYTES
        best = {"kafka": [0.0, 0.0], "lds-host": [0.0, 0.0]}

        def keep(side, produced, fetched):
            best[side] = [max(best[side][0], produced), max(best[side][1], fetched)]

        with real_kafka.KafkaCluster(version=VERSION, brokers=1, dir_sizes_mib=(1,), tmpfs=False,
                                     workdir=base,
                                     extra_props={"log.segment.bytes": SEGMENT_BYTES}) as cluster:
            for run in range(RUNS):
                if run > 0:
                    cluster.start_broker(1)
                topic = "bench%d" % run
                for name in (topic, "warm%d" % run):
                    cluster.tool("TopicCommand", "--bootstrap-server", cluster.bootstrap,
                                 "--create", "--topic", name, "--partitions", 1,
                                 "--replication-factor", 1)
                warm_up(cluster, cluster.bootstrap, "warm%d" % run, records)
                keep("kafka", produce(cluster, cluster.bootstrap, topic, records),
                     fetch(cluster.bootstrap, topic, records))
                cluster.stop_broker(1)  # lds-host runs alone
                keep("lds-host", *run_lds(host, plugins, base, records, cluster))
        result = {"bytes": records * RECORD_BYTES, "records": records, "kafka_version": VERSION}
        for side, (produced, fetched) in best.items():
            result[side] = {"produce_mb_s": produced, "fetch_mb_s": fetched}
        result["produce_ratio"] = best["lds-host"][0] / best["kafka"][0]
        result["fetch_ratio"] = best["lds-host"][1] / best["kafka"][1]
        bench_broker.report(result, out_file)
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
