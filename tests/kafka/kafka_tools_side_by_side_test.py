"""kafka_tools_side_by_side_test.py: Kafka's own tools print the same against lds-host as against
Apache Kafka 4.4.0.

One real Kafka 4.4.0 node (KRaft, broker and controller, node id 1) and one `lds-host serve`
(broker.id 1, the same cluster id, strategy `partition`) run side by side, each with three tmpfs log
dirs of 64, 128 and 256 MiB. Every test runs the same commands of Kafka 4.4.0's tools (TopicCommand,
ConfigCommand, LogDirsCommand, ReassignPartitionsCommand, ConsoleProducer, ConsoleConsumer,
BrokerApiVersionsCommand, GetOffsetShell, DumpLogSegments) against both, the two commands of a pair at once, and compares what they
print. The expected text is what the real broker prints in the same run: nothing is checked in.

What is compared: a tool's exit code and its stdout. Its stderr holds the client's own log lines,
whose timings differ, and is only shown on a failure; the one exception is ConsoleConsumer's
"Processed a total of N messages" line, which is its result.

What is normalised, on both sides alike, and nothing else (each a function below):

    normalise_log_dir_paths   each log dir's path -> <log-dir-N>, N its position in log.dirs
    normalise_ports           127.0.0.1:<any port> -> 127.0.0.1:<port>
    normalise_topic_ids       TopicId: <22 characters> -> TopicId: <topic-id>
    normalise_sizes           "size":<bytes> of a partition holding records -> "size":"<size>"
    sort_log_dirs             LogDirsCommand's JSON: its logDirs in log.dirs order
    hide_partition_numbers    LogDirsCommand's JSON: "topic-N" -> "topic-<p>" in each log dir
    drop_controller_listener  Kafka's listeners: the node's CONTROLLER listener left out
    config_lines_in_common    ConfigCommand --describe: the lines of keys only one side has left out
    hide_differing_defaults   ConfigCommand --describe: the default of the 3 keys whose default
                              lds-host defines otherwise (broker.id, listeners,
                              num.replica.alter.log.dirs.threads) -> <default>

Broker and cluster ids need no normalisation: lds-host is given Kafka's (broker.id = 1,
cluster.id = Kafka's). Directory ids appear in none of these outputs.

Two comparisons follow an explicit rule rather than the literal text:

(a) ConfigCommand --describe --all (broker 1). Kafka lists about 200 keys, lds-host the keys it
    implements. The lines of keys only lds-host has (its strategy keys, ...) are left out of its
    side, the lines of keys only Kafka has are left out of Kafka's; every key both have must then
    print the same line, value, sensitive flag and synonyms, byte for byte.
(b) BrokerApiVersionsCommand. Both list the same APIs in the same order. For the APIs the tools of
    this suite use (TOOL_APIS) the version ranges are identical. Produce, Fetch and ListOffsets
    (NARROWER_APIS) are served in a narrower range on lds-host, a documented exception: its range
    lies within Kafka's and is usable by the 4.4 client (a "[usable: N]" with N its highest
    version). Every other API is UNSUPPORTED on lds-host.

ConsoleProducer runs with the 4.4 producer's defaults, idempotence included (InitProducerId, and
the broker's sequence checks of each batch).

Placement parity: with strategy `partition` (Kafka's own rule) the same topics created in the same
order land in the same log dirs, by position in log.dirs, on both.

    sudo LDS_HOST=build/host_stub/lds-host LDS_PLUGIN_DIR=build/plugins \\
         LDS_KAFKA_CACHE_DIR=build/kafka-runtime-cache \\
         /usr/bin/python3 tests/kafka/kafka_tools_side_by_side_test.py -v

Exits 77 (ctest's SKIP_RETURN_CODE), saying why, when it cannot run here: not root (the log dirs
are tmpfs mounts), no Java 17 or Maven or Kafka 4.4.0's jars, or no lds-host built.
"""

import concurrent.futures
import difflib
import json
import os
import re
import sys
import time
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import lds_host_server  # noqa: E402
import real_kafka  # noqa: E402
import suite_main  # noqa: E402

VERSION = "4.4.0"
BROKER_ID = 1
DIR_SIZES_MIB = (64, 128, 256)
RECORDS = 1000
TIMED_RECORDS = 400  # about 100 KiB: some 25 entries in each segment index
THROTTLE = 10 * 1024 * 1024  # bytes/s for the replica's move between dirs: moves 30 KiB at once

