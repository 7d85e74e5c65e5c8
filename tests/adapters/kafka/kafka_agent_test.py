"""kafka_agent_test.py: Apache Kafka 4.4.0 places its replicas with the project's strategies.

A KRaft cluster of three nodes (node 1 broker and controller), each broker with three tmpfs log dirs
of 64, 128 and 256 MiB and lds-kafka-agent.jar attached, is driven only with Kafka's own tools
(TopicCommand, ConfigCommand, LogDirsCommand, JmxTool, ProducerPerformance, ConsoleConsumer). One
cluster serves the whole suite; the tests run in their numbered order, each starting from the
state the one before left.

Environment (set by ctest): LDS_KAFKA_AGENT_JAR, LDS_PLUGIN_DIR (the build's strategies),
LDS_BAD_PLUGIN_DIR (tests/bad_plugins' broken ones), LDS_STATEFUL_PLUGIN_DIR (tests/abi's
stateful ABI 1.2 ones: recent_placements), LDS_PROBE_PLUGIN_DIR (this suite's placement_probe).
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "support"))
import real_kafka  # noqa: E402
import suite_main  # noqa: E402

AGENT_JAR = os.environ.get("LDS_KAFKA_AGENT_JAR", "")
PLUGIN_DIR = os.environ.get("LDS_PLUGIN_DIR", "")
BAD_PLUGIN_DIR = os.environ.get("LDS_BAD_PLUGIN_DIR", "")
STATEFUL_PLUGIN_DIR = os.environ.get("LDS_STATEFUL_PLUGIN_DIR", "")
PROBE_PLUGIN_DIR = os.environ.get("LDS_PROBE_PLUGIN_DIR", "")
# The Prometheus JMX exporter (install-deps.sh puts it in the Maven repository) and the project's
# rules for the agent's MBeans.
JMX_EXPORTER_JAR = os.environ.get("LDS_JMX_EXPORTER_JAR", "")
JMX_EXPORTER_RULES = os.path.join(os.path.dirname(__file__), "..", "..", "..", "conf",
                                  "jmx-exporter.yml")
SAMPLE = re.compile(r'^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$')
LABEL = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')
AGENT_LOGGER = "org.logdirstrategy.kafka.LogDirectorySelector"
MBEAN = "kafka.log:type=LogDirectorySelector"
CORDONED_COUNT = "kafka.log:type=LogManager,name=CordonedLogDirectoryCount"
PLACED = re.compile(r"Placed (\S+)-(\d+) -> (\S+) \(strategy (\w+), generation (\d+)\)")


def journal(path, kind):
    """The lines of one kind a test strategy (tests/abi's recent_placements, placement_probe.c)
    appended to its journal, oldest first, each as its words after the kind: "rank" gives
    [purpose, "topic-partition"], "placed" ["topic-partition", dir, ...]."""
    if not os.path.exists(path):
        return []
    with open(path) as f:
        lines = [line.split(" ") for line in f.read().splitlines()]
    return [words[1:] for words in lines if words[0] == kind]


def journal_of(path, kind, count):
    """journal(path, kind) once it holds at least count lines: the strategy hears of a log after
    Kafka has made its folder, so a test that saw the folder waits for the line."""
    real_kafka.wait_for("%d %s lines in %s" % (count, kind, path),
                        lambda: len(journal(path, kind)) >= count)
    return journal(path, kind)


def scrape(port):
    """{(name, ((label, value), ...)): value} of the samples an exporter answers at /metrics."""
    with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=30) as reply:
        text = reply.read().decode()
    samples = {}
    for line in text.splitlines():
        m = SAMPLE.match(line)
        if m and not line.startswith("#"):
            labels = tuple(sorted(LABEL.findall(m.group(2) or "")))
            samples[(m.group(1), labels)] = float(m.group(3))
    return samples, text


def skip_reason(version):
    if not os.path.isfile(AGENT_JAR):
        return "the Kafka agent was not built (LDS_KAFKA_AGENT_JAR=%r)" % AGENT_JAR
    return real_kafka.skip_reason(version)




class AgentCluster:
    """The test's view of a cluster with the agent: tools, placements and the MBean."""

    def __init__(self, cluster):
        self.cluster = cluster

    def alter_broker_config(self, entity, add=None, delete=None):
        """ConfigCommand --alter for broker `entity` (an id, or None for --entity-default)."""
        args = ["--bootstrap-server", self.cluster.bootstrap, "--entity-type", "brokers"]
        args += ["--entity-default"] if entity is None else ["--entity-name", str(entity)]
        args += ["--alter"]
        if add:
            args += ["--add-config", ",".join("%s=%s" % kv for kv in add.items())]
        if delete:
            args += ["--delete-config", ",".join(delete)]
        self.cluster.tool("ConfigCommand", *args)

    def create_topic(self, topic, partitions, replication=3):
        self.cluster.tool("TopicCommand", "--bootstrap-server", self.cluster.bootstrap, "--create",
                          "--topic", topic, "--partitions", str(partitions),
                          "--replication-factor", str(replication))
        expected = partitions * replication
        real_kafka.wait_for("%d replicas of %s on disk" % (expected, topic),
                            lambda: self.replica_count(topic) == expected)

    def replica_count(self, topic):
        total = 0
        for broker in self.cluster.broker_ids():
            for d in self.cluster.log_dirs(broker):
                total += sum(1 for name in os.listdir(d) if name.rpartition("-")[0] == topic)
        return total

    def counts(self, topic):
        """{broker: [replicas of topic in each log dir, in 64/128/256 MiB order]}, as
        LogDirsCommand --describe reports them."""
        described = real_kafka.describe_log_dirs(self.cluster, topics=[topic])
        out = {}
        for broker in self.cluster.broker_ids():
            dirs = described.get(broker, {})
            out[broker] = [sum(1 for p in dirs.get(d, []) if p.rpartition("-")[0] == topic)
                           for d in self.cluster.log_dirs(broker)]
        return out

    def placements(self, broker, topic):
        """[(partition, dir, strategy, generation)] the agent logged for topic on broker."""
        return [(int(m.group(2)), m.group(3), m.group(4), int(m.group(5)))
                for m in PLACED.finditer(self.cluster.server_log(broker)) if m.group(1) == topic]

    def partitions_on_disk(self, broker):
        """{log dir: partition folders in it}, as Kafka's own rule counts them."""
        return {d: sum(1 for n in os.listdir(d) if os.path.isdir(os.path.join(d, n)))
                for d in self.cluster.log_dirs(broker)}

    def created_in(self, broker, topic):
        """[log dir] of each log of `topic` Kafka created on `broker`, in creation order."""
        pattern = re.compile(r"Created log for partition %s-\d+ in (\S+)/%s-\d+ " %
                             (re.escape(topic), re.escape(topic)))
        return [m.group(1) for m in pattern.finditer(self.cluster.server_log(broker))]

    def alter_broker_loggers(self, broker, levels):
        """ConfigCommand --entity-type broker-loggers: {logger name: level} on `broker`."""
        self.cluster.tool("ConfigCommand", "--bootstrap-server", self.cluster.bootstrap,
                          "--entity-type", "broker-loggers", "--entity-name", str(broker),
                          "--alter", "--add-config",
                          ",".join("%s=%s" % kv for kv in levels.items()))

    def reassign(self, partitions, workdir):
        """ReassignPartitionsCommand --execute of [{topic, partition, replicas, log_dirs}]."""
        path = os.path.join(workdir, "reassignment-%d.json" % time.monotonic_ns())
        with open(path, "w") as f:
            json.dump({"version": 1, "partitions": partitions}, f)
        self.cluster.tool("ReassignPartitionsCommand", "--bootstrap-server",
                          self.cluster.bootstrap, "--execute", "--reassignment-json-file", path)

    def where(self, broker, topic):
        """{"topic-partition": log dir} of `topic`'s replicas on `broker`, from LogDirsCommand."""
        described = real_kafka.describe_log_dirs(self.cluster, topics=[topic], brokers=[broker])
        return {p: d for d, partitions in described.get(broker, {}).items() for p in partitions}

    def folders(self, broker, topic_partition):
        """[(log dir, folder)] of `topic_partition`'s log and future log folders on `broker`
        (not those renamed for deletion)."""
        return [(d, name) for d in self.cluster.log_dirs(broker) for name in os.listdir(d)
                if name == topic_partition
                or (name.startswith(topic_partition + ".") and name.endswith("-future"))]

    def start_with_strategy(self, broker, strategy, plugin_dir):
        """Starts the stopped `broker` with `strategy` from `plugin_dir` in its server.properties,
        so that the agent loads it as the broker starts, before Kafka attaches its logs."""
        path = self.cluster.server_properties(broker)
        with open(path) as f:
            props = f.read()
        props = re.sub(r"(?m)^log\.directory\.select\.strategy=.*$",
                       "log.directory.select.strategy=" + strategy, props)
        props = re.sub(r"(?m)^log\.directory\.select\.plugin\.dir=.*$",
                       "log.directory.select.plugin.dir=" + plugin_dir, props)
        with open(path, "w") as f:
            f.write(props)
        before = self.swaps_logged(broker, strategy)
        self.cluster.start_broker(broker)
        if self.swaps_logged(broker, strategy) <= before:
            raise AssertionError("broker %d started without loading %s:\n%s"
                                 % (broker, strategy, self.cluster.log_tail(broker)))

    def swaps_logged(self, broker, strategy):
        return self.cluster.server_log(broker).count(
            "Log directory selection: strategy %s " % strategy)

    def wait_swapped(self, strategy, brokers=None, before=None):
        """Waits until each broker's log names a load of `strategy` after the `before` counts."""
        brokers = brokers or self.cluster.broker_ids()
        before = before or {}
        for b in brokers:
            try:
                real_kafka.wait_for("broker %d to load %s" % (b, strategy),
                                    lambda b=b: self.swaps_logged(b, strategy) > before.get(b, 0))
            except AssertionError as e:
                lines = [line for line in self.cluster.server_log(b).splitlines()
                         if "logdirstrategy" in line or "Reconfigur" in line or "ERROR" in line]
                raise AssertionError("%s; broker %d logged:\n%s" % (e, b, "\n".join(lines[-30:])))

    def jmx(self, broker, object_name):
        """The attributes of MBean `object_name` on `broker`, read with Kafka's JmxTool."""
        result = self.cluster.tool(
            "JmxTool", "--jmx-url", self.cluster.jmx_url(broker), "--object-name", object_name,
            "--one-time", "true", "--report-format", "properties")
        attributes = {}
        prefix = object_name + ":"
        for line in result.stdout.splitlines():
            if line.startswith(prefix):
                name, _, value = line[len(prefix):].partition("=")
                attributes[name] = value.strip()
        return attributes

    def mbean(self, broker):
        """The agent's MBean on `broker`."""
        attributes = self.jmx(broker, MBEAN)
        if not attributes:
            raise AssertionError("JmxTool found no %s on broker %d" % (MBEAN, broker))
        return attributes


@unittest.skipIf(skip_reason("4.4.0"), skip_reason("4.4.0"))
class KafkaAgentOn44Test(unittest.TestCase):
    """Scenarios 1-5 of the agent on a three-node Kafka 4.4.0 cluster."""

    @classmethod
    def setUpClass(cls):
        # Each broker's test strategies write their journals here; their options are in
        # server.properties from the start, so that Kafka hands every change of them to the agent.
        cls.journals = tempfile.mkdtemp(prefix="lds-agent-journals-")
        broker_props = {}
        for b in (1, 2, 3):
            broker_props[b] = {
                "log.directory.select.recent_placements.journal": cls.journal_path("recent", b),
                "log.directory.select.placement_probe.journal": cls.journal_path("probe", b),
                "log.directory.select.placement_probe.rank.fails": "true",
                "log.directory.select.placement_probe.placed.sleep.ms": "0"}
        # Broker 1 also runs the Prometheus JMX exporter with conf/jmx-exporter.yml (test 9z).
        cls.exporter_port = real_kafka.free_port()
        exporter = {}
        if os.path.isfile(JMX_EXPORTER_JAR):
            exporter[1] = ["-javaagent:%s=127.0.0.1:%d:%s" % (
                JMX_EXPORTER_JAR, cls.exporter_port, os.path.abspath(JMX_EXPORTER_RULES))]
        cls.cluster = real_kafka.KafkaCluster(
            version="4.4.0", brokers=3, dir_sizes_mib=(64, 128, 256),
            jvm_opts=["-javaagent:%s" % AGENT_JAR], broker_jvm_opts=exporter,
            extra_props={"log.directory.select.strategy": "partition",
                         "log.directory.select.plugin.dir": PLUGIN_DIR},
            broker_props=broker_props)
        try:
            cls.cluster.start()
        except BaseException:
            shutil.rmtree(cls.journals, ignore_errors=True)
            raise
        cls.agent = AgentCluster(cls.cluster)

    @classmethod
    def tearDownClass(cls):
        try:
            cls.cluster.stop()
        finally:
            shutil.rmtree(cls.journals, ignore_errors=True)

    @classmethod
    def journal_path(cls, strategy, broker):
        return os.path.join(cls.journals, "%s-%d.txt" % (strategy, broker))

    def tail(self, broker):
        return self.cluster.log_tail(broker)

    def test_1_partition_strategy_reproduces_kafkas_own_rule(self):
        self.agent.create_topic("kafka_rule", 60)
        for broker, counts in self.agent.counts("kafka_rule").items():
            # Kafka's testLeastLoadedAssignment: fewest partitions first, so equal counts +-1.
            self.assertEqual(sum(counts), 60, counts)
            self.assertLessEqual(max(counts) - min(counts), 1, "broker %d: %s" % (broker, counts))
            self.assertEqual(len(self.agent.placements(broker, "kafka_rule")), 60, self.tail(broker))
        attributes = self.agent.mbean(1)
        self.assertEqual(attributes["Strategy"], "partition", attributes)
        self.assertEqual(attributes["Generation"], "1", attributes)

    def test_2_size_via_entity_default_fills_the_biggest_dir_most(self):
        before = {b: self.agent.swaps_logged(b, "size") for b in self.cluster.broker_ids()}
        generation = {b: int(self.agent.mbean(b)["Generation"]) for b in self.cluster.broker_ids()}
        self.agent.alter_broker_config(None, add={"log.directory.select.strategy": "size"})
        self.agent.wait_swapped("size", before=before)
        self.agent.create_topic("sized", 60)
        for broker, counts in self.agent.counts("sized").items():
            small, medium, big = counts
            self.assertEqual(sum(counts), 60, counts)
            self.assertGreater(big, medium, "broker %d: %s" % (broker, counts))
            self.assertGreaterEqual(medium, small, "broker %d: %s" % (broker, counts))
            self.assertGreater(max(counts) - min(counts), 1,
                               "broker %d placed like Kafka's own rule: %s" % (broker, counts))
            placed = self.agent.placements(broker, "sized")
            self.assertEqual({p[2] for p in placed}, {"size"}, placed)
            attributes = self.agent.mbean(broker)
            self.assertEqual(attributes["Strategy"], "size", attributes)
            self.assertGreater(int(attributes["Generation"]), generation[broker], attributes)
            self.assertEqual(attributes["Swaps"], "1", attributes)
            self.assertIn("sized-", attributes["LastPlacement"], attributes)
            self.assertIn("swapped from strategy partition", self.cluster.server_log(broker))

    def test_2b_a_full_dir_takes_no_new_replica(self):
        # Each broker's 64 MiB dir filled to its last 256 KiB, beside Kafka's logs: size ranks it
        # last, and the next topic lands on the other two.
        fillers = []
        try:
            for broker in self.cluster.broker_ids():
                path = os.path.join(self.cluster.log_dirs(broker)[0], "filler")
                fillers.append(path)
                st = os.statvfs(os.path.dirname(path))
                left = st.f_bavail * st.f_frsize - 256 * 1024
                with open(path, "wb") as f:
                    chunk = b"\0" * (1 << 20)
                    while left > 0:
                        left -= f.write(chunk[:min(len(chunk), left)])
            self.agent.create_topic("beside_full", 30)
            for broker, counts in self.agent.counts("beside_full").items():
                self.assertEqual(counts[0], 0, "broker %d: %s" % (broker, counts))
                self.assertEqual(sum(counts), 30, counts)
        finally:
            for path in fillers:
                os.remove(path)

    def test_3_per_broker_swap_with_entity_name(self):
        before = self.agent.swaps_logged(2, "partition")
        self.agent.alter_broker_config(2, add={"log.directory.select.strategy": "partition"})
        self.agent.wait_swapped("partition", brokers=[2], before={2: before})
        before = self.agent.swaps_logged(2, "size")
        self.agent.create_topic("per_broker", 30)
        self.assertEqual({p[2] for p in self.agent.placements(2, "per_broker")}, {"partition"})
        for broker in (1, 3):
            self.assertEqual({p[2] for p in self.agent.placements(broker, "per_broker")}, {"size"})
        self.agent.alter_broker_config(2, delete=["log.directory.select.strategy"])
        self.agent.wait_swapped("size", brokers=[2], before={2: before})

    def test_4_no_replica_lands_on_a_cordoned_dir(self):
        # size would put most new replicas on the 256 MiB dir; cordon it on every broker.
        for broker in self.cluster.broker_ids():
            self.agent.alter_broker_config(
                broker, add={"cordoned.log.dirs": self.cluster.log_dirs(broker)[2]})
        for broker in self.cluster.broker_ids():
            real_kafka.wait_for("broker %d to cordon a dir" % broker,
                                lambda b=broker: self.agent.jmx(b, CORDONED_COUNT).get("Value") == "1",
                                interval=0)
        self.agent.create_topic("cordoned_size", 30)
        # A strategy that does not declare LDS_CAP_HONORS_CORDON: the agent enforces cordons.
        before = {b: self.agent.swaps_logged(b, "bad_valid") for b in self.cluster.broker_ids()}
        self.agent.alter_broker_config(None, add={"log.directory.select.plugin.dir": BAD_PLUGIN_DIR,
                                                 "log.directory.select.strategy": "bad_valid"})
        self.agent.wait_swapped("bad_valid", before=before)
        self.agent.create_topic("cordoned_valid", 30)
        for topic in ("cordoned_size", "cordoned_valid"):
            for broker, counts in self.agent.counts(topic).items():
                self.assertEqual(counts[2], 0, "%s on broker %d: %s" % (topic, broker, counts))
                self.assertEqual(sum(counts), 30, counts)
        for broker in self.cluster.broker_ids():
            self.agent.alter_broker_config(broker, delete=["cordoned.log.dirs"])
        before = {b: self.agent.swaps_logged(b, "size") for b in self.cluster.broker_ids()}
        self.agent.alter_broker_config(None, add={"log.directory.select.plugin.dir": PLUGIN_DIR,
                                                 "log.directory.select.strategy": "size"})
        self.agent.wait_swapped("size", before=before)

    def test_5_an_invalid_ranking_falls_back_to_kafkas_order(self):
        before = {b: int(self.agent.mbean(b)["Fallbacks"]) for b in self.cluster.broker_ids()}
        swaps = {b: self.agent.swaps_logged(b, "bad_rank_duplicate") for b in self.cluster.broker_ids()}
        self.agent.alter_broker_config(None, add={"log.directory.select.plugin.dir": BAD_PLUGIN_DIR,
                                                 "log.directory.select.strategy": "bad_rank_duplicate"})
        self.agent.wait_swapped("bad_rank_duplicate", before=swaps)
        counts = {b: self.agent.partitions_on_disk(b) for b in self.cluster.broker_ids()}
        self.agent.create_topic("fallback", 12)
        for broker in self.cluster.broker_ids():
            self.assertEqual(self.agent.placements(broker, "fallback"), [])
            # Kafka's own order for each: the dir with the fewest partitions, ties in log.dirs order.
            dirs = self.cluster.log_dirs(broker)
            for chosen in self.agent.created_in(broker, "fallback"):
                fewest = min(dirs, key=lambda d: (counts[broker][d], dirs.index(d)))
                self.assertEqual(chosen, fewest, "broker %d: %s" % (broker, counts[broker]))
                counts[broker][chosen] += 1
            self.assertEqual(len(self.agent.created_in(broker, "fallback")), 12)
            attributes = self.agent.mbean(broker)
            self.assertGreaterEqual(int(attributes["Fallbacks"]) - before[broker], 12, attributes)
            self.assertIn("returned an invalid ranking", self.cluster.server_log(broker))
        # The broker stays healthy: a produce to the new topic is acknowledged by all replicas.
        self.cluster.tool("ProducerPerformance", "--topic", "fallback", "--num-records", "100",
                          "--record-size", "100", "--throughput", "-1", "--producer-props",
                          "bootstrap.servers=%s" % self.cluster.bootstrap, "acks=all")

    def test_6_a_hung_ranking_times_out_and_a_failed_load_keeps_the_strategy(self):
        swaps = {b: self.agent.swaps_logged(b, "bad_rank_hangs") for b in self.cluster.broker_ids()}
        self.agent.alter_broker_config(None, add={"log.directory.select.strategy": "bad_rank_hangs",
                                                 "log.directory.select.plugin.rank.timeout.ms": "500"})
        self.agent.wait_swapped("bad_rank_hangs", before=swaps)
        began = time.monotonic()
        self.agent.create_topic("hang", 6)
        self.assertLess(time.monotonic() - began, 60)
        for broker in self.cluster.broker_ids():
            log = self.cluster.server_log(broker)
            self.assertIn("did not answer within 500 ms", log)
            self.assertIn("is still inside an earlier call", log)
            self.assertEqual(self.agent.placements(broker, "hang"), [])
        # A strategy that fails to load keeps the one before it, with an ERROR naming the file.
        self.agent.alter_broker_config(None, add={"log.directory.select.strategy": "bad_create_fails"})
        for broker in self.cluster.broker_ids():
            real_kafka.wait_for("broker %d to refuse bad_create_fails" % broker,
                                lambda b=broker: "Cannot load log directory strategy bad_create_fails"
                                in self.cluster.server_log(b))
            self.assertIn("liblds_bad_create_fails.so", self.cluster.server_log(broker))
            self.assertEqual(self.agent.mbean(broker)["Strategy"], "bad_rank_hangs")
        # A value no one can parse names its key and value, and the default applies.
        self.agent.alter_broker_config(None, add={"log.directory.select.plugin.rank.timeout.ms": "abc"})
        for broker in self.cluster.broker_ids():
            real_kafka.wait_for("broker %d to refuse rank.timeout.ms=abc" % broker,
                                lambda b=broker: "log.directory.select.plugin.rank.timeout.ms=abc is not a "
                                "positive number of milliseconds; using 1000." in self.cluster.server_log(b))
        before = {b: self.agent.swaps_logged(b, "size") for b in self.cluster.broker_ids()}
        self.agent.alter_broker_config(None, add={"log.directory.select.plugin.dir": PLUGIN_DIR,
                                                 "log.directory.select.strategy": "size"},
                                       delete=["log.directory.select.plugin.rank.timeout.ms"])
        self.agent.wait_swapped("size", before=before)

    def test_7_nothing_is_lost_while_strategies_swap(self):
        records = 60000
        self.agent.create_topic("traffic", 6)
        producer = subprocess.Popen(
            [self.cluster.java, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx256m",
             "-cp", self.cluster.classpath, real_kafka.tool_class("4.4.0", "ProducerPerformance"),
             "--topic", "traffic", "--num-records", str(records), "--record-size", "200",
             "--throughput", "6000", "--producer-props",
             "bootstrap.servers=%s" % self.cluster.bootstrap, "acks=all"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            for i, strategy in enumerate(["partition", "size", "partition", "size"]):
                self.agent.alter_broker_config(None, add={"log.directory.select.strategy": strategy})
                # The previous topic is deleted while this one is placed: logs vanish under the
                # agent's walk over allLogs() and under its reservations.
                deleting = None
                if i > 0:
                    deleting = subprocess.Popen(
                        [self.cluster.java, "-XX:TieredStopAtLevel=1", "-cp", self.cluster.classpath,
                         real_kafka.tool_class("4.4.0", "TopicCommand"), "--bootstrap-server",
                         self.cluster.bootstrap, "--delete", "--topic", "during_swap_%d" % (i - 1)],
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                try:
                    self.agent.create_topic("during_swap_%d" % i, 6)
                finally:
                    if deleting is not None:
                        self.assertEqual(deleting.wait(timeout=120), 0)
            out, err = producer.communicate(timeout=180)
        finally:
            if producer.poll() is None:
                producer.kill()
                producer.wait()
        self.assertEqual(producer.returncode, 0, out + err)
        self.assertIn("%d records sent" % records, out)
        consumed = self.cluster.tool(
            "ConsoleConsumer", "--bootstrap-server", self.cluster.bootstrap, "--topic", "traffic",
            "--from-beginning", "--max-messages", str(records), "--timeout-ms", "60000",
            timeout=180)
        self.assertEqual(len(consumed.stdout.splitlines()), records, consumed.stderr[-2000:])
        for broker in self.cluster.broker_ids():
            self.assertNotIn("Cannot rank the log dirs", self.cluster.server_log(broker))

    def test_8_a_stateful_strategy_learns_every_creation_through_placed(self):
        # recent_placements (tests/abi, ABI 1.2) ranks the dirs by the placements placed told it
        # of, fewest first, and writes each placed call into its broker's journal.
        brokers = self.cluster.broker_ids()
        self.agent.alter_broker_loggers(1, {AGENT_LOGGER: "DEBUG"})
        before = {b: self.agent.swaps_logged(b, "recent_placements") for b in brokers}
        self.agent.alter_broker_config(None, add={
            "log.directory.select.plugin.dir": STATEFUL_PLUGIN_DIR,
            "log.directory.select.strategy": "recent_placements"})
        self.agent.wait_swapped("recent_placements", before=before)
        self.agent.create_topic("learned", 12)
        described = real_kafka.describe_log_dirs(self.cluster, topics=["learned"])
        for broker in brokers:
            where = {p: d for d, ps in described[broker].items() for p in ps}
            told = journal_of(self.journal_path("recent", broker), "placed", 12)
            self.assertEqual(len(told), 12, told)
            self.assertEqual(dict(told), where, told)
            # The load's dry run validates; each creation's rank is a placement.
            self.assertEqual(sorted(journal(self.journal_path("recent", broker), "rank")),
                             sorted([["VALIDATE", "__lds_dry_run-0"]] +
                                    [["PLACE", "learned-%d" % p] for p in range(12)]))
            # Told of each, it spread them: without placed, every rank would name the first dir.
            self.assertEqual([len(described[broker].get(d, []))
                              for d in self.cluster.log_dirs(broker)], [4, 4, 4], where)
        self.assertRegex(self.cluster.server_log(1),
                         r"Scores of learned-\d+ by strategy recent_placements \(placements seen\): "
                         r"\S+ \d+\.0, \S+ \d+\.0, \S+ \d+\.0; created in ")

        # moved-0, created on broker 1, then moved to another of its dirs by
        # kafka-reassign-partitions: Kafka makes a future log there and swaps it in. That is no
        # new partition: the strategy is told of the creation only.
        self.cluster.tool("TopicCommand", "--bootstrap-server", self.cluster.bootstrap, "--create",
                          "--topic", "moved", "--replica-assignment", "1")
        real_kafka.wait_for("moved-0 on broker 1", lambda: self.agent.folders(1, "moved-0"))
        (source, _), = self.agent.folders(1, "moved-0")
        dirs = self.cluster.log_dirs(1)
        target = dirs[(dirs.index(source) + 1) % len(dirs)]
        self.agent.reassign([{"topic": "moved", "partition": 0, "replicas": [1],
                              "log_dirs": [target]}], self.journals)
        real_kafka.wait_for("moved-0 to move to %s" % target,
                            lambda: self.agent.folders(1, "moved-0") == [(target, "moved-0")])
        self.assertEqual(journal_of(self.journal_path("recent", 1), "placed", 13)[12:],
                         [["moved-0", source]])

        # learned-0's folder on broker 3, removed while the broker is down: as it starts again
        # Kafka creates the log anew in the dir the controller has the replica in (KIP-858),
        # without a ranking. The strategy, loaded from server.properties before that, is told of
        # that dir, and of none of the logs Kafka found on disk.
        lost = [d for d, ps in described[3].items() if "learned-0" in ps][0]
        self.cluster.stop_broker(3)
        shutil.rmtree(os.path.join(lost, "learned-0"))
        self.agent.start_with_strategy(3, "recent_placements", STATEFUL_PLUGIN_DIR)
        path = self.journal_path("recent", 3)
        real_kafka.wait_for("broker 3 to tell of learned-0 again",
                            lambda: len(journal(path, "placed")) > 12)
        self.assertEqual(journal(path, "placed")[12:], [["learned-0", lost]])
        self.assertEqual(journal(path, "rank")[13:], [["VALIDATE", "__lds_dry_run-0"]])
        self.assertEqual(self.agent.created_in(3, "learned").count(lost), 5, self.tail(3))

    def test_9_ranks_are_placements_and_a_hung_placed_holds_up_no_creation(self):
        # placement_probe (placement_probe.c) writes down each rank's purpose and each placed
        # call with its dir's figures. With rank.fails=true (server.properties) it fails every
        # placement's rank: Kafka's own order decides, and placed still says where.
        brokers = self.cluster.broker_ids()
        fallbacks = {b: int(self.agent.mbean(b)["Fallbacks"]) for b in brokers}
        before = {b: self.agent.swaps_logged(b, "placement_probe") for b in brokers}
        self.agent.alter_broker_config(None, add={
            "log.directory.select.plugin.dir": PROBE_PLUGIN_DIR,
            "log.directory.select.strategy": "placement_probe"})
        self.agent.wait_swapped("placement_probe", before=before)
        hosted = real_kafka.describe_log_dirs(self.cluster)
        self.agent.create_topic("fell_back", 6)
        described = real_kafka.describe_log_dirs(self.cluster, topics=["fell_back"])
        for broker in brokers:
            path = self.journal_path("probe", broker)
            self.assertEqual(sorted(journal(path, "rank")),
                             sorted([["VALIDATE", "__lds_dry_run-0"]] +
                                    [["PLACE", "fell_back-%d" % p] for p in range(6)]))
            told = journal_of(path, "placed", 6)
            self.assertEqual({p[0]: p[1] for p in told},
                             {p: d for d, ps in described[broker].items() for p in ps}, told)
            self.assertEqual(len(told), 6, told)
            # Each dir's figures count the new log: its partitions and the topic's go up by one.
            seen = {}
            for _, dir_path, partitions, topic_partitions, _ in told:
                seen[dir_path] = seen.get(dir_path, 0) + 1
                self.assertEqual((int(partitions), int(topic_partitions)),
                                 (len(hosted[broker][dir_path]) + seen[dir_path], seen[dir_path]),
                                 told)
            self.assertEqual(self.agent.placements(broker, "fell_back"), [])
            self.assertGreaterEqual(int(self.agent.mbean(broker)["Fallbacks"]) - fallbacks[broker],
                                    6)

        # A placed that does not return: each broker gives up on it after rank.timeout.ms, and
        # the next creations go on at once, without the strategy.
        fallbacks = {b: int(self.agent.mbean(b)["Fallbacks"]) for b in brokers}
        before = {b: self.agent.swaps_logged(b, "placement_probe") for b in brokers}
        self.agent.alter_broker_config(None, add={
            "log.directory.select.placement_probe.rank.fails": "false",
            "log.directory.select.placement_probe.placed.sleep.ms": "600000",
            "log.directory.select.plugin.rank.timeout.ms": "500"})
        self.agent.wait_swapped("placement_probe", before=before)
        began = time.monotonic()
        self.agent.create_topic("slow_placed", 6)
        self.assertLess(time.monotonic() - began, 60)
        for broker in brokers:
            log = self.cluster.server_log(broker)
            self.assertRegex(log, r"did not return from placed within 500 ms for slow_placed-\d+ ")
            self.assertRegex(log, r"is still inside an earlier call; it is not told that "
                                  r"slow_placed-\d+ was created in ")
            self.assertGreaterEqual(int(self.agent.mbean(broker)["Fallbacks"]) - fallbacks[broker],
                                    6)

    def test_9z_the_jmx_exporter_reads_the_agents_figures_under_their_lds_names(self):
        if not os.path.isfile(JMX_EXPORTER_JAR):
            self.skipTest("no Prometheus JMX exporter (LDS_JMX_EXPORTER_JAR=%r); "
                          "tools/install-deps.sh fetches it" % JMX_EXPORTER_JAR)
        before = {b: self.agent.swaps_logged(b, "size") for b in self.cluster.broker_ids()}
        self.agent.alter_broker_config(None, add={"log.directory.select.plugin.dir": PLUGIN_DIR,
                                                 "log.directory.select.strategy": "size"},
                                       delete=["log.directory.select.plugin.rank.timeout.ms"])
        self.agent.wait_swapped("size", before=before)
        first, _ = scrape(self.exporter_port)
        attributes = self.agent.mbean(1)
        # The exporter's figures are the MBean's, under the names lds-host publishes.
        self.assertEqual(first[("lds_strategy_generation", ())], float(attributes["Generation"]))
        self.assertEqual(first[("lds_strategy_swaps_total", ())], float(attributes["Swaps"]))
        self.assertEqual(first[("lds_strategy_refused_swaps_total", ())],
                         float(attributes["RefusedSwaps"]))
        self.assertGreaterEqual(float(attributes["RefusedSwaps"]), 1)  # test 6's failed load
        reasons = {dict(k[1])["reason"]: v for k, v in first.items()
                   if k[0] == "lds_placement_fallbacks_total"}
        self.assertEqual(set(reasons), {"plugin_error", "invalid_ranking", "timeout",
                                        "no_eligible_dir", "agent_error"}, reasons)
        self.assertEqual(sum(reasons.values()), float(attributes["Fallbacks"]), reasons)
        self.assertGreaterEqual(reasons["invalid_ranking"], 12)  # test 5
        self.assertGreaterEqual(reasons["timeout"], 1)  # test 6
        active = [dict(k[1]) for k in first if k[0] == "lds_strategy_active"]
        self.assertEqual(active, [{"name": "size", "version": attributes["Version"]}], active)

        self.agent.create_topic("scraped", 12)
        placed = self.agent.placements(1, "scraped")
        self.assertEqual(len(placed), 12, self.tail(1))
        after, text = scrape(self.exporter_port)

        def delta(name, labels=()):
            return after.get((name, labels), 0.0) - first.get((name, labels), 0.0)

        self.assertEqual(delta("lds_placements_total", (("strategy", "size"),)), 12)
        dirs = self.cluster.log_dirs(1)
        for d in dirs:
            label = (("dir", d),)
            self.assertEqual(delta("lds_log_dir_placements_total", label),
                             sum(1 for p in placed if p[1] == d), (d, placed))
            st = os.statvfs(d)
            self.assertEqual(after[("lds_log_dir_total_bytes", label)], st.f_blocks * st.f_frsize)
            self.assertTrue(0 <= after[("lds_log_dir_fill_ratio", label)] <= 1, d)
            self.assertIn(("lds_log_dir_usable_bytes", label), after)
        # The latency: every decision counted, the buckets cumulative up to +Inf.
        count = after[("lds_placement_duration_seconds_count", ())]
        self.assertGreaterEqual(count - first[("lds_placement_duration_seconds_count", ())], 12)
        self.assertGreater(after[("lds_placement_duration_seconds_sum", ())], 0)
        buckets = sorted((float(dict(k[1])["le"]), v) for k, v in after.items()
                         if k[0] == "lds_placement_duration_seconds_cumulative")
        self.assertEqual(len(buckets), 13, buckets)
        self.assertEqual(buckets[-1], (float("inf"), count))
        self.assertEqual([v for _, v in buckets], sorted(v for _, v in buckets), buckets)
        # promtool checks the lds_ families. The exporter has no histogram type, so the latency's
        # series are gauges; promtool's only remarks are on their names, kept those of lds-host's
        # histogram so that the same queries read both.
        if shutil.which("promtool"):
            lds = "\n".join(line for line in text.splitlines()
                            if re.match(r"(# \w+ )?lds_", line)) + "\n"
            result = subprocess.run(["promtool", "check", "metrics"], input=lds, text=True,
                                    capture_output=True)
            allowed = ('lds_placement_duration_seconds_cumulative non-histogram metrics should '
                       'not have "le" label',
                       'lds_placement_duration_seconds_count non-histogram and non-summary '
                       'metrics should not have "_count" suffix',
                       'lds_placement_duration_seconds_sum non-histogram and non-summary '
                       'metrics should not have "_sum" suffix')
            remarks = [line for line in (result.stdout + result.stderr).splitlines()
                       if line.strip() and line.strip() not in allowed]
            self.assertEqual(remarks, [], lds)


@unittest.skipIf(skip_reason("4.4.0"), skip_reason("4.4.0"))
class AgentWithoutItsHookTest(unittest.TestCase):
    """A JVM whose Kafka lacks the advised method still runs: one ERROR line, Kafka's own rule."""

    def test_an_unknown_kafka_keeps_running_with_one_error_line(self):
        # Kafka 4.4's tools without the storage module and the broker: no LogManager at all.
        jars = [j for j in real_kafka.classpath("4.4.0").split(":")
                if "/kafka-storage-4" not in j and "/kafka_2.13-" not in j]
        result = subprocess.run(
            [os.path.join(real_kafka.JAVA17_HOME, "bin", "java"), "-XX:TieredStopAtLevel=1",
             "-javaagent:%s" % AGENT_JAR, "-cp", ":".join(jars),
             real_kafka.tool_class("4.4.0", "JmxTool"), "--version"],
            capture_output=True, text=True, timeout=120)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("4.4.0", result.stdout)
        errors = [line for line in (result.stdout + result.stderr).splitlines()
                  if "has no LogManager.nextLogDirs()" in line]
        self.assertEqual(len(errors), 1, result.stdout + result.stderr)
        self.assertIn("Kafka 4.4.0", errors[0])
        self.assertIn("Kafka keeps its own placement rule", errors[0])


@unittest.skipIf(skip_reason("4.3.2"), skip_reason("4.3.2"))
class KafkaAgentOn43Test(unittest.TestCase):
    """Kafka 4.3.2 through the Scala hook, on Java 25: size, then a live swap to partition, then
    a stateful strategy told of each creation, across a restart."""

    def setUp(self):
        self.journals = tempfile.mkdtemp(prefix="lds-agent-journals-")
        self.addCleanup(shutil.rmtree, self.journals, True)

    def test_size_then_live_swap_on_one_node(self):
        java25 = real_kafka.TEMURIN25_HOME if hasattr(real_kafka, "TEMURIN25_HOME") else \
            "/usr/lib/jvm/temurin-25-jdk-amd64"
        java_home = java25 if os.path.exists(os.path.join(java25, "bin", "java")) else None
        learned = os.path.join(self.journals, "recent-1.txt")
        with real_kafka.KafkaCluster(
                version="4.3.2", brokers=1, dir_sizes_mib=(64, 128, 256), java_home=java_home,
                jvm_opts=["-javaagent:%s" % AGENT_JAR],
                extra_props={"log.directory.select.strategy": "size",
                             "log.directory.select.plugin.dir": PLUGIN_DIR,
                             "log.directory.select.recent_placements.journal": learned}) as cluster:
            agent = AgentCluster(cluster)
            log = cluster.server_log(1)
            self.assertIn("advising kafka.log.LogManager.nextLogDirs() within getOrCreateLog", log)
            agent.create_topic("sized", 30, replication=1)
            small, medium, big = agent.counts("sized")[1]
            self.assertGreater(big, medium, (small, medium, big))
            self.assertGreaterEqual(medium, small, (small, medium, big))
            self.assertEqual({p[2] for p in agent.placements(1, "sized")}, {"size"})
            before = agent.swaps_logged(1, "partition")
            agent.alter_broker_config(1, add={"log.directory.select.strategy": "partition"})
            agent.wait_swapped("partition", brokers=[1], before={1: before})
            agent.create_topic("evened", 30, replication=1)
            totals = [a + b for a, b in zip(agent.counts("sized")[1], agent.counts("evened")[1])]
            self.assertLessEqual(max(totals) - min(totals), 1, totals)
            self.assertEqual(agent.mbean(1)["Generation"], "2")

            # recent_placements is told of each log getOrCreateLog creates, in its dir.
            before = agent.swaps_logged(1, "recent_placements")
            agent.alter_broker_config(1, add={"log.directory.select.plugin.dir": STATEFUL_PLUGIN_DIR,
                                              "log.directory.select.strategy": "recent_placements"})
            agent.wait_swapped("recent_placements", brokers=[1], before={1: before})
            agent.create_topic("learned", 12, replication=1)
            self.assertEqual(dict(journal_of(learned, "placed", 12)), agent.where(1, "learned"))
            self.assertEqual(len(journal(learned, "placed")), 12)
            # Restarted with it in server.properties, the agent loads it before Kafka attaches
            # the logs it has: getOrCreateLog returns each one open, and none is told as placed.
            cluster.stop_broker(1)
            agent.start_with_strategy(1, "recent_placements", STATEFUL_PLUGIN_DIR)
            agent.create_topic("after_restart", 3, replication=1)
            told = journal_of(learned, "placed", 15)
            self.assertEqual(dict(told[12:]), agent.where(1, "after_restart"), told)
            self.assertEqual(len(told), 15, told)


if __name__ == "__main__":
    reasons = {skip_reason(v) for v in ("4.4.0", "4.3.2")}
    suite_main.run("kafka_agent_test",
                   skip=None if None in reasons else "; ".join(sorted(reasons)))
