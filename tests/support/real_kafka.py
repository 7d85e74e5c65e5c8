"""real_kafka.py: a real Apache Kafka KRaft cluster, started from the jars Maven Central publishes,
for the test scripts that ctest runs under the label real-kafka (standard library only, for
/usr/bin/python3).

    import real_kafka
    reason = real_kafka.skip_reason()          # None, or why such a test must skip
    with real_kafka.KafkaCluster(brokers=3) as cluster:
        cluster.tool("TopicCommand", "--bootstrap-server", cluster.bootstrap, "--create", ...)
        real_kafka.describe_log_dirs(cluster)  # {broker: {dir: ["topic-0", ...]}}

The class path. adapters/kafka/runtime/pom.xml names the broker (kafka_2.13, kafka-server,
kafka-storage), Kafka's tools (kafka-tools) and log4j2 with its SLF4J 1.x binding (Kafka pins
slf4j-api 1.7.36). classpath() asks Maven, offline, for that path once per Kafka version and pom
and keeps the answer in a cache folder (default_cache_dir()); one online run
(tools/install-deps.sh) fills ~/.m2 first.

Class-data sharing. On two cores a JVM spends most of its start loading Kafka's classes. The
first cluster of a Kafka version (and JDK) lists the classes its brokers and tools load and, when
it stops, dumps them into one archive in the cache folder (java -Xshare:dump, about 10 s); every
later broker and tool maps it (-XX:SharedArchiveFile) and starts in about half the time. A JVM
that cannot use the archive runs without it; class_data_sharing=False or LDS_KAFKA_CDS=0 turns
it off. `python3 tests/support/real_kafka.py warm-up` makes the archives ahead (no root needed).
Every JVM here writes its own warnings to stderr (JVM_QUIET_OPTS), never into a tool's stdout.

The layout. Each cluster owns a fresh temp folder (workdir, named lds-kafka-*) and removes it:

    node-<id>/server.properties   the broker's configuration (extra_props last, so they win)
    node-<id>/log4j2.xml          everything at INFO, org.logdirstrategy included, to server.log
    node-<id>/server.log          the broker's log4j2 log: server_log(id)
    node-<id>/stdout.log          the JVM's own output (a crash, an agent's early prints)
    node-<id>/metadata/           metadata.log.dir: the KRaft metadata log (and the controller's)
    node-<id>/data-<i>/           one log dir per dir_sizes_mib entry, each its own tmpfs mount
    tools-log4j2.xml              the tools log WARN and above to stderr

Node 1 is broker and the one KRaft controller (process.roles=broker,controller); the others are
brokers only. The quorum is static (controller.quorum.voters=1@127.0.0.1:<port>), which Kafka
4.3 and 4.4 both accept, and every node is formatted with kafka.tools.StorageTool format
--config <server.properties> --cluster-id <id> (no --standalone: that flag is for a dynamic
quorum and refuses controller.quorum.voters).

Why metadata.log.dir is not one of the tmpfs dirs: with JBOD under KRaft a broker keeps its
metadata log in metadata.log.dir, and when that dir is one of log.dirs it also holds partitions
and a failure of it (a test that fills or breaks a dir) takes the whole broker down. Kept apart,
on the workdir's own file system, the three tmpfs dirs are pure data dirs: the ones a
log-dir-selection strategy chooses between, each as big as asked, and free of the metadata log's
segments and snapshots. StorageTool formats the metadata dir and every log dir alike (each gets a
meta.properties with its own directory.id).

Mounts. The tmpfs dirs are mounted in a mount namespace of this process's own (the same scheme as
tests/support/private_mounts.h): the main thread, when it first asks skip_reason() or starts a
cluster, leaves the machine's mount namespace, and every process it starts from then on
(brokers, tools, anything a test runs) sees the mounts; when this process and its brokers are
gone the kernel takes the mounts down, however the test ended. So: start and stop clusters, and
run what must see the log dirs, from the main thread (unittest does); another thread does not
see the mounts.

Clean-up. stop() (and leaving the with block) sends SIGTERM to the brokers (node 1, the
controller, last), SIGKILL after stop_timeout, unmounts every tmpfs and removes the workdir. A
cluster not stopped is stopped at exit (atexit) and on SIGTERM/SIGHUP; every JVM is started with
PR_SET_PDEATHSIG=SIGKILL, so it dies with this process even after a kill -9; no JVM writes
hsperfdata (-XX:-UsePerfData); a workdir left by a process killed outright is removed by the next
cluster that starts (its owner.pid names a dead process).

Ports. Everything listens on 127.0.0.1, on ports from free_port(): each broker's PLAINTEXT
listener, node 1's CONTROLLER listener and each broker's remote JMX (registry and connector on
jmx_port(id), no authentication, no TLS; for org.apache.kafka.tools.JmxTool --jmx-url
cluster.jmx_url(id)). The one exception is the JVM's own local JMX connector, which every JVM
with remote JMX adds: it listens on all addresses (its port from free_port() too) but refuses any
peer that is not this machine (com.sun.management.jmxremote.local.only stays true).

Restarts. stop_broker(), kill_broker(), start_broker() and restart_broker() keep the broker's
config, ports and log dirs; its server.log grows across runs (start_broker() waits for the
started line of the new run only). A broker started again at once is refused with
DUPLICATE_BROKER_REGISTRATION until the controller has dropped its previous registration, about
10 s with Kafka's defaults; a test that restarts brokers can shorten that with extra_props
broker.heartbeat.interval.ms=1000 and a lower controller-side timeout (about 5 s then).
"""

import atexit
import base64
import ctypes
import hashlib
import json
import os
import random
import re
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from xml.sax.saxutils import escape as _xml_escape

HERE = os.path.dirname(os.path.abspath(__file__))
RUNTIME_POM = os.path.join(HERE, "..", "..", "adapters", "kafka", "runtime", "pom.xml")
DEFAULT_VERSION = "4.4.0"
VERSIONS = ("4.4.0", "4.3.2")
JAVA17_HOME = "/usr/lib/jvm/java-17-openjdk-amd64"
TEMURIN25_HOME = "/usr/lib/jvm/temurin-25-jdk-amd64"  # for java_home=, where installed

# A tool is short-lived: the C1 compiler alone starts it fastest.
TOOL_JVM_OPTS = ["-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx256m", "-XX:-UsePerfData"]
# The JVM's own warnings go to stderr, never into a tool's stdout that a test parses.
JVM_QUIET_OPTS = ["-Xlog:disable", "-Xlog:all=warning:stderr", "-XX:+DisplayVMOutputToStderr"]
# The modules a broker's JVM adds (remote JMX adds jdk.management.agent, -javaagent adds
# java.instrument), named at once by every JVM that makes or maps the class-data archive: the
# archive holds only when the JVM's module options match the dump's.
ARCHIVE_MODULE_OPTS = ["--add-modules=jdk.management.agent,java.instrument"]
# A broker runs for the whole test: the default JIT, Kafka's own G1 settings, a small heap.
BROKER_JVM_OPTS = ["-Xmx512m", "-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20",
                   "-XX:InitiatingHeapOccupancyPercent=35", "-XX:+ExplicitGCInvokesConcurrent",
                   "-XX:+ExitOnOutOfMemoryError", "-XX:-UsePerfData", "-Djava.awt.headless=true"]