# The APIs this suite's tools send: their version ranges must be identical on both sides.
TOOL_APIS = ("ApiVersions", "Metadata", "CreateTopics", "DeleteTopics", "DescribeConfigs",
             "AlterConfigs", "IncrementalAlterConfigs", "AlterReplicaLogDirs", "DescribeLogDirs",
             "CreatePartitions", "DescribeCluster", "ListPartitionReassignments",
             "AlterPartitionReassignments", "DescribeTopicPartitions", "InitProducerId")
# Served in a narrower range on lds-host (a documented exception, rule (b)).
NARROWER_APIS = ("Produce", "Fetch", "ListOffsets")
# Kafka's broker keys that ConfigCommand --describe --all lists only once they are set (the
# replication quotas, DynamicConfig.Broker): Kafka has them, though its --all does not show them.
KAFKA_DYNAMIC_ONLY_KEYS = ("leader.replication.throttled.rate",
                           "follower.replication.throttled.rate",
                           "replica.alter.log.dirs.io.max.bytes.per.second")
# Of those, the one lds-host has too, listed the same way (only once set).
LDS_DYNAMIC_ONLY_KEYS = ("replica.alter.log.dirs.io.max.bytes.per.second",)
# Broker keys both have whose default lds-host defines otherwise, and why:
#   broker.id                          Kafka -1 (a KRaft node has node.id), lds-host 0
#   listeners                          Kafka PLAINTEXT://:9092, lds-host none (an opt-in listener)
#   num.replica.alter.log.dirs.threads Kafka null (num.io.threads at run time), lds-host 1
DIFFERING_DEFAULT_KEYS = ("broker.id", "listeners", "num.replica.alter.log.dirs.threads")


def skip_reason():
    return (real_kafka.skip_reason(VERSION) or lds_host_server.skip_reason())


# ---------------------------------------------------------------------------------------------
# Normalisations: only what must differ between the two brokers.


def normalise_log_dir_paths(text, log_dirs):
    """Each of the broker's log dir paths becomes <log-dir-N>, N its position in log.dirs: the
    two brokers' tmpfs mount points differ, their order does not."""
    for i, path in sorted(enumerate(log_dirs), key=lambda item: -len(item[1])):
        text = text.replace(path, "<log-dir-%d>" % i)
    return text


def normalise_ports(text):
    """Every 127.0.0.1:<port> becomes 127.0.0.1:<port>: each broker listens on a port of its own
    from free_port() (both on 127.0.0.1, so the host stays as printed)."""
    return re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:<port>", text)


def normalise_topic_ids(text):
    """TopicCommand's 'TopicId: <Uuid>' becomes 'TopicId: <topic-id>': Kafka draws a topic's id
    at random, lds-host derives it from the cluster id and the topic name."""
    return re.sub(r"TopicId: [A-Za-z0-9_-]{22}", "TopicId: <topic-id>", text)


def normalise_sizes(text):
    """LogDirsCommand's '"size":<bytes>' of a partition that holds records becomes
    '"size":"<size>"': those bytes depend on how the producer happened to batch the records, which
    timing decides (each side's size is checked against its own disk instead). An empty
    partition's 0 stays."""
    return re.sub(r'"size":[1-9]\d*', '"size":"<size>"', text)


def sort_log_dirs(text):
    """LogDirsCommand's JSON lists a broker's logDirs in the order of a Java HashMap keyed by
    their paths, which differ between the brokers: put them in log.dirs order (by <log-dir-N>,
    so run it after normalise_log_dir_paths). The JSON is written back as the tool writes it
    (compact, keys in their order)."""
    out = []
    for line in text.splitlines(True):
        if line.startswith("{"):
            data = json.loads(line)
            for broker in data.get("brokers", []):
                broker["logDirs"] = sorted(broker.get("logDirs", []),
                                           key=lambda d: str(d.get("logDir")))
            line = json.dumps(data, separators=(",", ":"), ensure_ascii=False) + (
                "\n" if line.endswith("\n") else "")
        out.append(line)
    return "".join(out)


def hide_partition_numbers(text):
    """LogDirsCommand's JSON: each partition "topic-N" becomes "topic-<p>", and each log dir's
    partitions are sorted. Kafka's broker creates a new topic's logs in the order of its metadata
    delta, a hash map, and lds-host in partition order, so which partition of a topic lands in
    which dir differs; how many of each topic every dir holds, and their sizes, still compare.
    Run after sort_log_dirs."""
    out = []
    for line in text.splitlines(True):
        if line.startswith("{"):
            data = json.loads(line)
            for broker in data.get("brokers", []):
                for log_dir in broker.get("logDirs", []):
                    parts = log_dir.get("partitions", [])
                    for p in parts:
                        p["partition"] = re.sub(r"-\d+$", "-<p>", p["partition"])
                    log_dir["partitions"] = sorted(parts, key=lambda p: json.dumps(p))
            line = json.dumps(data, separators=(",", ":"), ensure_ascii=False) + (
                "\n" if line.endswith("\n") else "")
        out.append(line)
    return "".join(out)


