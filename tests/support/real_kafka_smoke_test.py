#!/usr/bin/python3
"""real_kafka_smoke_test.py: proves tests/support/real_kafka.py on the real thing. A three-broker
Kafka 4.4.0 cluster (JBOD: three tmpfs log dirs of 64, 128 and 256 MiB per broker) creates a topic
of 6 partitions and 3 replicas, reports its log dirs, takes 1000 records and gives them back, serves
JMX; then it stops and nothing of it is left (no process, mount, port or folder). A one-node 4.3.2
cluster starts and stops too, with 4.3's class names. Each test skips, with real_kafka's reason,
where a real Kafka cannot run (not root, no Java 17 or Maven, the jars not in ~/.m2); when neither
version can run, the script says why and exits 77 (ctest's SKIP_RETURN_CODE).

    /usr/bin/python3 tests/support/real_kafka_smoke_test.py -v

The times of each step go to stderr.
"""
import os
import socket
import sys
import time
import unittest
import zipfile

sys.dont_write_bytecode = True  # importing real_kafka leaves no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import real_kafka  # noqa: E402
import suite_main  # noqa: E402

TOPIC = "smoke"
RECORDS = 1000


def report(what, seconds):
    sys.stderr.write("  %-40s %6.2f s\n" % (what, seconds))


