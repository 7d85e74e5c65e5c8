#!/usr/bin/env python3
# bench_table.py: turns the outputs of the benchmark programs into the one table tools/bench.sh prints.
#
# Usage: bench_table.py [--smoke] DIR, where DIR holds placement.json (Google Benchmark JSON),
# creation.json, memory.json, startup.json, hot_swap.txt and, when those benchmarks ran, fetch.json,
# move.json, rss.json, fetch_cpu.json, produce_cpu.json, kafka_throughput.json and balance.json. Every ratio
# compares figures measured in the same run. --smoke (a run of a moment, whose figures mean
# nothing) prints each target without a verdict.
import json
import os
import platform
import re
import subprocess
import sys
import time

PARTITIONS = [1000, 10000, 100000, 1000000]
DIRS = [4, 12, 64]
SMOKE = False  # set by --smoke: the figures of a run of a moment are not judged


def short_count(n):
    return f"{n // 1000000}M" if n >= 1000000 else f"{n // 1000}k"


def duration(ns):
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    if ns >= 1e3:
        return f"{ns / 1e3:.2f} µs"
    return f"{ns:.0f} ns"


def ratio(x):
    return f"{x:.2f}x"


def fraction(x):
    return f"1/{1 / x:,.0f}" if x < 0.1 else f"{x:.2f}x"


def verdict(ok):
    if SMOKE:
        return "not judged (smoke run)"
    return "met" if ok else "MISSED"


def size_text(n):
    if n >= 1 << 30:
        return f"{n / (1 << 30):.0f} GiB"
    return f"{n / (1 << 20):.0f} MiB" if n >= 1 << 20 else f"{n / (1 << 10):.0f} KiB"


def load_placement(path):
    with open(path) as f:
        data = json.load(f)
    times = {}
    for b in data["benchmarks"]:
        name = b.get("run_name", b["name"])
        if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
            continue
        scale = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[b.get("time_unit", "ns")]
        times[name] = b["cpu_time"] * scale
        repetitions = b.get("repetitions", 1)
    return times, repetitions


def machine():
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    nproc = subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip()
    return f"{model}, nproc {nproc}, {platform.system()} {platform.release()}"


def print_balance(path):
    """One line per balance benchmark: its median, or its only run when it ran once."""
    with open(path) as f:
        data = json.load(f)
    for b in data["benchmarks"]:
        if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
            continue
        reps = b.get("repetitions", 1)
        name = b.get("run_name", b["name"])
        of = f"median of {reps}" if b.get("run_type") == "aggregate" else "one run"
        line = f"{name}: {b['cpu_time']:.2f} {b['time_unit']} CPU ({of})"
        if name.startswith("plan/12/100000"):
            line += (f", {int(b.get('moves', 0))} moves planned; bound 10 ms: "
                     f"{verdict(b['cpu_time'] <= 10)}")
        print("Balance " + line)


def kafka_throughput_rows(path, row):
    """kafka_throughput_bench.py's rows: produce and fetch, lds-host's against Kafka's."""
    with open(path) as f:
        kt = json.load(f)
    k, lds = kt["kafka"], kt["lds-host"]
    for what, tool in (("produce", "ProducerPerformance"), ("fetch", "kcat -C")):
        key = what + "_mb_s"
        row(f"{what} throughput, {size_text(kt['bytes'])} in records of 1 KiB ({tool})",
            f"lds-host {lds[key]:.0f} MB/s",
            f"Apache Kafka {kt['kafka_version']} {k[key]:.0f} MB/s", ratio(kt[what + "_ratio"]),
            f"≥1.0x Kafka: {verdict(kt[what + '_ratio'] >= 1.0)}")