def hide_differing_defaults(text):
    """ConfigCommand --describe: for the keys of DIFFERING_DEFAULT_KEYS, the DEFAULT_CONFIG
    synonym's value, and the key's own value when no layer sets it, become <default>: lds-host
    defines those defaults otherwise (see DIFFERING_DEFAULT_KEYS). A value set in the config
    files still compares."""
    for key in DIFFERING_DEFAULT_KEYS:
        k = re.escape(key)
        text = re.sub(r"DEFAULT_CONFIG:%s=[^,}]*" % k, "DEFAULT_CONFIG:%s=<default>" % key, text)
        # Unset: Kafka prints "=null ... synonyms={}", lds-host its default and that synonym.
        text = re.sub(r"^  %s=[^ ]* sensitive=(\w+) synonyms=\{(DEFAULT_CONFIG:%s=<default>)?\}$"
                      % (k, k), r"  %s=<default> sensitive=\1 synonyms={<default>}" % key,
                      text, flags=re.M)
    return text


def drop_controller_listener(text):
    """Kafka's node is broker and KRaft controller in one, so its listeners value (and the
    synonym of it) names a CONTROLLER listener too: leave that one out (lds-host has no
    controller; its PLAINTEXT listener is compared)."""
    return re.sub(r",CONTROLLER://127\.0\.0\.1:(\d+|<port>)", "", text)


def config_keys(text):
    """The keys of ConfigCommand --describe's lines ('  key=value sensitive=... synonyms=...')."""
    return [line[2:].split("=", 1)[0] for line in text.splitlines() if line.startswith("  ")]


def config_lines_in_common(text, other_keys):
    """ConfigCommand --describe's lines of keys that the other broker does not list are left
    out (rule (a)): lds-host implements only some of Kafka's keys and has keys of its own."""
    keep = set(other_keys)
    return "".join(line for line in text.splitlines(True)
                   if not line.startswith("  ") or line[2:].split("=", 1)[0] in keep)


def normalise(text, side):
    """What every output goes through: log dir paths, ports, topic ids."""
    return normalise_topic_ids(normalise_ports(normalise_log_dir_paths(text, side.log_dirs)))


# ---------------------------------------------------------------------------------------------
# The two brokers


class Side:
    """One broker as the tools see it."""

    def __init__(self, name, bootstrap, log_dirs):
        self.name = name
        self.bootstrap = bootstrap
        self.log_dirs = list(log_dirs)

    def partition_dirs(self, topic):
        """{partition: position in log.dirs} of each folder of `topic` on disk (not the
        '<topic>-<n>.<id>-delete' folders a move or a deletion leaves, nor '-future' ones)."""
        found = {}
        pattern = re.compile(r"%s-(\d+)" % re.escape(topic))
        for i, d in enumerate(self.log_dirs):
            for name in os.listdir(d):
                m = pattern.fullmatch(name)
                if m and os.path.isdir(os.path.join(d, name)):
                    found.setdefault(int(m.group(1)), []).append(i)
        return found

    def sizes_on_disk(self, topic):
        """{"<topic>-<n>": bytes of its segments (.log files)} of each folder of `topic`."""
        sizes = {}
        for partition, positions in self.partition_dirs(topic).items():
            for i in positions:
                folder = os.path.join(self.log_dirs[i], "%s-%d" % (topic, partition))
                sizes["%s-%d" % (topic, partition)] = sum(
                    os.path.getsize(os.path.join(folder, n)) for n in os.listdir(folder)
                    if n.endswith(".log"))
        return sizes

    def counts(self, topics):
        """How many partitions of `topics` each log dir holds on disk, in log.dirs order."""
        counts = [0] * len(self.log_dirs)
        for topic in topics:
            for positions in self.partition_dirs(topic).values():
                for i in positions:
                    counts[i] += 1
        return counts


def tool_text(result, with_consumer_total=False):
    """What of a tool's run is compared: its exit code and stdout (and ConsoleConsumer's
    'Processed a total of N messages' line from stderr)."""
    text = "exit %d\n%s" % (result.returncode, result.stdout)
    if with_consumer_total:
        text += "".join(line + "\n" for line in result.stderr.splitlines()
                        if line.startswith("Processed a total of"))
    return text


def reported_sizes(stdout):
    """{"<topic>-<n>": size} from LogDirsCommand --describe's JSON line."""
    report = json.loads(next(line for line in stdout.splitlines() if line.startswith("{")))
    return {p["partition"]: p["size"] for broker in report["brokers"]
            for d in broker["logDirs"] for p in d["partitions"]}


