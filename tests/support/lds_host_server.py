"""lds_host_server.py: a real `lds-host serve` with its Kafka listener, for the Python suites that
drive it with Kafka's own tools (standard library only, for /usr/bin/python3).

    import lds_host_server
    with lds_host_server.LdsHostServer(dir_sizes_mib=(64, 128, 256), broker_id=1) as host:
        cluster.tool("TopicCommand", "--bootstrap-server", host.bootstrap, "--list")
        host.log_dirs()       # the tmpfs mount points, in log.dirs order
        host.server_log()     # what lds-host wrote (stdout and stderr)

The executable is $LDS_HOST (ctest sets it), else build/host_stub/lds-host of this checkout; the
strategies are loaded from $LDS_PLUGIN_DIR, else build/plugins.

The layout. Each server owns a fresh temp folder (workdir, named lds-host-*) and removes it:

    broker.toml          the generated config (extra_config lines last)
    broker.toml.dynamic  what dynamic changes lds-host saved (it writes it itself)
    admin.sock           the admin API's socket
    server.log           lds-host's stdout and stderr
    data-<i>/            one log dir per dir_sizes_mib entry, each its own tmpfs mount

Mounts and processes follow tests/support/real_kafka.py: the tmpfs dirs are mounted in the private
mount namespace real_kafka makes (start the server from the main thread, which is the one in that
namespace), lds-host dies with the thread that started it (PR_SET_PDEATHSIG=SIGKILL), a server not
stopped is stopped at exit and on SIGTERM/SIGHUP (chained with real_kafka's handler), and a workdir
left by a test killed outright is removed by the next server that starts (owner.pid names a dead
process). Everything listens on 127.0.0.1, on a port from real_kafka.free_port().
"""

import atexit
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import real_kafka  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))


class LdsHostError(RuntimeError):
    """lds-host could not be set up, started or stopped."""


def default_executable():
    """$LDS_HOST, else the build tree's lds-host (build/host_stub/lds-host)."""
    return os.environ.get("LDS_HOST") or os.path.join(REPO, "build", "host_stub", "lds-host")


def default_plugin_dir():
    """$LDS_PLUGIN_DIR, else the build tree's strategies (build/plugins)."""
    return os.environ.get("LDS_PLUGIN_DIR") or os.path.join(REPO, "build", "plugins")


def skip_reason(executable=None, plugin_dir=None):
    """Why a suite that runs lds-host cannot run here (no executable, no partition strategy), or
    None. Root and the mount namespace are real_kafka.skip_reason()'s to judge."""
    executable = executable or default_executable()
    plugin_dir = plugin_dir or default_plugin_dir()
    if not os.access(executable, os.X_OK):
        return "lds-host is not built (%s; set LDS_HOST)" % executable
    if not os.path.isfile(os.path.join(plugin_dir, "liblds_partition.so")):
        return "no liblds_partition.so in %s (set LDS_PLUGIN_DIR)" % plugin_dir
    return None


def toml_string(text):
    """A TOML basic string."""
    return '"%s"' % text.replace("\\", "\\\\").replace('"', '\\"')


def toml_value(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, (list, tuple)):
        return "[%s]" % ", ".join(toml_value(v) for v in value)
    return toml_string(str(value))


# ---------------------------------------------------------------------------------------------
# Clean-up of every live server at exit and on SIGTERM/SIGHUP

_live_servers = []
_handlers_installed = False


def _stop_all_servers():
    for server in list(_live_servers):
        try:
            server._stop(quick=True)
        except Exception:  # noqa: BLE001 - at exit, stop what can be stopped
            pass


def _install_cleanup():
    global _handlers_installed
    if _handlers_installed:
        return
    _handlers_installed = True
    atexit.register(_stop_all_servers)
    if threading.current_thread() is not threading.main_thread():
        return
    for sig in (signal.SIGTERM, signal.SIGHUP):
        previous = signal.getsignal(sig)

        def handler(signum, frame, previous=previous):
            _stop_all_servers()
            if callable(previous):
                previous(signum, frame)  # real_kafka's: stops its clusters, dies of the signal
                return
            # real_kafka installs its handler only over the default one: stop its clusters too.
            real_kafka._stop_all_clusters()
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)

        if previous in (signal.SIG_DFL, None) or callable(previous):
            signal.signal(sig, handler)