def main():
    global SMOKE
    args = sys.argv[1:]
    if args[:1] == ["--smoke"]:
        SMOKE = True
        args = args[1:]
    if len(args) != 1:
        sys.exit("usage: bench_table.py [--smoke] DIR")
    out = args[0]
    times, reps = load_placement(os.path.join(out, "placement.json"))
    with open(os.path.join(out, "creation.json")) as f:
        creation = json.load(f)
    with open(os.path.join(out, "memory.json")) as f:
        memory = json.load(f)
    with open(os.path.join(out, "hot_swap.txt")) as f:
        hot_swap = f.read()

    print(f"lds benchmarks, {time.strftime('%Y-%m-%d')}, {machine()}")
    of = f"median of {reps} repetitions" if reps > 1 else "one repetition"
    print(f"Release build; placement figures are CPU time per call, {of}; every ratio compares "
          "figures of this run.")
    print()
    print("| figure | measured | compared with | ratio | target |")
    print("|---|---|---|---|---|")

    def row(figure, measured, compared, r, target):
        print(f"| {figure} | {measured} | {compared} | {r} | {target} |")

    for strategy in ["partition", "size"]:
        for p in PARTITIONS:
            for d in DIRS:
                if strategy == "size" and d != 12:
                    continue
                key = f"{d}/{p}"
                project = times[f"project/{strategy}/{key}"]
                direct = times[f"direct/{strategy}/{key}"]
                create = times[f"project_create/{strategy}/{key}"]
                kafka = times[f"kafka/{key}"]
                kafka_create = times[f"kafka_create/{key}"]
                bound = 2 if d == 12 else 3
                target = f"≤{bound}x direct: {verdict(project / direct <= bound)}"
                if d == 12 and p == 100000:
                    target += f"; ≤1/1,000 Kafka: {verdict(project / kafka <= 1e-3)}"
                row(f"placement, {strategy}, D={d}, P={short_count(p)}",
                    f"choose {duration(project)}; create {duration(create)}",
                    f"direct ranking {duration(direct)}; Kafka port {duration(kafka)} "
                    f"(with createLog's bookkeeping {duration(kafka_create)})",
                    f"{ratio(project / direct)} direct; {fraction(project / kafka)} Kafka", target)
    for strategy in ["partition", "size"]:
        for d in DIRS:
            if strategy == "size" and d != 12:
                continue
            small = times[f"project/{strategy}/{d}/1000"]
            large = times[f"project/{strategy}/{d}/1000000"]
            row(f"flat in P, {strategy}, D={d}", f"P=1M {duration(large)}",
                f"P=1k {duration(small)}", ratio(large / small),
                f"≤1.5x: {verdict(large / small <= 1.5)}")

    for strategy in ["partition", "size"]:
        key = f"{strategy}/12/100000"
        off, on = times[f"project/{key}"], times[f"project_metrics/{key}"]
        row(f"placement with metrics on, {strategy}, D=12, P=100k", duration(on),
            f"metrics off {duration(off)}", ratio(on / off),
            f"≤1.05x: {verdict(on / off <= 1.05)}")

    c = creation
    rounds = f"median of {c['rounds']}" if c["rounds"] > 1 else "one round"
    row(f"creating {c['partitions']:,} partitions on real dirs ({c['dirs']} dirs, {rounds})",
        f"LogManager {c['host_seconds']:.2f} s",
        f"bare mkdir/create/fsync loop {c['bare_seconds']:.2f} s", ratio(c["ratio"]),
        f"≤1.5x: {verdict(c['ratio'] <= 1.5)}")
    m = memory
    row(f"host bookkeeping per partition at {m['partitions']:,} partitions",
        f"{m['bytes_per_partition']:.0f} B",
        f"topic names of {m['topic_name_chars']} chars, stored inline, so none counted", "",
        f"≤150 B: {verdict(m['bytes_per_partition'] <= 150)}")

    rss_file = os.path.join(out, "rss.json")
    if os.path.exists(rss_file):
        with open(rss_file) as f:
            rs = json.load(f)
        live = rs["rss_live"]
        for key, what in [("rss_restarted", "after a clean restart"),
                          ("rss_after_describe", "after a DescribeLogDirs of them all")]:
            r = rs[key] / live
            row(f"broker resident memory at {rs['partitions']:,} partitions {what}",
                size_text(rs[key]), f"the same partitions created live {size_text(live)}",
                ratio(r), f"≤1.2x: {verdict(r <= 1.2)}")

    with open(os.path.join(out, "startup.json")) as f:
        st = json.load(f)
    for key, what, bound in [("clean_s", "after a clean shutdown", 1.0),
                             ("unclean_s", "after a kill -9", 1.5)]:
        r = st[key] / st["floor_s"]
        row(f"restart at {st['partitions']:,} partitions {what} (4 dirs, median of "
            f"{st['rounds']})", f"LogManager startup {st[key]:.2f} s",
            f"find + xargs stat of the same tree {st['floor_s']:.2f} s", ratio(r),
            f"≤{bound}x: {verdict(r <= bound)}")

    fetch_file = os.path.join(out, "fetch.json")
    if os.path.exists(fetch_file):
        with open(fetch_file) as f:
            fe = json.load(f)
        extra = fe["far_us_median"] - fe["hint_us_median"]
        row(f"Fetch of {size_text(fe['fetch_bytes'])} at a random offset of a "
            f"{size_text(fe['segment_bytes'])} segment of {fe['batches']:,} small batches "
            f"(median of {fe['reads']:,}; p99 {fe['far_us_p99']:.0f} µs)",
            f"{fe['far_us_median']:.1f} µs", f"at the read hint {fe['hint_us_median']:.1f} µs",
            ratio(fe["far_us_median"] / fe["hint_us_median"]),
            f"≤1 ms more: {verdict(extra <= 1000 and fe['far_us_p99'] - fe['hint_us_p99'] <= 1000)}")
        row(f"rebuilding the indexes of that segment (missing, torn or hand-edited)",
            f"{fe['rebuild_s']:.2f} s", f"writing the segment {fe['write_s']:.2f} s",
            ratio(fe["rebuild_s"] / fe["write_s"]), "")

    swap = re.search(r"swap \(load\+validate\+publish\)\s+([\d.]+) ms\s+([\d.]+) ms", hot_swap)
    steady = re.search(r"placement, steady\s+([\d.]+) ns\s+([\d.]+) ns", hot_swap)
    during = re.search(r"placement, during swaps\s+([\d.]+) ns\s+([\d.]+) ns", hot_swap)
    header = re.search(r"hot swap benchmark: (\d+) swaps, (\d+) placer threads", hot_swap)
    if swap and steady and during and header:
        row(f"hot swap: {header.group(1)} swaps under {header.group(2)} placer threads",
            f"swap p50 {swap.group(1)} ms, p99 {swap.group(2)} ms", "", "", "")
        s50, s99 = float(steady.group(1)), float(steady.group(2))
        d50, d99 = float(during.group(1)), float(during.group(2))
        row("hot swap: placement latency during swaps", f"p50 {d50:.0f} ns, p99 {d99:.0f} ns",
            f"steady p50 {s50:.0f} ns, p99 {s99:.0f} ns",
            f"{ratio(d50 / s50)} p50; {ratio(d99 / s99)} p99", "")
    else:
        row("hot swap", "(output not recognised)", "", "", "")

    move_file = os.path.join(out, "move.json")
    if os.path.exists(move_file):
        with open(move_file) as f:
            mv = json.load(f)
        row(f"moving a {size_text(mv['bytes'])} partition between two dirs of one disk, "
            "unthrottled", f"lds-host {mv['move_seconds']:.2f} s",
            f"cp -r + sync of the copy {mv['copy_seconds']:.2f} s", ratio(mv["ratio"]),
            f"≤1.1x: {verdict(mv['ratio'] <= 1.1)}")

    fetch_cpu_file = os.path.join(out, "fetch_cpu.json")
    if os.path.exists(fetch_cpu_file):
        with open(fetch_cpu_file) as f:
            fc = json.load(f)
        row(f"broker CPU per MB fetched by kcat, {size_text(fc['bytes'])} of 64 KiB batches from "
            "the page cache", f"lds-host {fc['broker_ms_per_mb']:.3f} ms/MB",
            f"cat of the segments {fc['cat_ms_per_mb']:.3f} ms/MB; a bare sendfile sender on "
            f"loopback {fc['sendfile_ms_per_mb']:.3f} ms/MB",
            ratio(fc["ratio"]) if fc["ratio"] else "",
            f"≤0.1 ms/MB: {verdict(fc['broker_ms_per_mb'] <= 0.1)}")

    produce_cpu_file = os.path.join(out, "produce_cpu.json")
    if os.path.exists(produce_cpu_file):
        with open(produce_cpu_file) as f:
            pc = json.load(f)
        row(f"broker CPU per MB produced by kcat, {size_text(pc['bytes'])} in records of 1 KiB",
            f"lds-host {pc['broker_ms_per_mb']:.3f} ms/MB",
            f"dd of the same bytes into the same dir {pc['dd_ms_per_mb']:.3f} ms/MB",
            ratio(pc["broker_ms_per_mb"] / pc["dd_ms_per_mb"]) if pc["dd_ms_per_mb"] else "",
            f"≤0.5 ms/MB: {verdict(pc['broker_ms_per_mb'] <= 0.5)}")
        row("produce throughput, those records", f"lds-host {pc['produce_mb_s']:.0f} MB/s",
            f"dd of the same bytes into the same dir {pc['dd_mb_s']:.0f} MB/s",
            ratio(pc["ratio"]), "")

    throughput_file = os.path.join(out, "kafka_throughput.json")
    if os.path.exists(throughput_file):
        kafka_throughput_rows(throughput_file, row)

    balance_file = os.path.join(out, "balance.json")
    if os.path.exists(balance_file):
        print_balance(balance_file)


if __name__ == "__main__":
    main()