# The line kafka.server.KafkaRaftServer logs once the node's broker is registered and unfenced
# (BrokerServer.startup waits for that) and, on node 1, its controller is up.
STARTED_LINE = "Kafka Server started"

# The main class of each tool, by the first Kafka version (major, minor) that has it there.
_TOOL_CLASSES = {
    "Kafka": {(4, 3): "kafka.Kafka"},
    "StorageTool": {(4, 3): "kafka.tools.StorageTool"},
    "TopicCommand": {(4, 3): "org.apache.kafka.tools.TopicCommand"},
    "ConfigCommand": {(4, 3): "kafka.admin.ConfigCommand",
                      (4, 4): "org.apache.kafka.tools.ConfigCommand"},
    "LogDirsCommand": {(4, 3): "org.apache.kafka.tools.LogDirsCommand"},
    "ConsoleProducer": {(4, 3): "org.apache.kafka.tools.ConsoleProducer"},
    "ConsoleConsumer": {(4, 3): "org.apache.kafka.tools.consumer.ConsoleConsumer"},
    "ProducerPerformance": {(4, 3): "org.apache.kafka.tools.ProducerPerformance"},
    "JmxTool": {(4, 3): "org.apache.kafka.tools.JmxTool"},
    "BrokerApiVersionsCommand": {(4, 3): "org.apache.kafka.tools.BrokerApiVersionsCommand"},
    "MetadataQuorumCommand": {(4, 3): "org.apache.kafka.tools.MetadataQuorumCommand"},
    "ReassignPartitionsCommand": {
        (4, 3): "org.apache.kafka.tools.reassign.ReassignPartitionsCommand"},
    "GetOffsetShell": {(4, 3): "org.apache.kafka.tools.GetOffsetShell"},
    "DumpLogSegments": {(4, 3): "org.apache.kafka.tools.DumpLogSegments"},
}


class KafkaRuntimeError(RuntimeError):
    """The real Kafka could not be set up, started, stopped or asked."""


class ToolError(KafkaRuntimeError):
    """A tool exited nonzero; .result is its subprocess.CompletedProcess."""

    def __init__(self, message, result):
        super().__init__(message)
        self.result = result


def _version_key(version):
    parts = []
    for piece in str(version).split(".")[:2]:
        digits = "".join(ch for ch in piece if ch.isdigit())
        parts.append(int(digits or 0))
    while len(parts) < 2:
        parts.append(0)
    return tuple(parts)


def tool_class(version, name):
    """The main class of Kafka tool `name` (TopicCommand, ConfigCommand, LogDirsCommand,
    ConsoleProducer, ConsoleConsumer, ProducerPerformance, JmxTool, StorageTool, Kafka,
    BrokerApiVersionsCommand, MetadataQuorumCommand, ReassignPartitionsCommand, GetOffsetShell,
    DumpLogSegments) in Kafka
    `version`: ConfigCommand, for one, moved from kafka.admin (4.3) to org.apache.kafka.tools
    (4.4)."""
    if name not in _TOOL_CLASSES:
        raise KeyError("unknown Kafka tool %r (known: %s)"
                       % (name, ", ".join(sorted(_TOOL_CLASSES))))
    by_version = _TOOL_CLASSES[name]
    key = _version_key(version)
    usable = [v for v in by_version if v <= key]
    return by_version[max(usable) if usable else min(by_version)]


# ---------------------------------------------------------------------------------------------
# The class path


def default_cache_dir():
    """Where classpath() keeps its answers: $LDS_KAFKA_CACHE_DIR, else
    ${XDG_CACHE_HOME:-~/.cache}/lds-kafka-runtime."""
    if os.environ.get("LDS_KAFKA_CACHE_DIR"):
        return os.environ["LDS_KAFKA_CACHE_DIR"]
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "lds-kafka-runtime")


def _read_classpath(path):
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read().strip()
    except OSError:
        return None
    entries = [e for e in text.split(os.pathsep) if e]
    if not entries or not all(os.path.isfile(e) for e in entries):
        return None  # a jar went away (a cleaned ~/.m2): ask Maven again
    return os.pathsep.join(entries)


def _tail(text, lines=40):
    text = re.sub(r"\x1b\[[0-9;]*m", "", text)  # Maven colours its words even with -B
    return "\n".join(text.rstrip().splitlines()[-lines:])


def classpath(version=DEFAULT_VERSION, cache_dir=None):
    """The run-time class path (a ':'-separated string of jars) of Kafka `version`'s broker and
    tools, from `mvn -o dependency:build-classpath` on adapters/kafka/runtime/pom.xml; Maven runs once per
    version and pom, the answer is kept in cache_dir (default_cache_dir()). Raises
    KafkaRuntimeError, with Maven's words, when Maven is missing or ~/.m2 lacks a jar."""
    cache_dir = cache_dir or default_cache_dir()
    with open(RUNTIME_POM, "rb") as f:
        pom_tag = hashlib.sha256(f.read()).hexdigest()[:12]
    cached = os.path.join(cache_dir, "kafka-%s-%s.classpath" % (version, pom_tag))
    found = _read_classpath(cached)
    if found:
        return found
    mvn = shutil.which("mvn")
    if not mvn:
        raise KafkaRuntimeError("mvn is not on PATH, so the class path of Kafka %s cannot be "
                                "resolved (tools/install-deps.sh installs Maven)" % version)
    try:
        os.makedirs(cache_dir, exist_ok=True)
    except OSError as e:
        raise KafkaRuntimeError("cannot make the cache folder %s: %s" % (cache_dir, e)) from None
    partial = "%s.%d.tmp" % (cached, os.getpid())
    command = [mvn, "-o", "-q", "-B", "-Dstyle.color=never", "-f", RUNTIME_POM,
               "dependency:build-classpath", "-Dkafka.version=%s" % version,
               "-Dmdep.outputFile=%s" % partial]
    try:
        result = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                                timeout=300)
    except subprocess.TimeoutExpired:
        raise KafkaRuntimeError("%s ran out of time (300 s)" % " ".join(command)) from None
    found = _read_classpath(partial) if result.returncode == 0 else None
    if not found:
        try:
            os.unlink(partial)
        except OSError:
            pass
        raise KafkaRuntimeError(
            "Maven could not resolve the class path of Kafka %s offline (exit %d); run once "
            "online: mvn -B -f %s dependency:build-classpath -Dkafka.version=%s "
            "-Dmdep.outputFile=/dev/null\n%s\n%s" % (
                version, result.returncode, RUNTIME_POM, version, _tail(result.stdout),
                _tail(result.stderr)))
    os.replace(partial, cached)  # atomic: a concurrent test reads the old answer or the new one
    return found