def parse_api_versions(text):
    """BrokerApiVersionsCommand's output: (header lines, [(api name, key, range text)])."""
    header, apis = [], []
    for line in text.splitlines():
        m = re.match(r"^\t(\w+)\((\d+)\): (.*?),?$", line)
        if m:
            apis.append((m.group(1), int(m.group(2)), m.group(3)))
        else:
            header.append(line)
    return header, apis


def parse_range(text):
    """'3 to 13 [usable: 13]' or '0 [usable: 0]' -> (3, 13, 13); None for anything else."""
    m = re.fullmatch(r"(\d+)(?: to (\d+))? \[usable: (\d+)\]", text)
    if not m:
        return None
    low = int(m.group(1))
    return low, int(m.group(2) or low), int(m.group(3))




@unittest.skipIf(skip_reason(), skip_reason())
class KafkaToolsSideBySideTest(unittest.TestCase):
    """The same commands against Kafka 4.4.0 and lds-host; the tests run in their numbered
    order, each on the state the ones before left (the same on both brokers)."""

    maxDiff = None

    @classmethod
    def setUpClass(cls):
        began = time.monotonic()
        # log.index.size.max.bytes left at Kafka's default: lds-host has no such key, and the
        # harness's 1 MiB would show as segment.index.bytes in TopicCommand --describe.
        cls.cluster = real_kafka.KafkaCluster(
            version=VERSION, brokers=1, dir_sizes_mib=DIR_SIZES_MIB,
            omit_props=("log.index.size.max.bytes",))
        cls.addClassCleanup(cls.cluster.stop)
        cls.cluster.start()
        # The same broker id, cluster id and segment size as the Kafka node (the harness sets
        # log.segment.bytes=8388608); the strategy that is Kafka's own rule.
        cls.host = lds_host_server.LdsHostServer(
            dir_sizes_mib=DIR_SIZES_MIB, broker_id=BROKER_ID, cluster_id=cls.cluster.cluster_id,
            strategy="partition", config={"log.segment.bytes": 8388608})
        cls.addClassCleanup(cls.host.stop)
        cls.host.start()
        cls.kafka = Side("Kafka %s" % VERSION, cls.cluster.bootstrap, cls.cluster.log_dirs(1))
        cls.lds = Side("lds-host", cls.host.bootstrap, cls.host.log_dirs())
        cls.pool = concurrent.futures.ThreadPoolExecutor(max_workers=2)
        cls.addClassCleanup(cls.pool.shutdown)
        cls.files = os.path.join(cls.cluster.workdir, "side-by-side")
        os.makedirs(cls.files)
        cls.config_key_sets = {}
        sys.stderr.write("  brokers up in %.1f s\n" % (time.monotonic() - began))

    # -- running the tools

    def run_tool(self, side, tool, *args, input=None, timeout=120):
        """Kafka's tool `tool` against `side`: --bootstrap-server is added first, '{dir:N}' in an
        argument becomes the side's Nth log dir and '{file:NAME}' a file of this side (written
        beforehand with write_file)."""
        def expand(arg):
            arg = str(arg)
            arg = re.sub(r"\{dir:(\d+)\}", lambda m: side.log_dirs[int(m.group(1))], arg)
            return re.sub(r"\{file:([\w.-]+)\}", lambda m: self.side_file(side, m.group(1)), arg)
        return self.cluster.tool(tool, "--bootstrap-server", side.bootstrap,
                                 *[expand(a) for a in args], input=input, timeout=timeout,
                                 check=False)

    def both(self, tool, *args, input=None, timeout=120):
        """The same command against both brokers at once: (Kafka's result, lds-host's)."""
        futures = [self.pool.submit(self.run_tool, side, tool, *args, input=input,
                                    timeout=timeout) for side in (self.kafka, self.lds)]
        return tuple(f.result() for f in futures)

    def side_file(self, side, name):
        return os.path.join(self.files, "%s-%s" % ("kafka" if side is self.kafka else "lds", name))

    def write_file(self, side, name, text):
        with open(self.side_file(side, name), "w") as f:
            f.write(text)

    # -- comparing

    saved = 0

    def save_texts(self, what, kafka_text, lds_text):
        folder = os.environ.get("LDS_SIDE_BY_SIDE_OUT")
        if not folder:
            return
        os.makedirs(folder, exist_ok=True)
        KafkaToolsSideBySideTest.saved += 1
        stem = "%02d-%s" % (KafkaToolsSideBySideTest.saved,
                            re.sub(r"[^A-Za-z0-9.=-]+", "_", what).strip("_")[:100])
        for suffix, text in (("kafka", kafka_text), ("lds-host", lds_text)):
            with open(os.path.join(folder, "%s.%s.txt" % (stem, suffix)), "w") as f:
                f.write(text)

    def assert_same_text(self, what, kafka_text, lds_text, results=None):
        """Fails, printing a unified diff and both full texts (and both stderrs), when the two
        normalised texts differ. With $LDS_SIDE_BY_SIDE_OUT set, both texts also go to files in
        that folder (NN-<what>.kafka.txt and .lds-host.txt), equal or not."""
        self.save_texts(what, kafka_text, lds_text)
        if kafka_text == lds_text:
            return
        diff = "".join(difflib.unified_diff(
            kafka_text.splitlines(True), lds_text.splitlines(True), self.kafka.name,
            self.lds.name))
        message = ["%s: lds-host prints something else than Kafka." % what,
                   "--- unified diff (- Kafka, + lds-host)", diff,
                   "--- %s, normalised" % self.kafka.name, kafka_text,
                   "--- %s, normalised" % self.lds.name, lds_text]
        if results:
            for side, result in zip((self.kafka, self.lds), results):
                message += ["--- %s stderr" % side.name, result.stderr[-4000:]]
        self.fail("\n".join(message))

    def compare(self, what, results, extra=(), consumer_total=False):
        """Normalises both results (normalise(), then each function of `extra`) and checks they
        are the same; the normalised texts."""
        texts = []
        for side, result in zip((self.kafka, self.lds), results):
            text = normalise(tool_text(result, consumer_total), side)
            for f in extra:
                text = f(text)
            texts.append(text)
        with self.subTest(command=what):
            self.assert_same_text(what, texts[0], texts[1], results)
        return texts

    def run_and_compare(self, what, tool, *args, **kwargs):
        """both(), then compare(); returns the two results."""
        options = {k: kwargs.pop(k) for k in ("extra", "consumer_total") if k in kwargs}
        results = self.both(tool, *args, **kwargs)
        self.compare(what, results, **options)
        return results

    def all_config_keys(self, side):
        """Every broker key `side` has: those of its ConfigCommand --describe --all (asked once),
        and KAFKA_DYNAMIC_ONLY_KEYS (Kafka) or LDS_DYNAMIC_ONLY_KEYS (lds-host) too."""
        cache = self.config_key_sets
        if side.name not in cache:
            result = self.run_tool(side, "ConfigCommand", "--entity-type", "brokers",
                                   "--entity-name", BROKER_ID, "--describe", "--all")
            self.assertEqual(result.returncode, 0, "%s: %s%s" % (side.name, result.stdout,
                                                               result.stderr))
            keys = config_keys(result.stdout)
            keys += list(KAFKA_DYNAMIC_ONLY_KEYS if side is self.kafka else LDS_DYNAMIC_ONLY_KEYS)
            cache[side.name] = keys
        return cache[side.name]

    def compare_configs(self, what, *more):
        """ConfigCommand --describe [more] for broker 1 on both, by rule (a): on each side the
        lines of keys the other broker does not have at all (all_config_keys()) are left out,
        then the texts must match."""
        results = self.both("ConfigCommand", "--entity-type", "brokers", "--entity-name",
                            BROKER_ID, "--describe", *more)
        if more == ("--all",):  # the key sets, without asking again
            for side, result in zip((self.kafka, self.lds), results):
                if result.returncode == 0 and side.name not in self.config_key_sets:
                    self.config_key_sets[side.name] = config_keys(result.stdout) + (
                        list(KAFKA_DYNAMIC_ONLY_KEYS) if side is self.kafka
                        else list(LDS_DYNAMIC_ONLY_KEYS))
        kafka_keys = self.all_config_keys(self.kafka)
        lds_keys = self.all_config_keys(self.lds)
        kafka_text = hide_differing_defaults(config_lines_in_common(
            drop_controller_listener(normalise(tool_text(results[0]), self.kafka)), lds_keys))
        lds_text = hide_differing_defaults(
            config_lines_in_common(normalise(tool_text(results[1]), self.lds), kafka_keys))
        with self.subTest(command=what):
            self.assert_same_text(what, kafka_text, lds_text, results)
        return results, kafka_text, lds_text

    def create_topic(self, topic, partitions):
        self.run_and_compare("TopicCommand --create --topic %s --partitions %d" % (
            topic, partitions), "TopicCommand", "--create", "--topic", topic, "--partitions",
            partitions, "--replication-factor", 1)
        for side in (self.kafka, self.lds):
            real_kafka.wait_for(
                "%d partitions of %s on disk of %s" % (partitions, topic, side.name),
                lambda side=side: len(side.partition_dirs(topic)) == partitions)

    def wait_gone(self, topics):
        """Waits until no folder of `topics` is left on either broker's disk."""
        for side in (self.kafka, self.lds):
            for topic in topics:
                real_kafka.wait_for("%s's folders to go on %s" % (topic, side.name),
                                    lambda side=side, topic=topic: not side.partition_dirs(topic))

    # -- the tests

    def test_1_placement_parity_with_strategy_partition(self):
        topics = [("parity-1", 1), ("parity-3", 3), ("parity-5", 5), ("parity-7", 7)]
        names = [t for t, _ in topics]
        for topic, partitions in topics:
            self.create_topic(topic, partitions)
            kafka_counts, lds_counts = self.kafka.counts(names), self.lds.counts(names)
            with self.subTest(check="partitions per log dir after creating %s" % topic):
                self.assertEqual(lds_counts, kafka_counts,
                                 "partitions per log dir (64/128/256 MiB) on disk after creating "
                                 "%s: Kafka %s, lds-host %s" % (topic, kafka_counts, lds_counts))
        # The same counts as each broker reports them (LogDirsCommand). Which partition went to
        # which dir is not compared here (test_5 compares LogDirsCommand's text).
        results = self.both("LogDirsCommand", "--describe", "--topic-list", ",".join(names))
        reported = []
        for side, result in zip((self.kafka, self.lds), results):
            with self.subTest(check="%s: LogDirsCommand against the disk" % side.name):
                self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
                report = json.loads(next(line for line in result.stdout.splitlines()
                                         if line.startswith("{")))
                per_dir = {d["logDir"]: len(d["partitions"])
                           for d in report["brokers"][0]["logDirs"]}
                reported.append([per_dir.get(d, 0) for d in side.log_dirs])
                self.assertEqual(reported[-1], side.counts(names))
        # Gone again, so that the later tests start from empty dirs.
        self.run_and_compare("TopicCommand --delete --topic parity-.*", "TopicCommand",
                             "--delete", "--topic", "parity-.*")
        self.wait_gone(names)

    def test_2_broker_api_versions(self):
        results = self.both("BrokerApiVersionsCommand")
        kafka_text, lds_text = [normalise(tool_text(r), s)
                                for s, r in zip((self.kafka, self.lds), results)]
        self.save_texts("BrokerApiVersionsCommand (as printed)", kafka_text, lds_text)
        kafka_header, kafka_apis = parse_api_versions(kafka_text)
        lds_header, lds_apis = parse_api_versions(lds_text)
        with self.subTest(part="header and the list of APIs"):
            self.assert_same_text(
                "BrokerApiVersionsCommand: the header lines and the APIs listed",
                "\n".join(kafka_header + ["%s(%d)" % a[:2] for a in kafka_apis]) + "\n",
                "\n".join(lds_header + ["%s(%d)" % a[:2] for a in lds_apis]) + "\n", results)
        lds_by_name = {name: text for name, _, text in lds_apis}
        expected, actual = [], []
        for name, key, kafka_range in kafka_apis:
            lds_range = lds_by_name.get(name, "(not listed)")
            line = "%s(%d): " % (name, key)
            if name in TOOL_APIS:
                # Identical.
                expected.append(line + kafka_range)
                actual.append(line + lds_range)
            elif name in NARROWER_APIS:
                # Within Kafka's range and usable by the 4.4 client at lds-host's highest version.
                kafka_v, lds_v = parse_range(kafka_range), parse_range(lds_range)
                ok = (kafka_v is not None and lds_v is not None and kafka_v[0] <= lds_v[0]
                      and lds_v[1] <= kafka_v[1] and lds_v[2] == lds_v[1])
                rule = "within %s, usable at its highest version" % kafka_range.split(" [")[0]
                expected.append(line + rule)
                actual.append(line + (rule if ok else lds_range))
            else:
                expected.append(line + "UNSUPPORTED")
                actual.append(line + lds_range)
        with self.subTest(part="version ranges by rule (b)"):
            self.assert_same_text("BrokerApiVersionsCommand: version ranges by rule (b)",
                                  "\n".join(expected) + "\n", "\n".join(actual) + "\n", results)

    def test_3_configs_describe_all(self):
        results, kafka_text, lds_text = self.compare_configs(
            "ConfigCommand --entity-type brokers --entity-name 1 --describe --all", "--all")
        for side, result in zip((self.kafka, self.lds), results):
            self.assertEqual(result.returncode, 0, "%s: %s" % (side.name, result.stderr))
        common = config_keys(lds_text)
        self.assertTrue(common, "no key of lds-host's is one of Kafka's:\n" + results[1].stdout)
        lds_only = sorted(set(config_keys(results[1].stdout))
                          - set(self.all_config_keys(self.kafka)))
        sys.stderr.write("  %d keys compared (%s); lds-host only: %s\n" % (
            len(common), ", ".join(common), ", ".join(lds_only)))

    def test_4_cordon_a_dir_then_uncordon_it(self):
        alter = ("ConfigCommand", "--entity-type", "brokers", "--entity-name", BROKER_ID,
                 "--alter")
        self.run_and_compare("ConfigCommand --alter --add-config cordoned.log.dirs=<log-dir-2>",
                             *alter, "--add-config", "cordoned.log.dirs={dir:2}")
        self.compare_configs("ConfigCommand --describe (cordoned)")
        # A cordoned dir takes no new partition, on either broker.
        self.create_topic("beside-cordon", 4)
        counts = (self.kafka.counts(["beside-cordon"]), self.lds.counts(["beside-cordon"]))
        with self.subTest(check="the cordoned dir"):
            self.assertEqual(counts[0][2], 0, "Kafka placed in its cordoned dir: %s" % (counts[0],))
            self.assertEqual(counts[1], counts[0], "partitions per dir of beside-cordon (Kafka, "
                             "lds-host)")
        self.run_and_compare("ConfigCommand --alter --delete-config cordoned.log.dirs",
                             *alter, "--delete-config", "cordoned.log.dirs")
        self.compare_configs("ConfigCommand --describe (uncordoned)")
        self.run_and_compare("TopicCommand --delete --topic beside-cordon", "TopicCommand",
                             "--delete", "--topic", "beside-cordon")
        self.wait_gone(["beside-cordon"])

    def test_5_topics_create_describe_delete(self):
        self.create_topic("described", 3)
        self.run_and_compare("TopicCommand --describe --topic described", "TopicCommand",
                             "--describe", "--topic", "described")
        self.run_and_compare("LogDirsCommand --describe --topic-list described",
                             "LogDirsCommand", "--describe", "--topic-list", "described",
                             extra=(normalise_sizes, sort_log_dirs, hide_partition_numbers))
        self.run_and_compare("LogDirsCommand --describe", "LogDirsCommand", "--describe",
                             extra=(normalise_sizes, sort_log_dirs, hide_partition_numbers))
        self.run_and_compare("TopicCommand --delete --topic described", "TopicCommand",
                             "--delete", "--topic", "described")
        self.wait_gone(["described"])
        self.run_and_compare("TopicCommand --list", "TopicCommand", "--list")
        self.run_and_compare("TopicCommand --describe --topic described (deleted)",
                             "TopicCommand", "--describe", "--topic", "described")

    def test_6_produce_consume_then_move_between_dirs(self):
        self.create_topic("moved", 1)
        lines = "".join("key-%04d\tvalue-%04d\n" % (i, i) for i in range(RECORDS))
        self.run_and_compare(
            "ConsoleProducer of %d keyed records" % RECORDS, "ConsoleProducer", "--topic",
            "moved", "--reader-property", "parse.key=true", input=lines)
        consume = ("ConsoleConsumer", "--topic", "moved", "--partition", 0, "--offset", "earliest",
                   "--max-messages", RECORDS, "--formatter-property", "print.key=true",
                   "--timeout-ms", 30000)
        results = self.run_and_compare("ConsoleConsumer --partition 0 --offset earliest",
                                       *consume, consumer_total=True)
        self.assertEqual(results[0].stdout, lines, "Kafka gave back other records")
        results = self.run_and_compare(
            "LogDirsCommand --describe --topic-list moved", "LogDirsCommand", "--describe",
            "--topic-list", "moved", extra=(normalise_sizes, sort_log_dirs))
        for side, result in zip((self.kafka, self.lds), results):
            with self.subTest(check="%s: the size LogDirsCommand reports" % side.name):
                self.assertEqual(reported_sizes(result.stdout), side.sizes_on_disk("moved"),
                                 "%s: LogDirsCommand's sizes against the segments on disk"
                                 % side.name)

        # Move moved-0 to the next log dir, throttled, with Kafka's reassignment tool.
        source = {}
        for side in (self.kafka, self.lds):
            positions = side.partition_dirs("moved").get(0, [])
            self.assertEqual(len(positions), 1, "%s: moved-0 in dirs %s" % (side.name, positions))
            source[side.name] = positions[0]
        self.assertEqual(source[self.lds.name], source[self.kafka.name], "moved-0's log dir")
        target = (source[self.kafka.name] + 1) % len(DIR_SIZES_MIB)
        for side in (self.kafka, self.lds):
            self.write_file(side, "move.json", json.dumps({"version": 1, "partitions": [
                {"topic": "moved", "partition": 0, "replicas": [BROKER_ID],
                 "log_dirs": [side.log_dirs[target]]}]}))
        self.run_and_compare(
            "ReassignPartitionsCommand --execute --replica-alter-log-dirs-throttle %d" % THROTTLE,
            "ReassignPartitionsCommand", "--execute", "--reassignment-json-file",
            "{file:move.json}", "--replica-alter-log-dirs-throttle", THROTTLE)
        self.compare_configs("ConfigCommand --describe (while the move is throttled)")
        # --verify until it reports the move complete (and clears the throttle): the text of
        # that run is compared; the runs before it (in progress) depend on timing.
        done = {}
        for side in (self.kafka, self.lds):
            def completed(side=side):
                result = self.run_tool(side, "ReassignPartitionsCommand", "--verify",
                                       "--reassignment-json-file", "{file:move.json}")
                if "Reassignment of replica moved-0-%d completed successfully." % BROKER_ID \
                        in result.stdout or result.returncode != 0:
                    done[side.name] = result
                    return True
                return False
            real_kafka.wait_for("%s: --verify to report the move complete" % side.name, completed,
                                timeout=90, interval=0.5)
        self.compare("ReassignPartitionsCommand --verify (complete)",
                     (done[self.kafka.name], done[self.lds.name]))
        for side in (self.kafka, self.lds):
            self.assertIn("Clearing broker-level throttles on broker %d" % BROKER_ID,
                          done[side.name].stdout, side.name)
        results, kafka_text, lds_text = self.compare_configs(
            "ConfigCommand --describe (after --verify)")
        for side, text in ((self.kafka, kafka_text), (self.lds, lds_text)):
            with self.subTest(check="%s removed the throttle" % side.name):
                self.assertNotIn("replica.alter.log.dirs.io.max.bytes.per.second", text,
                                 "%s: the throttle was not removed" % side.name)
        for side in (self.kafka, self.lds):
            with self.subTest(check="%s moved moved-0 on disk" % side.name):
                self.assertEqual(side.partition_dirs("moved"), {0: [target]},
                                 "%s: moved-0 is not (only) in %s" % (side.name,
                                                                     side.log_dirs[target]))
        # Every record again, now read from the new dir.
        results = self.run_and_compare("ConsoleConsumer --partition 0 --offset earliest "
                                       "(after the move)", *consume, consumer_total=True)
        for side, result in zip((self.kafka, self.lds), results):
            self.assertEqual(result.stdout, lines, "%s gave back other records" % side.name)

    def test_7_segment_indexes_and_list_offsets_by_time(self):
        # The same records, one batch each, with CreateTimes that go back and forth, sent to both
        # by the same client: Kafka's DumpLogSegments prints the same offset and time indexes for
        # both logs, and GetOffsetShell --time finds the same offsets.
        from confluent_kafka import Producer  # Debian's python3-confluent-kafka
        self.create_topic("timed", 1)
        base = (int(time.time()) - 3600) * 1000
        times = [base + (i * 7919) % 600000 for i in range(TIMED_RECORDS)]
        for side in (self.kafka, self.lds):
            producer = Producer({"bootstrap.servers": side.bootstrap, "linger.ms": 0,
                                 "enable.idempotence": False, "acks": "all"})
            for i, t in enumerate(times):
                producer.produce("timed", key=b"k%04d" % i, value=b"%04d" % i + b"v" * 200,
                                 partition=0, timestamp=t)
                self.assertEqual(producer.flush(30), 0, side.name)  # one batch per record
        for suffix in (".index", ".timeindex"):
            results = []
            for side in (self.kafka, self.lds):
                (position,) = side.partition_dirs("timed")[0]
                path = os.path.join(side.log_dirs[position], "timed-0",
                                    "00000000000000000000" + suffix)
                self.assertTrue(os.path.exists(path), "%s has no %s" % (side.name, path))
                results.append(self.cluster.tool("DumpLogSegments", "--files", path,
                                                 check=False))
            kafka_text, lds_text = self.compare("DumpLogSegments --files <timed-0>" + suffix,
                                                results)
            self.assertIn("offset: ", lds_text)
            self.assertNotIn("Mismatch", lds_text)
        for when in [-1, -2, base - 1, base, base + 1, base + 300000, base + 599999,
                     base + 600000] + times[::97]:
            self.run_and_compare("GetOffsetShell --topic timed --time %d" % when,
                                 "GetOffsetShell", "--topic", "timed", "--time", when)


if __name__ == "__main__":
    suite_main.run("kafka_tools_side_by_side_test", skip=skip_reason())