# ---------------------------------------------------------------------------------------------
# The server


class LdsHostServer:
    """`lds-host serve` on a generated broker.toml with a Kafka listener on 127.0.0.1. A context
    manager: start() on entry, stop() on exit.

    dir_sizes_mib  the size of each log dir, one tmpfs each (tmpfs=False: plain folders)
    broker_id      broker.id
    cluster_id     cluster.id (a Kafka Uuid), or None for the one lds-host generates
    strategy       log.directory.select.strategy
    config         {key: value} more keys of broker.toml (Python str, int, bool or list)
    executable, plugin_dir   default_executable(), default_plugin_dir()
    workdir        the folder in which the server makes its own temp folder (default: $TMPDIR)
    """

    def __init__(self, dir_sizes_mib=(64, 128, 256), broker_id=0, cluster_id=None,
                 strategy="partition", config=None, executable=None, plugin_dir=None,
                 workdir=None, tmpfs=True, start_timeout=30, stop_timeout=15):
        if not dir_sizes_mib:
            raise ValueError("lds-host needs at least one log dir")
        self.dir_sizes_mib = tuple(int(m) for m in dir_sizes_mib)
        self.broker_id = broker_id
        self.cluster_id = cluster_id
        self.strategy = strategy
        self.config = dict(config or {})
        self.executable = os.path.abspath(executable or default_executable())
        self.plugin_dir = os.path.abspath(plugin_dir or default_plugin_dir())
        self.parent_dir = workdir or tempfile.gettempdir()
        self.tmpfs = tmpfs
        self.start_timeout = start_timeout
        self.stop_timeout = stop_timeout
        self.workdir = None
        self.port = None
        self.process = None
        self.timings = []
        self._log_dirs = []
        self._mounts = []
        self._log = None
        self._stopped = False

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *_exc):
        self.stop()
        return False

    # -- what tests read

    @property
    def bootstrap(self):
        return "127.0.0.1:%d" % self.port

    @property
    def config_file(self):
        return os.path.join(self.workdir, "broker.toml")

    @property
    def admin_socket(self):
        return os.path.join(self.workdir, "admin.sock")

    @property
    def server_log_file(self):
        return os.path.join(self.workdir, "server.log")

    def log_dirs(self):
        """The log dirs (tmpfs mount points), in dir_sizes_mib order."""
        return list(self._log_dirs)

    def server_log(self):
        try:
            with open(self.server_log_file, "rb") as f:
                return f.read().decode("utf-8", errors="replace")
        except (OSError, TypeError):
            return ""

    def log_tail(self, lines=60):
        return "--- %s (last %d lines)\n%s" % (
            self.server_log_file, lines, "\n".join(self.server_log().splitlines()[-lines:]))

    def pid(self):
        return self.process.pid if self.process is not None and self.process.poll() is None \
            else None

    def client(self, *args, timeout=60):
        """Runs `lds-host <args> --socket <admin.sock>`; the CompletedProcess (text)."""
        return subprocess.run([self.executable] + [str(a) for a in args] +
                              ["--socket", self.admin_socket], capture_output=True, text=True,
                              timeout=timeout, stdin=subprocess.DEVNULL)

    # -- start

    def start(self):
        """Mounts the log dirs, writes broker.toml, starts `lds-host serve` and waits until its
        Kafka listener accepts a connection. Raises LdsHostError (with the server's log) and
        leaves nothing behind when it cannot."""
        if self.workdir is not None:
            raise LdsHostError("an LdsHostServer starts once")
        why = skip_reason(self.executable, self.plugin_dir)
        if why:
            raise LdsHostError(why)
        if self.tmpfs:
            why = real_kafka.use_private_mount_namespace()
            if why:
                raise LdsHostError(why)
        _install_cleanup()
        real_kafka.reap_stale_workdirs(self.parent_dir, "lds-host-")
        self.workdir = os.path.realpath(tempfile.mkdtemp(prefix="lds-host-", dir=self.parent_dir))
        _live_servers.append(self)
        began = time.monotonic()
        try:
            with open(os.path.join(self.workdir, "owner.pid"), "w") as f:
                f.write("%d\n" % os.getpid())
            for i, mib in enumerate(self.dir_sizes_mib):
                path = os.path.join(self.workdir, "data-%d" % i)
                if self.tmpfs:
                    real_kafka._mount_tmpfs(path, mib)
                    self._mounts.append(path)
                else:
                    os.makedirs(path)
                self._log_dirs.append(path)
            self.port = real_kafka.free_port()
            with open(self.config_file, "w") as f:
                f.write(self._toml())
            self._launch()
            self._wait_listening(time.monotonic() + self.start_timeout)
        except BaseException:
            try:
                self._stop(quick=True)
            except LdsHostError:
                pass
            raise
        self.timings.append(("start lds-host", time.monotonic() - began))
        return self

    def _toml(self):
        lines = [
            "# lds-host of a test (tests/support/lds_host_server.py).",
            "broker.id = %d" % self.broker_id,
        ]
        if self.cluster_id:
            lines.append("cluster.id = %s" % toml_string(self.cluster_id))
        lines += [
            "log.dirs = %s" % toml_value(self._log_dirs),
            "plugin.dir = %s" % toml_string(self.plugin_dir),
            "admin.socket = %s" % toml_string(self.admin_socket),
            "listeners = %s" % toml_string("PLAINTEXT://127.0.0.1:%d" % self.port),
            "log.directory.select.strategy = %s" % toml_string(self.strategy),
        ]
        lines += ["%s = %s" % (k, toml_value(v)) for k, v in self.config.items()]
        return "\n".join(lines) + "\n"

    def _launch(self):
        self._log = open(self.server_log_file, "ab")
        on_main_thread = threading.current_thread() is threading.main_thread()
        self.process = subprocess.Popen(
            [self.executable, "serve", "--config", self.config_file], stdin=subprocess.DEVNULL,
            stdout=self._log, stderr=subprocess.STDOUT, cwd=self.workdir,
            preexec_fn=real_kafka._child_setup(os.getpid(), on_main_thread, own_group=True))

    def _wait_listening(self, deadline):
        while True:
            if self.process.poll() is not None:
                raise LdsHostError("lds-host serve exited (%s) before its Kafka listener was up\n%s"
                                   % (self.process.returncode, self.log_tail()))
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise LdsHostError("lds-host serve did not listen on %s in %d s\n%s"
                                   % (self.bootstrap, self.start_timeout, self.log_tail()))
            time.sleep(0.05)

    # -- stop

    def stop(self):
        """SIGTERM to lds-host (SIGKILL after stop_timeout), unmounts the log dirs and removes the
        workdir. Returns lds-host's exit code (None if it was not running). Safe to call twice;
        raises LdsHostError if something could not be removed."""
        return self._stop(quick=False)

    def _stop(self, quick):
        if self._stopped or self.workdir is None:
            self._stopped = True
            return None
        self._stopped = True
        began = time.monotonic()
        problems = []
        code = None
        if self.process is not None:
            code = self._halt(0 if quick else self.stop_timeout)
        if self._log is not None:
            self._log.close()
            self._log = None
        for path in reversed(self._mounts):
            try:
                real_kafka._unmount(path)
            except Exception as e:  # noqa: BLE001
                problems.append(str(e))
        self._mounts = []
        shutil.rmtree(self.workdir, ignore_errors=True)
        if os.path.exists(self.workdir):
            problems.append("could not remove %s" % self.workdir)
        if self in _live_servers:
            _live_servers.remove(self)
        self.timings.append(("stop lds-host", time.monotonic() - began))
        if problems:
            raise LdsHostError("; ".join(problems))
        return code

    def _halt(self, timeout):
        process, self.process = self.process, None
        if process.poll() is None:
            try:
                os.killpg(process.pid, signal.SIGKILL if timeout == 0 else signal.SIGTERM)
            except ProcessLookupError:
                pass
        try:
            code = process.wait(timeout=timeout if timeout else None)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            code = process.wait()
        try:
            os.killpg(process.pid, signal.SIGKILL)  # anything it started in its group
        except (ProcessLookupError, PermissionError):
            pass
        return code