def _stamp(path):
    st = os.stat(path)
    return "%s %d %d\n" % (path, st.st_size, st.st_mtime_ns)


def class_data_archive(version, java_home=None, cache_dir=None):
    """Where the class-data sharing archive of Kafka `version` on `java_home` lives (it may not
    exist yet): named after the class path and the very jars and JVM it was made from, so a new
    jar or JDK gets a new archive instead of one the JVM would refuse."""
    cp = classpath(version, cache_dir)
    java = os.path.realpath(_java(java_home))
    digest = hashlib.sha256(" ".join(ARCHIVE_MODULE_OPTS).encode())
    for path in [java, os.path.join(os.path.dirname(os.path.dirname(java)), "lib", "server",
                                    "libjvm.so")] + cp.split(os.pathsep):
        if os.path.exists(path):
            digest.update(_stamp(path).encode())
    return os.path.join(cache_dir or default_cache_dir(),
                        "kafka-%s-%s.jsa" % (version, digest.hexdigest()[:16]))


def _make_class_data_archive(java, cp, lists, archive, timeout=300):
    """Dumps the classes the JVMs of one cluster loaded (their -XX:DumpLoadedClassList files)
    into `archive` (java -Xshare:dump). When the JVM refuses, it writes archive + ".failed" with
    the JVM's words, and no later cluster tries again (remove that file to retry); returns whether
    the archive is there."""
    names = set()
    for path in lists:
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                for line in f:
                    # A class the built-in loaders took: "name" (Java 17) or "name id: N"
                    # (Java 25); lambda forms (@...) and classes of other loaders ("super:",
                    # "source:") are not for an archive made from the class path alone.
                    words = line.split()
                    if not words or words[0].startswith(("#", "@")):
                        continue
                    if len(words) == 1 or (len(words) == 3 and words[1] == "id:"):
                        names.add(words[0])
        except OSError:
            continue
    if len(names) < 500:
        return False  # a cluster that never got going: nothing worth an archive
    folder = os.path.dirname(archive)
    os.makedirs(folder, exist_ok=True)
    for name in os.listdir(folder):  # what a dump killed halfway left: <archive>.<pid>.<part>
        parts = name.rsplit(".", 3)
        if (len(parts) == 4 and parts[1] == "jsa" and parts[2].isdigit()
                and parts[3] in ("tmp", "classes") and not _pid_alive(int(parts[2]))):
            try:
                os.unlink(os.path.join(folder, name))
            except OSError:
                pass
    partial = "%s.%d.tmp" % (archive, os.getpid())
    class_list = "%s.%d.classes" % (archive, os.getpid())
    with open(class_list, "w") as f:
        f.write("\n".join(sorted(names)) + "\n")
    try:
        result = subprocess.run(
            [java, "-Xshare:dump"] + ARCHIVE_MODULE_OPTS + ["-XX:SharedClassListFile=" + class_list,
             "-XX:SharedArchiveFile=" + partial, "-Xlog:disable", "-Xlog:all=error:stderr",
             "-cp", cp], stdin=subprocess.DEVNULL, capture_output=True, text=True,
            timeout=timeout, preexec_fn=_child_setup(os.getpid()))
        ok = result.returncode == 0 and os.path.isfile(partial)
        why = "exit %d\n%s\n%s" % (result.returncode, _tail(result.stdout), _tail(result.stderr))
    except subprocess.TimeoutExpired:
        ok, why = False, None  # a busy machine, not a broken JVM: a later cluster tries again
    finally:
        os.unlink(class_list)
    if ok:
        os.replace(partial, archive)
        return True
    try:
        os.unlink(partial)
    except OSError:
        pass
    if why:
        with open(archive + ".failed", "w") as f:
            f.write(why + "\n")
    return False


# ---------------------------------------------------------------------------------------------
# Ports, processes, mounts


def _ephemeral_low():
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def _port_is_free(port):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_port():
    """A TCP port on 127.0.0.1 that nothing listens on now. Picked at random below the kernel's
    ephemeral range, so that no client's outgoing connection takes it before the broker binds."""
    low = _ephemeral_low()
    if low > 12000:
        for _ in range(64):
            port = random.randint(10000, low - 1)
            if _port_is_free(port):
                return port
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


_libc_handle = None


def _libc():
    global _libc_handle
    if _libc_handle is None:
        _libc_handle = ctypes.CDLL("libc.so.6", use_errno=True)
        _libc_handle.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                                       ctypes.c_ulong, ctypes.c_char_p]
        _libc_handle.umount2.argtypes = [ctypes.c_char_p, ctypes.c_int]
        _libc_handle.unshare.argtypes = [ctypes.c_int]
        _libc_handle.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong,
                                       ctypes.c_ulong, ctypes.c_ulong]
    return _libc_handle


_CLONE_NEWNS = 0x00020000
_MS_NOSUID, _MS_NODEV, _MS_REC, _MS_PRIVATE = 0x2, 0x4, 0x4000, 0x40000
_MNT_DETACH = 2
_PR_SET_PDEATHSIG = 1
_namespace = {"why": None, "thread": None}


def use_private_mount_namespace():
    """Moves the calling thread, and every process it starts from now on, into a mount namespace
    of its own whose mounts do not reach the machine's; once per process, from the main thread.
    "" on success, else why not."""
    if _namespace["why"] is None:
        if threading.current_thread() is not threading.main_thread():
            return "a private mount namespace is only made from the main thread"
        libc = _libc()
        if libc.unshare(_CLONE_NEWNS) != 0:
            why = "unshare(CLONE_NEWNS) failed: " + os.strerror(ctypes.get_errno())
        elif libc.mount(b"none", b"/", None, _MS_REC | _MS_PRIVATE, None) != 0:
            why = "making the mounts of / private failed: " + os.strerror(ctypes.get_errno())
        else:
            why = ""
            _namespace["thread"] = threading.get_ident()
        _namespace["why"] = why
    if _namespace["why"] == "" and threading.get_ident() != _namespace["thread"]:
        return "the private mount namespace belongs to the main thread; start clusters there"
    return _namespace["why"]


def _mount_tmpfs(path, mib):
    os.makedirs(path, exist_ok=True)
    options = ("size=%dm,mode=0755" % mib).encode()
    if _libc().mount(b"tmpfs", path.encode(), b"tmpfs", _MS_NOSUID | _MS_NODEV, options) != 0:
        raise KafkaRuntimeError("mounting a %d MiB tmpfs on %s failed: %s"
                                % (mib, path, os.strerror(ctypes.get_errno())))


def _unmount(path):
    libc = _libc()
    if libc.umount2(path.encode(), 0) == 0:
        return
    if libc.umount2(path.encode(), _MNT_DETACH) != 0:  # busy: detach now, freed when unused
        err = ctypes.get_errno()
        if path in mounts_under(path):
            raise KafkaRuntimeError("unmounting %s failed: %s" % (path, os.strerror(err)))