def child_pids():
    """The pids of this process's children (a tool or broker still running)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/status" % entry) as f:
                for line in f:
                    if line.startswith("PPid:"):
                        if int(line.split()[1]) == os.getpid():
                            found.append(int(entry))
                        break
        except OSError:
            continue
    return found


def port_is_free(port):
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


class Leftovers:
    """What a cluster could leave behind, read while it runs, checked after it stopped."""

    def __init__(self, cluster):
        self.workdir = cluster.workdir
        self.ports = [int(a.rsplit(":", 1)[1]) for a in cluster.bootstrap.split(",")]
        self.ports += [cluster.jmx_port(b) for b in cluster.broker_ids()]

    def check(self, test):
        test.assertEqual(real_kafka.processes_using(self.workdir), [])
        test.assertEqual(child_pids(), [])
        test.assertEqual(real_kafka.mounts_under(self.workdir), [])
        test.assertFalse(os.path.exists(self.workdir), self.workdir)
        test.assertEqual([p for p in self.ports if not port_is_free(p)], [])


class ToolClassTest(unittest.TestCase):
    """tool_class() names a class that the jars of each version hold."""

    def test_names_per_version(self):
        self.assertEqual(real_kafka.tool_class("4.3.2", "ConfigCommand"),
                         "kafka.admin.ConfigCommand")
        self.assertEqual(real_kafka.tool_class("4.4.0", "ConfigCommand"),
                         "org.apache.kafka.tools.ConfigCommand")
        self.assertEqual(real_kafka.tool_class("4.4.0", "ConsoleConsumer"),
                         "org.apache.kafka.tools.consumer.ConsoleConsumer")
        self.assertEqual(real_kafka.tool_class("4.3.2", "StorageTool"), "kafka.tools.StorageTool")
        with self.assertRaises(KeyError):
            real_kafka.tool_class("4.4.0", "NoSuchCommand")

    def test_classes_are_in_the_jars(self):
        for version in real_kafka.VERSIONS:
            try:
                path = real_kafka.classpath(version)
            except real_kafka.KafkaRuntimeError as e:
                self.skipTest(str(e))
            entries = set()
            for jar in path.split(os.pathsep):
                if "/org/apache/kafka/" in jar:
                    with zipfile.ZipFile(jar) as z:
                        entries.update(z.namelist())
            for name in sorted(real_kafka._TOOL_CLASSES):
                cls = real_kafka.tool_class(version, name)
                self.assertIn(cls.replace(".", "/") + ".class", entries, "%s %s" % (version, name))


class ThreeBrokers44Test(unittest.TestCase):
    def test_topic_log_dirs_produce_consume(self):
        began = time.monotonic()
        why = real_kafka.skip_reason("4.4.0")
        if why:
            self.skipTest(why)
        cluster = real_kafka.KafkaCluster(version="4.4.0", brokers=3, dir_sizes_mib=(64, 128, 256))
        sys.stderr.write("\n")
        try:
            cluster.start()
            leftovers = Leftovers(cluster)
            self.assertEqual(cluster.broker_ids(), [1, 2, 3])
            for broker in cluster.broker_ids():
                self.assertEqual(len(cluster.log_dirs(broker)), 3)
                self.assertIn(real_kafka.STARTED_LINE, cluster.server_log(broker))
                self.assertTrue(all(d in real_kafka.mounts_under(cluster.workdir)
                                    for d in cluster.log_dirs(broker)))

            cluster.tool("TopicCommand", "--bootstrap-server", cluster.bootstrap, "--create",
                         "--topic", TOPIC, "--partitions", "6", "--replication-factor", "3")

            # CreateTopics answers once the controller has the topic; each broker makes its logs
            # after, as it reads the metadata.
            def all_six_on_every_broker():
                d = real_kafka.describe_log_dirs(cluster, topics=[TOPIC])
                placed = {b: sum(len(ps) for ps in dirs.values()) for b, dirs in d.items()}
                return d if placed == {1: 6, 2: 6, 3: 6} else None

            described = real_kafka.wait_for("the six replicas of %s on every broker" % TOPIC,
                                            all_six_on_every_broker, timeout=60, interval=1)
            self.assertEqual(sorted(described), [1, 2, 3])
            for broker, dirs in described.items():
                self.assertEqual(sorted(dirs), sorted(cluster.log_dirs(broker)), broker)
                placed = sorted(p for partitions in dirs.values() for p in partitions)
                self.assertEqual(placed, sorted("%s-%d" % (TOPIC, i) for i in range(6)), broker)

            produced = cluster.tool("ProducerPerformance", "--topic", TOPIC, "--num-records",
                                    RECORDS, "--record-size", 100, "--throughput", -1,
                                    "--bootstrap-server", cluster.bootstrap,
                                    "--command-property", "acks=all")
            self.assertIn("%d records sent" % RECORDS, produced.stdout)

            consumed = cluster.tool("ConsoleConsumer", "--bootstrap-server", cluster.bootstrap,
                                    "--topic", TOPIC, "--from-beginning", "--max-messages", RECORDS,
                                    "--timeout-ms", 30000)
            self.assertEqual(len(consumed.stdout.splitlines()), RECORDS, consumed.stderr)

            jmx = cluster.tool("JmxTool", "--jmx-url", cluster.jmx_url(2), "--object-name",
                               "kafka.server:type=KafkaServer,name=BrokerState",
                               "--one-time", "true", "--report-format", "properties")
            self.assertIn("BrokerState:Value=3", jmx.stdout)  # 3: RUNNING
        finally:
            cluster.stop()
            for what, seconds in cluster.timings:
                report(what, seconds)
        leftovers.check(self)
        report("whole test (4.4.0, 3 brokers)", time.monotonic() - began)


class OneNode43Test(unittest.TestCase):
    def test_start_stop(self):
        began = time.monotonic()
        why = real_kafka.skip_reason("4.3.2")
        if why:
            self.skipTest(why)
        sys.stderr.write("\n")
        with real_kafka.KafkaCluster(version="4.3.2", brokers=1, dir_sizes_mib=(64,)) as cluster:
            leftovers = Leftovers(cluster)
            described = cluster.tool("ConfigCommand", "--bootstrap-server", cluster.bootstrap,
                                     "--entity-type", "brokers", "--entity-name", "1", "--describe")
            self.assertIn("broker 1", described.stdout)
            self.assertIn("Kafka version: 4.3.2", cluster.server_log(1))
        for what, seconds in cluster.timings:
            report(what, seconds)
        leftovers.check(self)
        report("whole test (4.3.2, 1 broker)", time.monotonic() - began)


if __name__ == "__main__":
    reasons = {real_kafka.skip_reason(v) for v in real_kafka.VERSIONS}
    suite_main.run("real_kafka_harness_test",
                   skip=None if None in reasons else "; ".join(sorted(reasons)))
