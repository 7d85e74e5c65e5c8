"""cluster_balancer_test.py: `lds-host balance --bootstrap-server` and `lds-host drain
--bootstrap-server` against two `lds-host serve` brokers (ids 1 and 2), each with log dirs on tmpfs
of 64, 128 and 256 MiB, through Kafka's protocol only: the plan, a run to the band with every record
read back, the daemon killed with -9 in the middle of a move and restarted, cordoned dirs drained,
and the faults a client meets (a dead broker, a hung one, a config file asking for TLS).

Records go in and come back with kcat. Needs root for the tmpfs mounts (skips otherwise, saying
why); everything it mounts, starts and writes is gone at the end."""

import hashlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(REPO, "tests", "support"))
import lds_host_server  # noqa: E402
import real_kafka  # noqa: E402
import suite_main  # noqa: E402

MIB = 1 << 20
THRESHOLD = 10.0  # the balancer's default: the band is a spread of 5 points
RECORD = 1000  # bytes per record value


def records(seed, count):
    """`count` distinct lines of RECORD bytes (newline excluded) for kcat -P."""
    lines = []
    for i in range(count):
        head = "%s-%08d-" % (seed, i)
        lines.append((head + hashlib.sha256(head.encode()).hexdigest() * 16)[:RECORD])
    return ("\n".join(lines) + "\n").encode()