def _unescape_mount_field(field):
    # /proc/self/mounts writes a space, tab, newline or backslash as \ooo.
    out, i = [], 0
    while i < len(field):
        code = field[i + 1:i + 4]
        if field[i] == "\\" and len(code) == 3 and code.isdigit():
            out.append(chr(int(code, 8)))
            i += 4
        else:
            out.append(field[i])
            i += 1
    return "".join(out)


def mounts_under(path):
    """The mount points at or below `path`, as the calling thread's mount namespace sees them."""
    root = os.path.realpath(path)
    found = []
    try:
        with open("/proc/thread-self/mounts", encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return found
    for line in lines:
        fields = line.split(" ")
        if len(fields) >= 2:
            point = _unescape_mount_field(fields[1])
            if point == root or point.startswith(root.rstrip("/") + "/"):
                found.append(point)
    return found


def processes_using(path):
    """[(pid, command line)] of the processes, other than this one, whose command line names
    `path` (a broker or tool of a cluster whose workdir is `path`)."""
    needle = os.path.realpath(path).encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open("/proc/%s/cmdline" % entry, "rb") as f:
                cmdline = f.read()
        except OSError:
            continue
        if needle in cmdline:
            found.append((int(entry), cmdline.replace(b"\0", b" ").decode(errors="replace")))
    return found


def _pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _child_setup(parent_pid, die_with_parent=True, own_group=False):
    """preexec_fn: the child gets SIGKILL when the thread that started it ends (PR_SET_PDEATHSIG),
    so a test killed outright takes its JVMs along. A broker started from another thread than the
    main one must outlive that thread: die_with_parent=False. own_group: the child leads a process
    group of its own (setsid), which a terminal's Ctrl-C does not reach and stop() signals whole."""
    def setup():
        if own_group:
            os.setsid()
        if die_with_parent:
            _libc().prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
            if os.getppid() != parent_pid:
                os._exit(1)
    return setup


def wait_for(what, predicate, timeout=60.0, interval=0.25):
    """predicate()'s first true value, asked every `interval` s; AssertionError naming `what`
    after `timeout` s."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError("timed out after %.0f s waiting for %s" % (timeout, what))
        time.sleep(interval)


def reap_stale_workdirs(parent, prefix="lds-kafka-"):
    """Removes the <prefix>XXXXXXXX folders (mkdtemp's 8 characters) in `parent` whose owner
    (owner.pid) is dead and that no process names and nothing is mounted under: what a test killed
    outright left behind. lds_host_server.py reaps its own folders with it too."""
    try:
        names = os.listdir(parent)
    except OSError:
        return
    for name in names:
        if not re.fullmatch(re.escape(prefix) + r"[A-Za-z0-9_]{8}", name):
            continue
        path = os.path.join(parent, name)
        try:
            with open(os.path.join(path, "owner.pid")) as f:
                owner = int(f.read().strip())
        except (OSError, ValueError):
            continue
        if _pid_alive(owner) or processes_using(path) or mounts_under(path):
            continue
        shutil.rmtree(path, ignore_errors=True)


# ---------------------------------------------------------------------------------------------
# Whether a real Kafka can run here


_skip_answers = {}


def _java(java_home):
    return os.path.join(java_home or JAVA17_HOME, "bin", "java")


def skip_reason(version=DEFAULT_VERSION, cache_dir=None, java_home=None):
    """Why a real-Kafka test cannot run here (not root, so no tmpfs; no Java 17; no mvn; Kafka
    `version`'s class path not resolvable offline; no private mount namespace), or None. Call it
    from the main thread: it makes the private mount namespace the clusters use."""
    key = (version, cache_dir, java_home)
    if key in _skip_answers:
        return _skip_answers[key]
    why = None
    if os.geteuid() != 0:
        why = "not running as root, so the brokers' tmpfs log dirs cannot be mounted"
    elif not os.access(_java(java_home), os.X_OK):
        why = "no Java at %s (Debian's openjdk-17-jre-headless)" % _java(java_home)
    elif not shutil.which("mvn"):
        why = "mvn is not on PATH (Debian's maven), so Kafka's jars cannot be resolved"
    else:
        why = use_private_mount_namespace() or None
        if why is None:
            probe = tempfile.mkdtemp(prefix="lds-kafka-probe-")
            try:
                _mount_tmpfs(probe, 1)
                _unmount(probe)
            except KafkaRuntimeError as e:
                why = str(e)
            finally:
                shutil.rmtree(probe, ignore_errors=True)
        if why is None:
            try:
                classpath(version, cache_dir)
            except KafkaRuntimeError as e:
                why = str(e)
    _skip_answers[key] = why
    return why


# ---------------------------------------------------------------------------------------------
# Clean-up of every live cluster at exit and on SIGTERM/SIGHUP

_live_clusters = []
_handlers_installed = False


def _stop_all_clusters():
    for cluster in list(_live_clusters):
        try:
            cluster._stop(at_exit=True)
        except Exception:  # noqa: BLE001 - at exit, stop what can be stopped
            pass


def _on_fatal_signal(signum, _frame):
    _stop_all_clusters()
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def _install_cleanup():
    global _handlers_installed
    if _handlers_installed:
        return
    _handlers_installed = True
    atexit.register(_stop_all_clusters)
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGTERM, signal.SIGHUP):
            if signal.getsignal(sig) in (signal.SIG_DFL, None):
                signal.signal(sig, _on_fatal_signal)


# ---------------------------------------------------------------------------------------------
# The cluster

_BROKER_LOG4J2 = """<?xml version="1.0" encoding="UTF-8"?>
<Configuration status="WARN" dest="err">
  <Appenders>
    <File name="server" fileName="{path}" append="true" immediateFlush="true">
      <PatternLayout pattern="[%d] %p %m (%c)%n"/>
    </File>
  </Appenders>
  <Loggers>
    <Logger name="org.logdirstrategy" level="INFO"/>
    <Logger name="kafka.request.logger" level="WARN"/>
    <Root level="INFO">
      <AppenderRef ref="server"/>
    </Root>
  </Loggers>
</Configuration>
"""

_TOOLS_LOG4J2 = """<?xml version="1.0" encoding="UTF-8"?>
<Configuration status="WARN" dest="err">
  <Appenders>
    <Console name="stderr" target="SYSTEM_ERR">
      <PatternLayout pattern="[%d] %p %m (%c)%n"/>
    </Console>
  </Appenders>
  <Loggers>
    <Root level="WARN">
      <AppenderRef ref="stderr"/>
    </Root>
  </Loggers>
</Configuration>
"""


def _random_uuid():
    # A Kafka Uuid: 16 random bytes, URL-safe base64 without padding; never led by "-", which a
    # command line would read as an option.
    while True:
        text = base64.urlsafe_b64encode(secrets.token_bytes(16)).decode().rstrip("=")
        if not text.startswith("-"):
            return text


def _props_lines(props):
    if props is None:
        return []
    if isinstance(props, dict):
        return ["%s=%s" % (k, v) for k, v in props.items()]
    return [str(line) for line in props]


class _Node:
    def __init__(self, node_id, root):
        self.id = node_id
        self.root = root
        self.port = None
        self.controller_port = None
        self.jmx_port = None
        self.jmx_local_port = None
        self.log_dirs = []
        self.metadata_dir = os.path.join(root, "metadata")
        self.properties = os.path.join(root, "server.properties")
        self.log4j2 = os.path.join(root, "log4j2.xml")
        self.server_log = os.path.join(root, "server.log")
        self.stdout_log = os.path.join(root, "stdout.log")
        self.process = None
        self.stdout = None


class KafkaCluster:
    """A real Kafka KRaft cluster of `brokers` nodes on 127.0.0.1 (node 1: broker and the one
    controller), each with one tmpfs log dir per dir_sizes_mib entry. A context manager: start()
    on entry, stop() on exit.

    version        Kafka version whose Maven Central jars run (4.4.0, 4.3.2)
    brokers        number of nodes, ids 1..brokers
    dir_sizes_mib  the size of each broker's log dirs, one tmpfs each
    java_home      the JDK to run (default Debian's Java 17)
    jvm_opts       extra JVM options for every broker (-javaagent:..., -D...)
    broker_jvm_opts  {id: [options]} for that broker only, after jvm_opts
    extra_props    dict or "key=value" lines appended to every server.properties
    broker_props   {id: dict or lines} appended to that broker's server.properties after those
    omit_props     keys of the harness's own settings (the lines before extra_props) to leave
                   out, so that Kafka's default applies (log.index.size.max.bytes, ...)
    env            extra environment for the brokers
    workdir        the folder in which the cluster makes its own temp folder (default: $TMPDIR)
    cache_dir      where classpath() keeps its answers
    start_timeout  seconds start() waits for every broker; stop_timeout: before SIGKILL
    tmpfs          False: the log dirs are plain folders of the workdir, dir_sizes_mib gives only
                   their number, and neither root nor a mount namespace is needed (warm_up())
    class_data_sharing  whether the JVMs share one archive of Kafka's classes (default: yes,
                   unless $LDS_KAFKA_CDS is 0). The first cluster of a version records the
                   classes its JVMs load and, at stop(), dumps them into the archive
                   (class_data_archive(), in cache_dir); every later cluster's brokers and tools
                   map it and start in about half the time. A JVM that cannot use it runs without.
    """

    def __init__(self, version=DEFAULT_VERSION, brokers=3, dir_sizes_mib=(64, 128, 256),
                 java_home=None, jvm_opts=(), extra_props=None, broker_props=None, env=None,
                 workdir=None, cache_dir=None, start_timeout=120, stop_timeout=30,
                 class_data_sharing=None, tmpfs=True, omit_props=(), broker_jvm_opts=None):
        if brokers < 1:
            raise ValueError("a cluster needs at least one broker")
        if not dir_sizes_mib:
            raise ValueError("a broker needs at least one log dir")
        self.version = version
        self.brokers = brokers
        self.dir_sizes_mib = tuple(int(m) for m in dir_sizes_mib)
        self.java_home = java_home or JAVA17_HOME
        self.jvm_opts = list(jvm_opts)
        self.broker_jvm_opts = {b: list(o) for b, o in (broker_jvm_opts or {}).items()}
        self.extra_props = extra_props
        self.broker_props = dict(broker_props or {})
        self.omit_props = frozenset(omit_props)
        self.env = dict(env or {})
        self.parent_dir = workdir or tempfile.gettempdir()
        self.cache_dir = cache_dir
        self.start_timeout = start_timeout
        self.stop_timeout = stop_timeout
        self.tmpfs = tmpfs
        if class_data_sharing is None:
            class_data_sharing = os.environ.get("LDS_KAFKA_CDS", "1") != "0"
        self.class_data_sharing = class_data_sharing
        self.cluster_id = _random_uuid()
        self.workdir = None
        self.timings = []  # [(what, seconds)]: format, start, each tool, stop
        self._classpath = None
        self._nodes = {}
        self._mounts = []
        self._stopped = False
        self._archive = None       # the class-data archive the JVMs map
        self._record_to = None     # or the folder where they list the classes they load
        self._records = 0

    # -- context manager

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *_exc):
        self.stop()
        return False

    # -- what tests read

    @property
    def java(self):
        return _java(self.java_home)

    @property
    def classpath(self):
        if self._classpath is None:
            self._classpath = classpath(self.version, self.cache_dir)
        return self._classpath

    @property
    def bootstrap(self):
        """The brokers' listeners: "127.0.0.1:PORT,..."."""
        return ",".join("127.0.0.1:%d" % n.port for n in self._nodes.values())

    def broker_ids(self):
        return sorted(self._nodes)

    def bootstrap_of(self, broker_id):
        return "127.0.0.1:%d" % self._node(broker_id).port

    def log_dirs(self, broker_id):
        """The broker's log dirs (tmpfs mount points), in dir_sizes_mib order."""
        return list(self._node(broker_id).log_dirs)

    def metadata_dir(self, broker_id):
        return self._node(broker_id).metadata_dir

    def node_dir(self, broker_id):
        return self._node(broker_id).root

    def server_properties(self, broker_id):
        return self._node(broker_id).properties

    def server_log(self, broker_id):
        """The text of the broker's log4j2 log (Kafka's lines and org.logdirstrategy's)."""
        return self._read(self._node(broker_id).server_log)

    def stdout_log(self, broker_id):
        """What the broker's JVM wrote to stdout and stderr."""
        return self._read(self._node(broker_id).stdout_log)

    def jmx_port(self, broker_id):
        return self._node(broker_id).jmx_port

    def jmx_url(self, broker_id):
        return "service:jmx:rmi:///jndi/rmi://127.0.0.1:%d/jmxrmi" % self.jmx_port(broker_id)

    def pid(self, broker_id):
        """The broker JVM's pid, or None while it is not running."""
        process = self._node(broker_id).process
        return process.pid if process is not None and process.poll() is None else None

    def log_tail(self, broker_id, lines=60):
        """The last lines of the broker's log and JVM output, for a failure message."""
        node = self._node(broker_id)
        return "--- %s (last %d lines)\n%s\n--- %s\n%s" % (
            node.server_log, lines, _tail(self._read(node.server_log), lines), node.stdout_log,
            _tail(self._read(node.stdout_log), 20))

    # -- start

    def start(self):
        """Mounts the log dirs, formats every node, starts them and waits until each broker is
        registered and unfenced. Raises KafkaRuntimeError (with the brokers' logs) and leaves
        nothing behind when it cannot."""
        if self.workdir is not None:
            raise KafkaRuntimeError("a KafkaCluster starts once")
        why = use_private_mount_namespace() if self.tmpfs else ""
        if why:
            raise KafkaRuntimeError(why)
        _install_cleanup()
        cp = self.classpath  # before anything is made: a missing jar leaves nothing to undo
        if not os.access(self.java, os.X_OK):
            raise KafkaRuntimeError("no Java at %s" % self.java)
        reap_stale_workdirs(self.parent_dir)
        self.workdir = os.path.realpath(tempfile.mkdtemp(prefix="lds-kafka-", dir=self.parent_dir))
        _live_clusters.append(self)
        try:
            with open(os.path.join(self.workdir, "owner.pid"), "w") as f:
                f.write("%d\n" % os.getpid())
            if self.class_data_sharing:
                archive = class_data_archive(self.version, self.java_home, self.cache_dir)
                if os.path.isfile(archive):
                    self._archive = archive
                elif not os.path.exists(archive + ".failed"):
                    self._record_to = os.path.join(self.workdir, "loaded-classes")
                    os.makedirs(self._record_to)
            self._tools_log4j2 = os.path.join(self.workdir, "tools-log4j2.xml")
            with open(self._tools_log4j2, "w") as f:
                f.write(_TOOLS_LOG4J2)
            self._layout()
            began = time.monotonic()
            self._format(cp)
            formatted = time.monotonic()
            self.timings.append(("format %d nodes" % self.brokers, formatted - began))
            offsets = {}
            for node in self._nodes.values():
                offsets[node.id] = self._launch(node)
            self._wait_started(list(self._nodes), offsets, time.monotonic() + self.start_timeout)
            self.timings.append(("start %d nodes" % self.brokers, time.monotonic() - formatted))
        except BaseException:
            self.stop()
            raise
        return self

    def _layout(self):
        used = set()

        def port():
            while True:
                p = free_port()
                if p not in used:
                    used.add(p)
                    return p

        for node_id in range(1, self.brokers + 1):
            node = _Node(node_id, os.path.join(self.workdir, "node-%d" % node_id))
            os.makedirs(node.metadata_dir)
            node.port, node.jmx_port, node.jmx_local_port = port(), port(), port()
            if node_id == 1:
                node.controller_port = port()
            self._nodes[node_id] = node
        controller = self._nodes[1]
        for node in self._nodes.values():
            for i, mib in enumerate(self.dir_sizes_mib):
                path = os.path.join(node.root, "data-%d" % i)
                if self.tmpfs:
                    _mount_tmpfs(path, mib)
                    self._mounts.append(path)
                else:
                    os.makedirs(path)
                node.log_dirs.append(path)
            with open(node.properties, "w") as f:
                f.write(self._properties(node, controller))
            with open(node.log4j2, "w") as f:
                path = _xml_escape(node.server_log, {'"': "&quot;"})
                f.write(_BROKER_LOG4J2.replace("{path}", path))

    def _properties(self, node, controller):
        replicas = min(3, self.brokers)
        listeners = "PLAINTEXT://127.0.0.1:%d" % node.port
        if node.controller_port:
            listeners += ",CONTROLLER://127.0.0.1:%d" % node.controller_port
        lines = [
            "# A node of a test cluster (tests/support/real_kafka.py).",
            "process.roles=%s" % ("broker,controller" if node.id == 1 else "broker"),
            "node.id=%d" % node.id,
            "controller.quorum.voters=1@127.0.0.1:%d" % controller.controller_port,
            "listeners=%s" % listeners,
            "advertised.listeners=PLAINTEXT://127.0.0.1:%d" % node.port,
            "controller.listener.names=CONTROLLER",
            "inter.broker.listener.name=PLAINTEXT",
            "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
            "log.dirs=%s" % ",".join(node.log_dirs),
            "metadata.log.dir=%s" % node.metadata_dir,
            # Two cores: few threads.
            "num.network.threads=1",
            "num.io.threads=2",
            "num.replica.fetchers=1",
            "num.recovery.threads.per.data.dir=1",
            "background.threads=2",
            "log.cleaner.threads=1",
            "log.cleaner.dedupe.buffer.size=8388608",
            # Small segments and indexes: each partition preallocates its offset and time
            # index (1 MiB each, sparse on tmpfs), so a 64 MiB dir holds 80 partitions in
            # under 1 MiB; 8 MiB segments roll well before a dir fills.
            "log.segment.bytes=8388608",
            "log.index.size.max.bytes=1048576",
            # Internal topics: small and as replicated as the cluster allows.
            "offsets.topic.replication.factor=%d" % replicas,
            "offsets.topic.num.partitions=3",
            "transaction.state.log.replication.factor=%d" % replicas,
            "transaction.state.log.min.isr=1",
            "transaction.state.log.num.partitions=3",
            "share.coordinator.state.topic.replication.factor=%d" % replicas,
            "share.coordinator.state.topic.min.isr=1",
            "share.coordinator.state.topic.num.partitions=3",
            "group.initial.rebalance.delay.ms=0",
        ]
        lines = [line for line in lines if line.partition("=")[0] not in self.omit_props]
        lines += ["", "# extra_props"] + _props_lines(self.extra_props)
        lines += ["", "# broker_props[%d]" % node.id] + _props_lines(self.broker_props.get(node.id))
        return "\n".join(lines) + "\n"

    def _format(self, cp):
        processes = []
        for node in self._nodes.values():
            out = open(os.path.join(node.root, "format.log"), "w")
            command = [self.java] + TOOL_JVM_OPTS + self._shared_classes("format") + [
                "-Dlog4j2.configurationFile=" + self._tools_log4j2, "-cp", cp,
                tool_class(self.version, "StorageTool"), "format", "--config", node.properties,
                "--cluster-id", self.cluster_id]
            try:
                process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=out,
                                           stderr=subprocess.STDOUT, cwd=node.root,
                                           preexec_fn=_child_setup(os.getpid()))
            finally:
                out.close()
            processes.append((node, process))
        failures = []
        for node, process in processes:
            try:
                code = process.wait(timeout=120)
            except subprocess.TimeoutExpired:
                process.kill()
                code = process.wait()
            if code != 0:
                failures.append("node %d: exit %s\n%s" % (
                    node.id, code, _tail(self._read(os.path.join(node.root, "format.log")))))
        if failures:
            raise KafkaRuntimeError("kafka.tools.StorageTool format failed:\n"
                                    + "\n".join(failures))

    def _shared_classes(self, what):
        """The JVM options of class-data sharing: map the archive, or list the classes loaded
        for the archive stop() makes; and the JVM's own warnings to stderr either way."""
        if self._archive:
            return JVM_QUIET_OPTS + ARCHIVE_MODULE_OPTS + ["-XX:SharedArchiveFile=" + self._archive]
        if self._record_to and not self._stopped:
            self._records += 1
            return JVM_QUIET_OPTS + ["-XX:DumpLoadedClassList=" + os.path.join(
                self._record_to, "%s-%d.classes" % (what, self._records))]
        return list(JVM_QUIET_OPTS)

    def _broker_command(self, node):
        # Remote JMX on 127.0.0.1 (registry and connector on one port). The JVM always adds its
        # local connector too, on all addresses, but that one accepts local peers only
        # (jmxremote.local.only stays true); its port comes from free_port() as well.
        jmx = ["-Dcom.sun.management.jmxremote.port=%d" % node.jmx_port,
               "-Dcom.sun.management.jmxremote.rmi.port=%d" % node.jmx_port,
               "-Dcom.sun.management.jmxremote.host=127.0.0.1",
               "-Dcom.sun.management.jmxremote.local.port=%d" % node.jmx_local_port,
               "-Djava.rmi.server.hostname=127.0.0.1",
               "-Dcom.sun.management.jmxremote.authenticate=false",
               "-Dcom.sun.management.jmxremote.ssl=false"]
        return ([self.java] + BROKER_JVM_OPTS + self._shared_classes("broker") + jmx +
                ["-Dlog4j2.configurationFile=" + node.log4j2] + self.jvm_opts +
                self.broker_jvm_opts.get(node.id, []) +
                ["-cp", self.classpath, tool_class(self.version, "Kafka"), node.properties])

    def _launch(self, node):
        """Starts the node's JVM; the offset of its server.log where this run's lines begin."""
        offset = os.path.getsize(node.server_log) if os.path.exists(node.server_log) else 0
        env = dict(os.environ)
        for name in ("KAFKA_OPTS", "KAFKA_HEAP_OPTS", "KAFKA_JVM_PERFORMANCE_OPTS",
                     "KAFKA_LOG4J_OPTS", "JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS"):
            env.pop(name, None)
        env.update(self.env)
        on_main_thread = threading.current_thread() is threading.main_thread()
        node.stdout = open(node.stdout_log, "a")
        node.process = subprocess.Popen(self._broker_command(node), stdin=subprocess.DEVNULL,
                                        stdout=node.stdout, stderr=subprocess.STDOUT,
                                        cwd=node.root, env=env,
                                        preexec_fn=_child_setup(os.getpid(), on_main_thread,
                                                                own_group=True))
        return offset

    def _wait_started(self, ids, offsets, deadline):
        pending = set(ids)
        while True:
            for node_id in sorted(pending):
                node = self._nodes[node_id]
                if node.process.poll() is not None:
                    raise KafkaRuntimeError("broker %d exited (%s) before it started\n%s" % (
                        node_id, node.process.returncode, self.log_tail(node_id)))
                if STARTED_LINE in self._read(node.server_log, offsets[node_id]):
                    pending.discard(node_id)
            if not pending:
                return
            if time.monotonic() > deadline:
                raise KafkaRuntimeError("brokers %s did not start in %d s\n%s" % (
                    sorted(pending), self.start_timeout,
                    "\n".join(self.log_tail(i) for i in sorted(pending))))
            time.sleep(0.1)

    # -- one broker

    def stop_broker(self, broker_id, timeout=None):
        """SIGTERM to the broker, SIGKILL after `timeout` (stop_timeout); its exit code."""
        return self._halt([self._node(broker_id)], timeout)[broker_id]

    def kill_broker(self, broker_id):
        """SIGKILL to the broker: no controlled shutdown; its exit code."""
        return self._halt([self._node(broker_id)], 0)[broker_id]

    def start_broker(self, broker_id, timeout=None):
        """Starts a stopped broker again, same config and dirs; waits until it is started."""
        node = self._node(broker_id)
        if node.process is not None and node.process.poll() is None:
            raise KafkaRuntimeError("broker %d is running" % broker_id)
        began = time.monotonic()
        offset = self._launch(node)
        self._wait_started([broker_id], {broker_id: offset},
                           time.monotonic() + (timeout or self.start_timeout))
        self.timings.append(("start broker %d" % broker_id, time.monotonic() - began))

    def restart_broker(self, broker_id, timeout=None):
        self.stop_broker(broker_id)
        self.start_broker(broker_id, timeout)

    def _halt(self, nodes, timeout):
        """Stops the nodes' JVMs together (SIGTERM, SIGKILL after timeout); {id: exit code}."""
        timeout = self.stop_timeout if timeout is None else timeout
        running = [n for n in nodes if n.process is not None]
        for node in running:
            if node.process.poll() is None:
                try:
                    os.killpg(node.process.pid, signal.SIGKILL if timeout == 0 else signal.SIGTERM)
                except ProcessLookupError:
                    pass
        deadline = time.monotonic() + timeout
        codes = {}
        for node in running:
            try:
                codes[node.id] = node.process.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                try:
                    os.killpg(node.process.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                codes[node.id] = node.process.wait()
            # Anything the JVM started in its process group goes too.
            try:
                os.killpg(node.process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            node.process = None
            if node.stdout is not None:
                node.stdout.close()
                node.stdout = None
        return codes

    # -- stop

    def stop(self):
        """Stops every broker (node 1, the controller, last), unmounts the log dirs and removes
        the workdir. Safe to call twice; raises only if something could not be removed."""
        self._stop(at_exit=False)

    def _stop(self, at_exit):
        if self._stopped or self.workdir is None:
            self._stopped = True
            return
        self._stopped = True
        began = time.monotonic()
        problems = []
        others = [n for i, n in self._nodes.items() if i != 1]
        for group in (others, [self._nodes[1]] if 1 in self._nodes else []):
            try:
                self._halt(group, None)
            except Exception as e:  # noqa: BLE001 - go on cleaning up
                problems.append("stopping brokers: %s" % e)
        if self._record_to and not at_exit:  # at exit or on a signal: quick, no archive
            self._archive_loaded_classes()
        for path in reversed(self._mounts):
            try:
                _unmount(path)
            except Exception as e:  # noqa: BLE001
                problems.append(str(e))
        self._mounts = []
        shutil.rmtree(self.workdir, ignore_errors=True)
        if os.path.exists(self.workdir):
            problems.append("could not remove %s" % self.workdir)
        if self in _live_clusters:
            _live_clusters.remove(self)
        self.timings.append(("stop", time.monotonic() - began))
        if problems:
            raise KafkaRuntimeError("; ".join(problems))

    def _archive_loaded_classes(self):
        started = all(STARTED_LINE in self._read(n.server_log) for n in self._nodes.values())
        if not started:
            return
        began = time.monotonic()
        try:
            lists = [os.path.join(self._record_to, n) for n in os.listdir(self._record_to)]
            archive = class_data_archive(self.version, self.java_home, self.cache_dir)
            if not os.path.exists(archive):
                _make_class_data_archive(self.java, self.classpath, lists, archive)
        except (OSError, KafkaRuntimeError):
            return  # only an optimisation: the next cluster tries again
        self.timings.append(("class-data archive", time.monotonic() - began))

    # -- tools

    def tool(self, main_class, *args, timeout=120, input=None, check=True, jvm_opts=()):
        """Runs a Kafka tool in its own JVM: java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC
        -Xmx256m -cp <classpath> main_class args. main_class is a class name, or a short name
        for tool_class() (TopicCommand, ...). Returns the subprocess.CompletedProcess (text);
        raises ToolError, with stdout and stderr, on a nonzero exit unless check=False, and
        KafkaRuntimeError after `timeout` seconds."""
        cls = main_class if "." in main_class else tool_class(self.version, main_class)
        log4j2 = getattr(self, "_tools_log4j2", None)
        command = [self.java] + TOOL_JVM_OPTS + self._shared_classes("tool") + list(jvm_opts)
        if log4j2 and os.path.isfile(log4j2):
            command.append("-Dlog4j2.configurationFile=" + log4j2)
        command += ["-cp", self.classpath, cls] + [str(a) for a in args]
        env = dict(os.environ)
        for name in ("JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS"):
            env.pop(name, None)
        began = time.monotonic()
        try:
            result = subprocess.run(command, input=input, capture_output=True, text=True,
                                    timeout=timeout, env=env,
                                    cwd=self.workdir if not self._stopped else None,
                                    stdin=None if input is not None else subprocess.DEVNULL,
                                    preexec_fn=_child_setup(os.getpid()))
        except subprocess.TimeoutExpired as e:
            raise KafkaRuntimeError("%s ran out of time (%s s)\nstdout:\n%s\nstderr:\n%s" % (
                " ".join([cls] + [str(a) for a in args]), timeout,
                _tail(_text(e.stdout)), _tail(_text(e.stderr)))) from None
        finally:
            self.timings.append((cls.rsplit(".", 1)[-1], time.monotonic() - began))
        if check and result.returncode != 0:
            raise ToolError("%s exited %d\nstdout:\n%s\nstderr:\n%s" % (
                " ".join([cls] + [str(a) for a in args]), result.returncode,
                _tail(result.stdout), _tail(result.stderr)), result)
        return result

    # -- helpers

    def _node(self, broker_id):
        try:
            return self._nodes[broker_id]
        except KeyError:
            raise KeyError("no broker %r (brokers: %s)"
                           % (broker_id, sorted(self._nodes))) from None

    @staticmethod
    def _read(path, offset=0):
        try:
            with open(path, "rb") as f:
                f.seek(offset)
                return f.read().decode("utf-8", errors="replace")
        except OSError:
            return ""


def _text(data):
    if data is None:
        return ""
    return data.decode(errors="replace") if isinstance(data, bytes) else data


# ---------------------------------------------------------------------------------------------
# What tools answer


def describe_log_dirs_json(cluster, topics=None, brokers=None):
    """The JSON LogDirsCommand --describe prints: {"version": 1, "brokers": [{"broker": id,
    "logDirs": [{"logDir": path, "error": ..., "partitions": [{"partition": "t-0", "size": n,
    "offsetLag": n, "isFuture": b}]}]}]}."""
    args = ["--bootstrap-server", cluster.bootstrap, "--describe"]
    if topics:
        args += ["--topic-list", ",".join(topics)]
    if brokers:
        args += ["--broker-list", ",".join(str(b) for b in brokers)]
    result = cluster.tool("LogDirsCommand", *args)
    for line in result.stdout.splitlines():
        if line.startswith("{"):
            return json.loads(line)
    raise KafkaRuntimeError("LogDirsCommand printed no JSON:\n%s\n%s"
                            % (result.stdout, result.stderr))


def _partition_key(name):
    topic, _, number = name.rpartition("-")
    return (topic, int(number) if number.isdigit() else -1)


def describe_log_dirs(cluster, topics=None, brokers=None):
    """{broker id: {log dir: ["topic-partition", ...]}} as the brokers report it
    (LogDirsCommand --describe), every log dir listed, its partitions sorted."""
    answer = {}
    for broker in describe_log_dirs_json(cluster, topics, brokers).get("brokers", []):
        dirs = answer.setdefault(int(broker["broker"]), {})
        for log_dir in broker.get("logDirs", []):
            partitions = [p["partition"] for p in log_dir.get("partitions", [])]
            dirs[log_dir["logDir"]] = sorted(partitions, key=_partition_key)
    return answer


# ---------------------------------------------------------------------------------------------
# Warm-up: python3 tests/support/real_kafka.py warm-up [VERSION ...]


def warm_up(versions=VERSIONS, cache_dir=None, java_home=None, log=None):
    """Fills the cache for each Kafka version: its class path (Maven, offline) and its
    class-data archive, recorded from a one-node cluster on plain folders (no root needed) that
    runs each tool once. A version whose archive exists is only checked."""
    log = log or (lambda line: None)
    for version in versions:
        began = time.monotonic()
        classpath(version, cache_dir)
        archive = class_data_archive(version, java_home, cache_dir)
        if os.path.isfile(archive):
            log("Kafka %s: class path and class-data archive cached" % version)
            continue
        with KafkaCluster(version=version, brokers=1, dir_sizes_mib=(64, 64), tmpfs=False,
                          java_home=java_home, cache_dir=cache_dir) as cluster:
            cluster.tool("TopicCommand", "--bootstrap-server", cluster.bootstrap, "--create",
                         "--topic", "warm-up", "--partitions", "2", "--replication-factor", "1")
            cluster.tool("TopicCommand", "--bootstrap-server", cluster.bootstrap, "--describe",
                         "--topic", "warm-up")
            describe_log_dirs(cluster)
            cluster.tool("ProducerPerformance", "--topic", "warm-up", "--num-records", 100,
                         "--record-size", 100, "--throughput", -1, "--bootstrap-server",
                         cluster.bootstrap)
            cluster.tool("ConsoleProducer", "--bootstrap-server", cluster.bootstrap, "--topic",
                         "warm-up", input="one\ntwo\n")
            cluster.tool("ConsoleConsumer", "--bootstrap-server", cluster.bootstrap, "--topic",
                         "warm-up", "--from-beginning", "--max-messages", 102, "--timeout-ms",
                         30000)
            cluster.tool("ConfigCommand", "--bootstrap-server", cluster.bootstrap, "--entity-type",
                         "brokers", "--entity-name", "1", "--alter", "--add-config",
                         "log.cleaner.threads=1")
            cluster.tool("ConfigCommand", "--bootstrap-server", cluster.bootstrap, "--entity-type",
                         "brokers", "--entity-name", "1", "--describe")
            cluster.tool("JmxTool", "--jmx-url", cluster.jmx_url(1), "--object-name",
                         "kafka.server:type=KafkaServer,name=BrokerState", "--one-time", "true")
        state = "made" if os.path.isfile(archive) else "not made"
        log("Kafka %s: class path cached, class-data archive %s (%.1f s)" % (
            version, state, time.monotonic() - began))


def _main(argv):
    usage = ("usage: real_kafka.py warm-up [--java-home DIR] [VERSION ...]   (default: Java 17, %s)"
             % " ".join(VERSIONS))
    if not argv or argv[0] != "warm-up":
        return usage
    args, java_home = argv[1:], None
    if args[:1] == ["--java-home"]:
        if len(args) < 2:
            return usage
        java_home, args = args[1], args[2:]
    try:
        warm_up(args or VERSIONS, java_home=java_home, log=lambda line: print(line, flush=True))
    except KafkaRuntimeError as e:
        return "real_kafka.py warm-up: %s" % e
    return 0


if __name__ == "__main__":
    import sys
    sys.exit(_main(sys.argv[1:]))
