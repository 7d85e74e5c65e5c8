"""metrics_endpoint_test.py: `lds-host serve`'s Prometheus endpoint (metrics.listener), scraped with
an HTTP client and checked with `promtool check metrics`; each value follows the action that should
move it. Then conf/alerts.yml passes `promtool check rules` and the cases of alerts_test.yml
(`promtool test rules`), and every metric that conf/grafana-dashboard.json queries is in a scrape.
Standard library only; no root needed (the log dirs are plain folders in a temp dir, removed at
the end)."""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(REPO, "tests", "support"))
import lds_host_server  # noqa: E402
import real_kafka  # noqa: E402
import suite_main  # noqa: E402

BAD_PLUGIN_DIR = os.environ.get("LDS_BAD_PLUGIN_DIR", "")
# promtool lints label names to snake_case; Kafka's tag (and so the JMX exporter's label) is
# logDirectory, which dashboards built on the exporter select on. Those lines, and only those,
# are expected.
KAFKA_LABEL_LINT = re.compile(
    r"^kafka_log_logmanager_logdirectory(offline|cordoned) label names should be written in "
    r"'snake_case' not 'camelCase'$")
SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def parse(text):
    """{(name, frozenset(labels)): value} of an exposition."""
    out = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = SAMPLE.match(line)
        if not m:
            raise AssertionError("unparsable sample line: %r" % line)
        labels = frozenset(LABEL.findall(m.group(3) or ""))
        out[(m.group(1), labels)] = float(m.group(4))
    return out


def value(samples, metric, **labels):
    want = frozenset(labels.items())
    found = [v for (n, ls), v in samples.items() if n == metric and want <= ls]
    if len(found) != 1:
        raise AssertionError("%d samples of %s%s" % (len(found), metric, labels))
    return found[0]


def total(samples, name):
    return sum(v for (n, _), v in samples.items() if n == name)


class MetricsEndpointTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        why = lds_host_server.skip_reason()
        if why:
            raise unittest.SkipTest(why)
        if not shutil.which("promtool"):
            raise AssertionError("promtool is missing: tools/install-deps.sh installs Debian's "
                                 "prometheus package")
        if not os.path.isdir(BAD_PLUGIN_DIR):
            raise AssertionError("LDS_BAD_PLUGIN_DIR names no folder: %r" % BAD_PLUGIN_DIR)
        # The shipped strategies and three faulty ones, side by side in one plugin.dir.
        cls.plugins = tempfile.mkdtemp(prefix="lds-metrics-plugins-")
        for d, names in ((lds_host_server.default_plugin_dir(), None),
                         (BAD_PLUGIN_DIR, ("bad_rank_duplicate", "bad_rank_error",
                                           "bad_create_fails"))):
            for f in os.listdir(d):
                if f.endswith(".so") and (names is None or f[len("liblds_"):-3] in names):
                    shutil.copy(os.path.join(d, f), cls.plugins)
        cls.metrics_port = real_kafka.free_port()
        cls.server = lds_host_server.LdsHostServer(
            dir_sizes_mib=(64, 64), tmpfs=False, plugin_dir=cls.plugins,
            config={"metrics.listener": "http://127.0.0.1:%d" % cls.metrics_port})
        try:
            cls.server.start()
        except BaseException:
            shutil.rmtree(cls.plugins, ignore_errors=True)
            raise

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        shutil.rmtree(cls.plugins, ignore_errors=True)

    def scrape(self):
        url = "http://127.0.0.1:%d/metrics" % self.metrics_port
        with urllib.request.urlopen(url, timeout=10) as r:
            self.assertEqual(r.status, 200)
            text = r.read().decode("utf-8")
        check = subprocess.run(["promtool", "check", "metrics"], input=text, text=True,
                               capture_output=True, timeout=60)
        problems = [l for l in (check.stdout + check.stderr).splitlines()
                    if l.strip() and not KAFKA_LABEL_LINT.match(l.strip())]
        self.assertIn(check.returncode, (0, 3), check.stdout + check.stderr)
        self.assertEqual(problems, [], "promtool check metrics:\n" + "\n".join(problems))
        return parse(text)

    def ok(self, *args):
        r = self.server.client(*args)
        self.assertEqual(r.returncode, 0, "lds-host %s: %s%s" % (args, r.stdout, r.stderr))
        return r


    def test_values_follow_actions(self):
        d0, d1 = self.server.log_dirs()
        s = self.scrape()
        self.assertEqual(value(s, "kafka_log_logmanager_offlinelogdirectorycount"), 0)
        self.assertEqual(value(s, "lds_strategy_info", name="partition"), 1)
        generation = value(s, "lds_strategy_generation")

        # A create raises the dirs' counts, the strategy's placements and the latency histogram.
        self.ok("create", "--topic", "m", "--partitions", "4")
        s = self.scrape()
        self.assertEqual(total(s, "lds_log_dir_partitions"), 4)
        self.assertEqual(total(s, "lds_log_dir_placements_total"), 4)
        self.assertEqual(value(s, "lds_placements_total", strategy="partition"), 4)
        self.assertGreaterEqual(value(s, "lds_placement_duration_seconds_count"), 4)
        self.assertEqual(value(s, "lds_placement_duration_seconds_bucket", le="+Inf"),
                         value(s, "lds_placement_duration_seconds_count"))
        for p in range(4):
            self.assertEqual(value(s, "kafka_log_log_size", topic="m", partition=str(p)), 0)
        self.ok("produce", "--topic", "m", "--partition", "0", "--bytes", "1MiB")
        s = self.scrape()
        self.assertEqual(value(s, "kafka_log_log_size", topic="m", partition="0"), 1 << 20)

        # A cordon sets Kafka's flag and count.
        self.ok("configs", "--alter", "--add-config", "cordoned.log.dirs=[%s]" % d1)
        s = self.scrape()
        quoted = '\\"%s\\"' % d1
        self.assertEqual(value(s, "kafka_log_logmanager_logdirectorycordoned",
                               logDirectory=quoted), 1)
        self.assertEqual(value(s, "kafka_log_logmanager_cordonedlogdirectorycount"), 1)
        self.ok("configs", "--alter", "--delete-config", "cordoned.log.dirs")
        s = self.scrape()
        self.assertEqual(value(s, "kafka_log_logmanager_cordonedlogdirectorycount"), 0)

        # A swap raises the generation; a refused one counts and changes nothing.
        self.ok("configs", "--alter", "--add-config", "log.directory.select.strategy=size")
        s = self.scrape()
        self.assertEqual(value(s, "lds_strategy_generation"), generation + 1)
        self.assertEqual(value(s, "lds_strategy_swaps_total"), 1)
        self.assertEqual(value(s, "lds_strategy_info", name="size"), 1)
        refused = self.server.client("configs", "--alter", "--add-config",
                                     "log.directory.select.strategy=bad_create_fails")
        self.assertNotEqual(refused.returncode, 0, refused.stdout)
        s = self.scrape()
        self.assertEqual(value(s, "lds_strategy_refused_swaps_total"), 1)
        self.assertEqual(value(s, "lds_strategy_generation"), generation + 1)

        # A refused ranking raises the fallbacks, by reason.
        self.ok("configs", "--alter", "--add-config",
                "log.directory.select.strategy=bad_rank_duplicate")
        self.ok("create", "--topic", "f", "--partitions", "1")
        self.ok("configs", "--alter", "--add-config",
                "log.directory.select.strategy=bad_rank_error")
        self.ok("create", "--topic", "g", "--partitions", "1")
        s = self.scrape()
        self.assertEqual(value(s, "lds_placement_fallbacks_total", reason="invalid_ranking"), 1)
        self.assertEqual(value(s, "lds_placement_fallbacks_total", reason="plugin_error"), 1)
        self.assertEqual(value(s, "lds_placements_total", strategy="partition"), 4)
        self.assertEqual(value(s, "lds_placements_total", strategy="bad_rank_duplicate"), 1)
        self.ok("configs", "--alter", "--add-config", "log.directory.select.strategy=partition")

        # A move shows the bytes it copied.
        where = {}
        out = self.ok("describe", "--json").stdout
        described = json.loads(out[:out.rindex("}") + 1])
        for d in described["brokers"][0]["logDirs"]:
            for p in d["partitions"]:
                where[p["partition"]] = d["logDir"]
        source = where["m-0"]
        dest = d1 if source == d0 else d0
        plan = os.path.join(self.server.workdir, "move.json")
        with open(plan, "w") as f:
            json.dump({"version": 1, "partitions": [
                {"topic": "m", "partition": 0, "replicas": [0], "log_dirs": [dest]}]}, f)
        self.ok("reassign", "--reassignment-json-file", plan, "--wait")
        s = self.scrape()
        self.assertGreaterEqual(value(s, "lds_move_copied_bytes_total"), 1 << 20)
        self.assertEqual(value(s, "lds_moves_in_flight"), 0)
        self.assertEqual(total(s, "lds_move_failures_total"), 0)

    def test_silent_client_does_not_block_scrapes(self):
        """A client that connects and never sends a request, nor reads: scrapes still answer."""
        import socket
        silent = [socket.create_connection(("127.0.0.1", self.metrics_port), timeout=5)]
        try:
            for _ in range(3):
                self.assertIn(("lds_strategy_swaps_total", frozenset()), self.scrape())
        finally:
            for s in silent:
                s.close()

    def test_port_taken_refuses_start(self):
        """A metrics port another process holds: serve exits 2 with one line naming the key."""
        import socket
        with socket.socket() as holder:
            holder.bind(("127.0.0.1", 0))
            holder.listen(1)
            port = holder.getsockname()[1]
            server = lds_host_server.LdsHostServer(
                dir_sizes_mib=(64,), tmpfs=False, plugin_dir=self.plugins,
                config={"metrics.listener": "http://127.0.0.1:%d" % port})
            with self.assertRaises(lds_host_server.LdsHostError) as caught:
                server.start()
        self.assertIn("exited (2)", str(caught.exception))
        self.assertIn("metrics.listener: cannot listen on http://127.0.0.1:%d" % port,
                      str(caught.exception))

    def test_bad_url_refused(self):
        for url, why in (("https://127.0.0.1:9404", "must be http://host:port"),
                         ("http://127.0.0.1:70000", "has port \"70000\""),
                         ("http://:9404", "must name a host")):
            server = lds_host_server.LdsHostServer(
                dir_sizes_mib=(64,), tmpfs=False, plugin_dir=self.plugins,
                config={"metrics.listener": url})
            with self.assertRaises(lds_host_server.LdsHostError) as caught:
                server.start()
            self.assertIn("metrics.listener", str(caught.exception))
            self.assertIn(why.replace("\\", ""), str(caught.exception))

    def test_alert_rules_and_dashboard(self):
        rules = os.path.join(REPO, "conf", "alerts.yml")
        check = subprocess.run(["promtool", "check", "rules", rules], capture_output=True,
                               text=True, timeout=60)
        self.assertEqual(check.returncode, 0, check.stdout + check.stderr)
        # Each alert fires on the series that should raise it, and not before its `for`.
        cases = subprocess.run(["promtool", "test", "rules", os.path.join(HERE, "alerts_test.yml")],
                               capture_output=True, text=True, timeout=60)
        self.assertEqual(cases.returncode, 0, cases.stdout + cases.stderr)
        with open(os.path.join(REPO, "conf", "grafana-dashboard.json")) as f:
            dashboard = json.load(f)
        exprs = [t["expr"] for p in dashboard["panels"] for t in p.get("targets", [])]
        self.assertTrue(exprs, "the dashboard queries nothing")
        with open(rules) as f:
            exprs += re.findall(r"expr:\s*(.+)", f.read())
        scraped = {n for n, _ in self.scrape()}
        # A histogram's series are named after its family.
        names = set()
        for e in exprs:
            for word in re.findall(r"\b((?:lds|kafka)_[a-z0-9_]+)\b", e):
                names.add(word)
        missing = sorted(n for n in names if n not in scraped)
        self.assertEqual(missing, [], "queried but not in a scrape")


if __name__ == "__main__":
    suite_main.run("metrics_endpoint_test")