class Broker:
    """One lds-host with its Kafka listener, and what the test wrote to it."""

    def __init__(self, broker_id):
        self.server = lds_host_server.LdsHostServer(dir_sizes_mib=(64, 128, 256),
                                                    broker_id=broker_id, strategy="partition")
        self.written = {}  # (topic, partition) -> sha256 of the values, in order

    def lds(self, *args, timeout=60):
        r = self.server.client(*args, timeout=timeout)
        if r.returncode != 0:
            raise AssertionError("lds-host %s failed (%d): %s%s" % (
                " ".join(map(str, args)), r.returncode, r.stdout, r.stderr))
        return r.stdout

    def log_dirs(self):
        """[{logDir, totalBytes, usableBytes, isCordoned, partitions: {name: (size, future)}}]"""
        out = json.loads(self.lds("describe", "--json"))
        dirs = []
        for d in out["brokers"][0]["logDirs"]:
            dirs.append({"logDir": d["logDir"], "total": d["totalBytes"],
                         "usable": d["usableBytes"], "cordoned": d["isCordoned"],
                         "partitions": {p["partition"]: (p["size"], p["isFuture"])
                                        for p in d["partitions"]}})
        return dirs

    def where(self):
        """{partition name: log dir} of the current replicas."""
        return {name: d["logDir"] for d in self.log_dirs()
                for name, (_, future) in d["partitions"].items() if not future}

    def futures(self):
        return {name for d in self.log_dirs() for name, (_, future) in d["partitions"].items()
                if future}

    def spread(self):
        fills = [100.0 * (d["total"] - d["usable"]) / d["total"] for d in self.log_dirs()
                 if not d["cordoned"]]
        return max(fills) - min(fills)

    def produce(self, topic, partition, data):
        subprocess.run(["kcat", "-P", "-b", self.server.bootstrap, "-t", topic,
                        "-p", str(partition), "-X", "queue.buffering.max.ms=5"],
                       input=data, check=True, timeout=120, capture_output=True)
        h = self.written.setdefault((topic, partition), hashlib.sha256())
        h.update(data)

    def read_back(self, topic, partition):
        r = subprocess.run(["kcat", "-C", "-b", self.server.bootstrap, "-t", topic,
                            "-p", str(partition), "-o", "beginning", "-e", "-q", "-f", "%s\n"],
                           check=True, timeout=120, capture_output=True)
        return hashlib.sha256(r.stdout).hexdigest()

    def skew(self, topic, partitions, per_partition_bytes, seed):
        """Creates `topic` (the partition strategy spreads it over the three dirs) and writes
        `per_partition_bytes` into each of its partitions on the smallest dir."""
        self.lds("create", "--topic", topic, "--partitions", str(partitions))
        small = self.log_dirs()[0]["logDir"]
        data = records(seed, per_partition_bytes // (RECORD + 1))
        for name, d in self.where().items():
            t, _, p = name.rpartition("-")
            if t == topic and d == small:
                self.produce(topic, int(p), data)


class ClusterBalancerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        why = lds_host_server.skip_reason() or real_kafka.use_private_mount_namespace()
        if why:
            raise unittest.SkipTest(why)
        cls.tmp = tempfile.mkdtemp(prefix="lds-cluster-test-")
        cls.brokers = []
        try:
            for broker_id in (1, 2):
                b = Broker(broker_id)
                b.server.start()
                cls.brokers.append(b)
            # 30 partitions, 10 per dir; 3.4 MiB into each on the 64 MiB dir: 53% there, 0 on
            # the others.
            for b in cls.brokers:
                b.skew("skewed", 30, 3400 * 1024, "s%d" % b.server.broker_id)
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def tearDownClass(cls):
        for b in getattr(cls, "brokers", []):
            b.server.stop()
        import shutil
        shutil.rmtree(getattr(cls, "tmp", "/nonexistent"), ignore_errors=True)

    @property
    def bootstrap(self):
        return ",".join(b.server.bootstrap for b in self.brokers)

    def balance(self, *args, timeout=300, check=True):
        r = subprocess.run([lds_host_server.default_executable(), "balance",
                            "--bootstrap-server", self.bootstrap,
                            "--plugin-dir", lds_host_server.default_plugin_dir()] + list(args),
                           capture_output=True, text=True, timeout=timeout,
                           stdin=subprocess.DEVNULL)
        if check and r.returncode != 0:
            raise AssertionError("balance %s failed (%d):\n%s%s" % (
                " ".join(args), r.returncode, r.stdout, r.stderr))
        return r

    def assert_every_record_reads_back(self):
        for b in self.brokers:
            for (topic, partition), h in b.written.items():
                self.assertEqual(b.read_back(topic, partition), h.hexdigest(),
                                 "broker %d %s-%d" % (b.server.broker_id, topic, partition))

    def assert_level_and_clean(self):
        """Every broker within the band, with no future replica and no throttle left, and every
        record read back."""
        for b in self.brokers:
            self.assertLessEqual(b.spread(), THRESHOLD / 2 + 0.5, b.log_dirs())
            self.assertEqual(b.futures(), set())
            self.assertNotIn("replica.alter.log.dirs.io.max.bytes.per.second",
                             b.lds("configs", "--describe"))
        self.assert_every_record_reads_back()

    def start_daemon(self, log):
        """`balance --daemon` over both brokers (throttle 1 MiB/s, a round a second), its output
        in `log`."""
        with open(log, "wb") as out:
            return subprocess.Popen(
                [lds_host_server.default_executable(), "balance", "--daemon",
                 "--bootstrap-server", self.bootstrap,
                 "--plugin-dir", lds_host_server.default_plugin_dir(),
                 "--throttle", "1MiB", "--interval", "1", "--poll-ms", "200"],
                stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)

    @staticmethod
    def settled(log):
        """Whether the daemon's last round in `log` had nothing in flight and nothing outside the
        band."""
        with open(log) as f:
            rounds = re.findall(r"Round \d+: .*", f.read())
        return bool(rounds) and "0 moves in flight" in rounds[-1] and \
            "0 outside the band" in rounds[-1]

    def test_1_plan_moves_nothing_and_stays_near_the_lower_bound(self):
        before = [b.where() for b in self.brokers]
        plan = json.loads(self.balance("--plan", "--json").stdout)
        self.assertEqual([b["id"] for b in plan["brokers"]], [1, 2])
        for b in plan["brokers"]:
            self.assertGreater(b["spreadPercentBefore"], 40, b)
            self.assertLessEqual(b["spreadPercentAfter"], THRESHOLD / 2 + 1e-9, b)
            self.assertTrue(b["moves"], b)
            self.assertGreater(b["lowerBoundBytes"], 0)
            self.assertLessEqual(b["plannedBytes"], 1.25 * b["lowerBoundBytes"], b)
        self.assertLessEqual(plan["plannedBytes"], 1.25 * plan["lowerBoundBytes"])
        text = self.balance("--plan").stdout
        self.assertIn("Broker 1 (", text)
        self.assertRegex(text, r"Cluster: 2 brokers, \d+ moves, .* against a lower bound of ")
        self.assertEqual([b.where() for b in self.brokers], before, "--plan moved something")
        self.assertEqual([b.futures() for b in self.brokers], [set(), set()])

    def test_2_execute_reaches_the_band_and_keeps_every_record(self):
        r = self.balance("--execute", "--throttle", "64MiB", "--poll-ms", "200",
                         "--timeout", "240")
        self.assertRegex(r.stdout, r"Broker 1: moving skewed-\d+ \(")
        self.assertRegex(r.stdout, r"Broker 2 moved skewed-\d+ \(")
        self.assertIn("replica.alter.log.dirs.io.max.bytes.per.second set to 67108864", r.stdout)
        self.assertIn("replica.alter.log.dirs.io.max.bytes.per.second deleted", r.stdout)
        self.assert_level_and_clean()
        # Level already: a second run moves nothing.
        again = self.balance("--execute", "--poll-ms", "200", "--timeout", "60")
        self.assertNotIn("moving", again.stdout)

    def test_3_daemon_killed_mid_move_adopts_it_after_restart(self):
        b = self.brokers[0]
        b.skew("hot", 30, 2 * MIB, "h")
        logs = [os.path.join(self.tmp, "daemon-%d.log" % i) for i in (1, 2)]
        daemon = self.start_daemon(logs[0])
        try:
            real_kafka.wait_for("a move in flight on broker 1", lambda: b.futures(), timeout=60)
        finally:
            daemon.kill()
            daemon.wait()
        # The throttle changed by hand in between (halved, so the move in flight is still there
        # to adopt): the next daemon sets it again before it starts a move there, though it
        # adopts a move under it.
        throttle = "replica.alter.log.dirs.io.max.bytes.per.second"
        b.lds("configs", "--alter", "--add-config", throttle + "=524288")
        daemon = self.start_daemon(logs[1])
        try:
            real_kafka.wait_for("the daemon to level the cluster",
                                lambda: self.settled(logs[1]), timeout=180)
        finally:
            daemon.send_signal(signal.SIGTERM)
            self.assertEqual(daemon.wait(timeout=30), 0)
        with open(logs[0]) as f:
            first = f.read()
        with open(logs[1]) as f:
            second = f.read()
        # The moves the first daemon started and did not see end were in flight when it died:
        # each is adopted by the second, or ended in between; either way it reached its
        # destination and was not started again.
        ended_first = set(re.findall(r"Broker (\d+) moved (\S+) ", first))
        killed_with = [(name, to) for broker, name, to in re.findall(
            r"Broker (\d+): moving (\S+) \(.*?\) from \S+ to (\S+):", first)
            if (broker, name) not in ended_first]
        self.assertTrue(killed_with, first)
        self.assertIn("followed, not started again", second)
        self.assertIn("Broker 1: %s was 524288, changed or deleted since this balancer set it; "
                      "set to 1048576 again." % throttle, second)
        for name, to in killed_with:
            self.assertEqual(b.where()[name], to)
            self.assertNotIn("moving %s " % name, second)
        started = re.findall(r"Broker (\d+): moving (\S+) ", first + second)
        self.assertEqual(len(started), len(set(started)), "a move started twice: %s" % started)
        self.assertIn("Stopped; any move in flight goes on in its broker.", second)
        self.assert_level_and_clean()

    def test_3b_two_daemons_on_one_cluster_lose_nothing(self):
        # A second balancer on the same cluster, as an operator might start by mistake while the
        # first moves: it adopts the first's moves in flight rather than starting them again.
        # Afterwards the two plan alike and may send the same move twice, which the broker takes
        # as a move already under way. Together they end level, with nothing lost, no future
        # replica left and the throttle cleared.
        b = self.brokers[1]
        b.skew("twin", 6, 2 * MIB, "w")
        logs = [os.path.join(self.tmp, "twin-%d.log" % i) for i in (1, 2)]
        daemons = []
        try:
            daemons.append(self.start_daemon(logs[0]))
            real_kafka.wait_for("a move in flight on broker 2", lambda: b.futures(), timeout=60,
                                interval=0.05)
            daemons.append(self.start_daemon(logs[1]))
            real_kafka.wait_for("both daemons to see the cluster level",
                                lambda: all(self.settled(log) for log in logs) and
                                not b.futures(), timeout=180)
        finally:
            for d in daemons:
                d.send_signal(signal.SIGTERM)
            codes = [d.wait(timeout=30) for d in daemons]
        self.assertEqual(codes, [0, 0])
        with open(logs[1]) as f:
            second = f.read()
        self.assertRegex(second, r"Broker 2 has a move of twin-\d+ in flight .*: followed, not "
                                 r"started again\.")
        self.assert_level_and_clean()

    def test_4_a_cordoned_dir_is_drained_and_takes_nothing_new(self):
        b = self.brokers[1]
        largest = b.log_dirs()[2]["logDir"]
        self.assertTrue(b.log_dirs()[2]["partitions"])
        subprocess.run([lds_host_server.default_executable(), "configs", "--bootstrap-server",
                        b.server.bootstrap, "--entity-type", "brokers", "--entity-name", "2",
                        "--alter", "--add-config", "cordoned.log.dirs=" + largest],
                       check=True, capture_output=True, timeout=60)
        r = self.balance("--execute", "--poll-ms", "200", "--timeout", "240")
        self.assertIn("drain of cordoned " + largest, r.stdout)
        dirs = b.log_dirs()
        self.assertEqual(dirs[2]["partitions"], {})
        moved_to = re.findall(r"Broker 2: moving \S+ \(.*?\) from \S+ to (\S+):", r.stdout)
        self.assertNotIn(largest, moved_to)
        b.lds("create", "--topic", "after-cordon", "--partitions", "6")
        self.assertNotIn(largest, [d for n, d in b.where().items()
                                   if n.startswith("after-cordon-")])
        self.assert_every_record_reads_back()

    def test_5_drain_empties_one_dir_of_one_broker(self):
        b = self.brokers[0]
        middle = b.log_dirs()[1]["logDir"]
        r = subprocess.run([lds_host_server.default_executable(), "drain", "--bootstrap-server",
                            self.bootstrap, "--broker", "1", "--dir", middle,
                            "--plugin-dir", lds_host_server.default_plugin_dir(),
                            "--poll-ms", "200", "--timeout", "240"],
                           capture_output=True, text=True, timeout=300)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("Drained %s on broker 1." % middle, r.stdout)
        dirs = b.log_dirs()
        self.assertEqual(dirs[1]["partitions"], {})
        self.assertTrue(dirs[1]["cordoned"])
        self.assertNotIn("Broker 2: moving", r.stdout)
        self.assert_every_record_reads_back()
        # A drain that cannot fit: the 256 MiB dir's data does not go into the 64 MiB one.
        grown = next(int(n.rpartition("-")[2]) for n, d in b.where().items()
                     if d == dirs[2]["logDir"] and n.startswith("skewed-"))
        b.lds("produce", "--topic", "skewed", "--partition", grown, "--bytes", "70MiB")
        del b.written[("skewed", grown)]  # its records are no longer only kcat's
        refused = subprocess.run([lds_host_server.default_executable(), "drain",
                                  "--bootstrap-server", self.bootstrap, "--broker", "1",
                                  "--dir", dirs[2]["logDir"],
                                  "--plugin-dir", lds_host_server.default_plugin_dir()],
                                 capture_output=True, text=True, timeout=120)
        self.assertEqual(refused.returncode, 1, refused.stdout + refused.stderr)
        self.assertIn("is refused", refused.stderr)
        self.assertFalse(b.log_dirs()[2]["cordoned"], "a refused drain cordoned its dir")

    def test_6_daemon_outlives_a_hung_broker(self):
        # Broker 2 stops answering (SIGSTOP) under a daemon with request.timeout.ms=1000: the
        # daemon goes on with broker 1, then finds broker 2 again once it answers.
        config = os.path.join(self.tmp, "hung.properties")
        with open(config, "w") as f:
            f.write("request.timeout.ms=1000\n")
        log = os.path.join(self.tmp, "daemon-hung.log")
        with open(log, "wb") as out:
            daemon = subprocess.Popen(
                [lds_host_server.default_executable(), "balance", "--daemon",
                 "--bootstrap-server", self.bootstrap, "--command-config", config,
                 "--plugin-dir", lds_host_server.default_plugin_dir(), "--interval", "1"],
                stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        hung = self.brokers[1].server.pid()
        try:
            def rounds(text):
                with open(log) as f:
                    return len(re.findall(text, f.read()))
            real_kafka.wait_for("a round of 2 brokers", lambda: rounds(r"Round \d+: 2 brokers"))
            os.kill(hung, signal.SIGSTOP)
            try:
                real_kafka.wait_for("rounds without broker 2",
                                    lambda: rounds(r"Round \d+: 1 broker,") >= 2, timeout=60)
            finally:
                os.kill(hung, signal.SIGCONT)
            seen = rounds(r"Round \d+: 2 brokers")
            real_kafka.wait_for("broker 2 back", lambda: rounds(r"Round \d+: 2 brokers") > seen,
                                timeout=60)
            self.assertIsNone(daemon.poll())
        finally:
            daemon.send_signal(signal.SIGTERM)
            self.assertEqual(daemon.wait(timeout=30), 0)

    def test_7_a_partition_deleted_while_it_moves(self):
        # A move started by hand (reassign) under a slow throttle, adopted by the daemon, then
        # its topic deleted: the daemon says so and goes on; nothing of the topic is left.
        b = self.brokers[0]
        throttle = "replica.alter.log.dirs.io.max.bytes.per.second"
        b.lds("configs", "--alter", "--add-config", throttle + "=262144")
        log = os.path.join(self.tmp, "daemon-delete.log")
        daemon = None
        try:
            b.lds("create", "--topic", "doomed", "--partitions", "1")
            b.produce("doomed", 0, records("d", 3000))
            del b.written[("doomed", 0)]
            source = b.where()["doomed-0"]
            dest = next(d["logDir"] for d in b.log_dirs()
                        if d["logDir"] != source and not d["cordoned"])
            plan = os.path.join(self.tmp, "doomed.json")
            with open(plan, "w") as f:
                json.dump({"version": 1, "partitions": [
                    {"topic": "doomed", "partition": 0, "replicas": [1], "log_dirs": [dest]}]}, f)
            b.lds("reassign", "--reassignment-json-file", plan)
            real_kafka.wait_for("the move under way", lambda: "doomed-0" in b.futures())
            with open(log, "wb") as out:
                daemon = subprocess.Popen(
                    [lds_host_server.default_executable(), "balance", "--daemon",
                     "--bootstrap-server", self.bootstrap, "--interval", "1", "--poll-ms", "200",
                     "--plugin-dir", lds_host_server.default_plugin_dir()],
                    stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)

            def logged(text):
                with open(log) as f:
                    return text in f.read()
            real_kafka.wait_for("the move adopted",
                                lambda: logged("has a move of doomed-0 in flight"), timeout=60)
            b.lds("delete", "--topic", "doomed")
            real_kafka.wait_for("the deletion seen", lambda: logged(
                "doomed-0 is gone from the broker (deleted or reassigned) while it moved to " +
                dest), timeout=60)
            self.assertIsNone(daemon.poll())
        finally:
            if daemon is not None:
                daemon.send_signal(signal.SIGTERM)
                self.assertEqual(daemon.wait(timeout=30), 0)
            b.lds("configs", "--alter", "--delete-config", throttle)
        self.assertNotIn("doomed-0", b.where())
        self.assertNotIn("doomed-0", b.futures())
        self.assert_every_record_reads_back()

    def test_8_a_dir_gone_read_only_is_left_alone(self):
        # Broker 2's 64 MiB dir remounted read-only: lds-host takes it offline at its first
        # write; the balancer then plans no move from or into it, and levels the rest.
        b = self.brokers[1]
        small = b.log_dirs()[0]["logDir"]
        name = next(n for n, d in b.where().items() if d == small)
        subprocess.run(["mount", "-o", "remount,ro", small], check=True)
        r = b.server.client("produce", "--topic", name.rpartition("-")[0], "--partition",
                            name.rpartition("-")[2], "--bytes", "64KiB")
        self.assertNotEqual(r.returncode, 0, r.stdout)
        plan = json.loads(self.balance("--plan", "--json").stdout)
        dirs = {d["logDir"]: d for d in plan["brokers"][1]["logDirs"]}
        self.assertFalse(dirs[small]["online"])
        for m in plan["brokers"][1]["moves"]:
            self.assertNotIn(small, (m["from"], m["to"]))
        r = self.balance("--execute", "--poll-ms", "200", "--timeout", "120", check=False)
        self.assertIn(r.returncode, (0, 1), r.stdout + r.stderr)
        self.assertNotRegex(r.stdout, r"moving \S+ \(.*\) from %s " % re.escape(small))
        self.assertNotRegex(r.stdout, r" to %s:" % re.escape(small))
        # Still the broker's, unreadable where it was: nothing moved it.
        listing = json.loads(b.lds("describe", "--json"))["brokers"][0]["logDirs"]
        offline = next(d for d in listing if d["logDir"] == small)
        self.assertIsNotNone(offline["error"])
        self.assertIn(name, offline["unreadablePartitions"])

    def test_0_faults_get_one_sentence(self):
        lds = lds_host_server.default_executable()
        # A dead address beside a live one: the live one is enough.
        dead = "127.0.0.1:%d" % real_kafka.free_port()
        r = subprocess.run([lds, "balance", "--bootstrap-server",
                            dead + "," + self.brokers[0].server.bootstrap, "--plan",
                            "--plugin-dir", lds_host_server.default_plugin_dir()],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("Broker 1 (", r.stdout)
        # Only dead addresses.
        r = subprocess.run([lds, "balance", "--bootstrap-server", dead, "--plan",
                            "--plugin-dir", lds_host_server.default_plugin_dir()],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 2)
        self.assertIn("no Kafka listener answers at " + dead, r.stderr)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
        r = subprocess.run([lds, "balance", "--bootstrap-server", dead, "--execute",
                            "--plugin-dir", lds_host_server.default_plugin_dir()],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 2)
        self.assertIn("no Kafka listener answers at " + dead, r.stderr)
        # A listener that accepts and never answers: request.timeout.ms bounds the wait.
        config = os.path.join(self.tmp, "client.properties")
        with open(config, "w") as f:
            f.write("# a client config\nrequest.timeout.ms=1500\nclient.id=test\n")
        hung = socket.socket()
        hung.bind(("127.0.0.1", 0))
        hung.listen(4)
        try:
            began = time.monotonic()
            r = subprocess.run([lds, "balance", "--bootstrap-server",
                                "127.0.0.1:%d" % hung.getsockname()[1], "--plan",
                                "--command-config", config,
                                "--plugin-dir", lds_host_server.default_plugin_dir()],
                               capture_output=True, text=True, timeout=60)
            self.assertLess(time.monotonic() - began, 30)
        finally:
            hung.close()
        self.assertEqual(r.returncode, 2)
        self.assertIn("did not answer within 1500 ms", r.stderr)
        # A hand-edited client config: a line that is no KEY=VALUE, a timeout that is no number.
        for text, message in (("request.timeout.ms=1500\nnot a property\n",
                               config + " line 2 is not KEY=VALUE: 'not a property'."),
                              ("request.timeout.ms=soon\n",
                               config + ": request.timeout.ms=soon is not a positive number of "
                               "milliseconds.")):
            with open(config, "w") as f:
                f.write(text)
            r = subprocess.run([lds, "balance", "--bootstrap-server", self.bootstrap, "--plan",
                                "--command-config", config], capture_output=True, text=True,
                               timeout=60)
            self.assertEqual(r.returncode, 2)
            self.assertEqual(r.stderr.strip(), "lds-host: " + message)
        # TLS asked for: refused, naming the file and the key.
        with open(config, "w") as f:
            f.write("security.protocol=SSL\n")
        r = subprocess.run([lds, "balance", "--bootstrap-server", self.bootstrap, "--plan",
                            "--command-config", config], capture_output=True, text=True,
                           timeout=60)
        self.assertEqual(r.returncode, 2)
        self.assertIn(config + ": security.protocol=SSL is not spoken here", r.stderr)
        # A strategy that is not there.
        r = subprocess.run([lds, "balance", "--bootstrap-server", self.bootstrap, "--plan",
                            "--strategy", "nosuch"], capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 2)
        self.assertIn("liblds_nosuch.so", r.stderr)
        # --daemon without --bootstrap-server, --status with it.
        r = subprocess.run([lds, "balance", "--daemon", "--socket", "/nonexistent"],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 2)
        self.assertIn("needs --bootstrap-server", r.stderr)
        r = subprocess.run([lds, "balance", "--status", "--bootstrap-server", self.bootstrap],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 2)
        self.assertIn("--status and --cancel are for one broker", r.stderr)


if __name__ == "__main__":
    suite_main.run("cluster_balancer_test")
