// isolated_run.cpp: the conformance checks in a forked child, watched by the parent over a pipe
// with a time limit per check.
#include "conformance/isolated_run.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "conformance/error_buffer.h"
#include <lds/logdir_strategy.h>

namespace lds {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// The child's report is a sequence of lines, in this order:
//   "check <name> <verdict> <detail>"                   once per check, as soon as it completes:
//                                                        pass, fail, skip, or moot (a check that
//                                                        does not apply); " <detail>" only when
//                                                        there is one (a pass may carry a note)
//   "abi <version>"                                      the plugin's ABI, at most once, as soon
//                                                        as the descriptor is read: before create
//                                                        or rank can end the child
//   "done"                                               after the last check
//   "error <text>"                                       instead, when the checker itself failed
//   "overrun <cap>"                                      from the SIGSEGV handler, when the plugin
//                                                        faulted on the guard page after an error
//                                                        buffer of error_cap <cap>
// In <detail> and <text> a backslash is sent as "\\" and a newline as "\n", so one message is
// always one line.
constexpr std::string_view kCheckPrefix = "check ";
constexpr std::string_view kDoneLine = "done";
constexpr std::string_view kAbiPrefix = "abi ";
constexpr std::string_view kErrorPrefix = "error ";
constexpr std::string_view kOverrunPrefix = "overrun ";

// Exit statuses of a child that ends on its own. A plugin calling exit(0) looks like kChildDone,
// which is why the parent trusts only the "done" line, never the status.
constexpr int kChildDone = 0;
constexpr int kChildCheckerFailed = 124;
constexpr int kChildLostReport = 125;

// A line longer than this is not the checker's: the plugin wrote into the report pipe.
constexpr size_t kMaxLineBytes = size_t{64} * 1024;
// While the pipe is open, the parent still looks for a dead child this often: a process the plugin
// started may hold the pipe open after the child is gone.
constexpr milliseconds kPollSlice{100};
// Once the pipe is closed the child is on its way out; the parent looks for it more often.
constexpr milliseconds kReapSlice{5};
// Far beyond any check, and far from overflowing steady_clock.
constexpr milliseconds kLongestCheckTimeout = std::chrono::hours(24 * 365);

std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string unescape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size()) {
      out += text[++i] == 'n' ? '\n' : text[i];
    } else {
      out += text[i];
    }
  }
  return out;
}

// Writes all of `text`, or ends the child: without its report the child's work is worthless.
void send_line(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t written = ::write(fd, text.data(), text.size());
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) ::_exit(kChildLostReport);
    text.remove_prefix(static_cast<size_t>(written));
  }
}

// The child's report pipe, for its SIGSEGV handler.
int g_report_fd = -1;

// The child's SIGSEGV handler (async-signal-safe): a fault on an error buffer's guard page is the
// plugin writing past error_cap, and is reported as such before the child ends by the signal.
void on_segv(int signal, siginfo_t* info, void*) {
  uint32_t cap = 0;
  if (info != nullptr && info->si_code > 0 &&
      conformance_detail::guard_page_owner(info->si_addr, &cap)) {
    char line[32];
    size_t n = kOverrunPrefix.size();
    std::memcpy(line, kOverrunPrefix.data(), n);
    char digits[10];
    size_t count = 0;
    do {
      digits[count++] = static_cast<char>('0' + cap % 10);
      cap /= 10;
    } while (cap != 0);
    while (count > 0) line[n++] = digits[--count];
    line[n++] = '\n';
    [[maybe_unused]] const ssize_t written = ::write(g_report_fd, line, n);
  }
  // SA_RESETHAND restored the default action, and the signal is blocked until this returns: then
  // it ends the child, which the parent sees as killed by SIGSEGV.
  ::raise(signal);
}

// The child: runs the checks and reports them on `report_fd`. It never returns into the caller's
// code, and ends with _exit so that the parent's atexit handlers and buffers are not run twice.
[[noreturn]] void run_child(int report_fd, pid_t parent, const std::filesystem::path& file,
                            const ConformanceOptions& options) {
#ifdef __linux__
  // If the checker dies (Ctrl-C, a test runner's timeout), a hanging plugin must not outlive it.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(kChildLostReport);
#else
  (void)parent;
#endif
  // A crashing plugin is an expected outcome here, not something to keep a core file of.
  const rlimit no_core{0, 0};
  ::setrlimit(RLIMIT_CORE, &no_core);
  // A plugin's crash must end this child by its signal, so the parent can name it. Handlers
  // inherited from the checker's process (a sanitizer's, which would report and exit(1)) would
  // turn "killed by signal 11" into an ordinary exit.
  for (const int fatal : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT}) ::signal(fatal, SIG_DFL);
  // Ours only looks for an error buffer's guard page, and still ends the child by the signal.
  g_report_fd = report_fd;
  struct sigaction segv {};
  segv.sa_sigaction = on_segv;
  segv.sa_flags = SA_SIGINFO | SA_RESETHAND;
  sigemptyset(&segv.sa_mask);
  ::sigaction(SIGSEGV, &segv, nullptr);
  try {
    run_conformance(file, options,
                    [report_fd, abi_sent = false](const ConformanceCheck& check,
                                                  const ConformanceReport& so_far) mutable {
                      std::string line = std::string(kCheckPrefix) + check.name;
                      line += check.skipped ? (check.passed ? " moot" : " skip")
                                            : (check.passed ? " pass" : " fail");
                      if (!check.detail.empty()) line += ' ' + escape(check.detail);
                      send_line(report_fd, line + '\n');
                      if (!abi_sent && !so_far.plugin_abi.empty()) {
                        send_line(report_fd,
                                  std::string(kAbiPrefix) + escape(so_far.plugin_abi) + '\n');
                        abi_sent = true;
                      }
                    });
    send_line(report_fd, std::string(kDoneLine) + '\n');
  } catch (const std::exception& e) {
    send_line(report_fd, std::string(kErrorPrefix) + escape(e.what()) + '\n');
    ::_exit(kChildCheckerFailed);
  } catch (...) {
    send_line(report_fd, std::string(kErrorPrefix) + "unknown exception\n");
    ::_exit(kChildCheckerFailed);
  }
  ::_exit(kChildDone);
}

// "10 s", "1.5 s" or "500 ms".
std::string describe_duration(milliseconds duration) {
  const auto ms = duration.count();
  if (ms < 1000) return std::to_string(ms) + " ms";
  std::string text = std::to_string(ms / 1000);
  if (ms % 1000 != 0) {
    char fraction[8];
    std::snprintf(fraction, sizeof fraction, ".%03d", static_cast<int>(ms % 1000));
    std::string digits = fraction;
    while (digits.back() == '0') digits.pop_back();
    text += digits;
  }
  return text + " s";
}

void kill_and_reap(pid_t child) {
  ::kill(child, SIGKILL);
  while (::waitpid(child, nullptr, 0) < 0 && errno == EINTR) {
  }
}

// How the child ended, as the parent saw it.
struct ChildEnd {
  enum class Kind { kExited, kSignaled, kTimedOut, kUnreadable, kStatusLost };
  Kind kind = Kind::kStatusLost;
  int value = 0;      // the exit status or the signal number
  std::string extra;  // the unreadable line, or the checker's own error text
  // The error_cap of the error buffer the plugin wrote past (the child's "overrun" line).
  std::optional<uint32_t> overrun_cap;
};

// The parent: reads the child's report as it comes, gives each check `timeout`, and reaps the
// child whatever happens.
class ChildWatch {
 public:
  ChildWatch(pid_t child, int report_fd, ConformanceReport& report, milliseconds timeout)
      : child_(child), fd_(report_fd), report_(report), timeout_(timeout) {}

  ChildEnd watch() {
    Clock::time_point deadline = Clock::now() + timeout_;
    bool pipe_open = true;
    for (;;) {
      int status = 0;
      const pid_t reaped = ::waitpid(child_, &status, WNOHANG);
      if (reaped == child_ || (reaped < 0 && errno == ECHILD)) {
        // Everything the child wrote before it ended is still in the pipe. Read it without
        // waiting for the pipe to close: a process the plugin started may keep it open.
        if (pipe_open) read_some();
        if (!unreadable_.empty()) return unreadable();
        if (reaped < 0) return {};  // SIGCHLD is ignored, so the system reaped it
        if (WIFEXITED(status)) return {ChildEnd::Kind::kExited, WEXITSTATUS(status), error_, {}};
        return {ChildEnd::Kind::kSignaled, WTERMSIG(status), "", overrun_cap_};
      }
      if (!unreadable_.empty()) {
        kill_and_reap(child_);
        return unreadable();
      }
      const Clock::time_point now = Clock::now();
      if (now >= deadline) {
        kill_and_reap(child_);
        return {ChildEnd::Kind::kTimedOut, 0, "", {}};
      }
      const milliseconds left = std::chrono::ceil<milliseconds>(deadline - now);
      const milliseconds slice = std::min(left, pipe_open ? kPollSlice : kReapSlice);
      pollfd readable{fd_, POLLIN, 0};
      const int ready = ::poll(&readable, pipe_open ? 1 : 0, static_cast<int>(slice.count()));
      if (ready > 0) {
        const size_t before = reported_ + (done_ ? 1 : 0);
        pipe_open = read_some();
        // Every completed check gives the next one (or the child's exit) a full `timeout`.
        if (reported_ + (done_ ? 1 : 0) != before) deadline = Clock::now() + timeout_;
      }
    }
  }

  size_t reported() const { return reported_; }
  bool done() const { return done_; }

 private:
  // Reads what the pipe holds without blocking; false once the pipe is closed.
  bool read_some() {
    char chunk[4096];
    for (;;) {
      const ssize_t got = ::read(fd_, chunk, sizeof chunk);
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) return true;  // EAGAIN: nothing more for now
      if (got == 0) return false;
      pending_.append(chunk, static_cast<size_t>(got));
      take_lines();
      if (!unreadable_.empty()) return true;
    }
  }

  void take_lines() {
    size_t start = 0;
    for (size_t end; unreadable_.empty() && (end = pending_.find('\n', start)) != std::string::npos;
         start = end + 1) {
      take_line(std::string_view(pending_).substr(start, end - start));
    }
    pending_.erase(0, start);
    if (unreadable_.empty() && pending_.size() > kMaxLineBytes) {
      unreadable_ = pending_.substr(0, 120) + "...";
    }
  }

  void take_line(std::string_view line) {
    const std::vector<ConformanceCheck>& checks = report_.checks;
    if (!done_ && line.starts_with(kCheckPrefix) && reported_ < checks.size()) {
      const std::string& name = checks[reported_].name;
      std::string_view rest = line.substr(kCheckPrefix.size());
      if (rest.starts_with(name) && rest.substr(name.size()).starts_with(' ')) {
        rest.remove_prefix(name.size() + 1);
        // The verdict, then the detail if there is one.
        const std::string_view verdict = rest.substr(0, rest.find(' '));
        const std::string detail =
            verdict.size() < rest.size() ? unescape(rest.substr(verdict.size() + 1)) : "";
        if (verdict == "pass") return record(true, false, detail);
        if (verdict == "fail") return record(false, false, detail);
        if (verdict == "skip") return record(false, true, detail);
        if (verdict == "moot") return record(true, true, detail);
      }
    } else if (!done_ && line.starts_with(kAbiPrefix) && !abi_seen_) {
      report_.plugin_abi = unescape(line.substr(kAbiPrefix.size()));
      abi_seen_ = true;
      return;
    } else if (!done_ && line == kDoneLine && reported_ == checks.size()) {
      done_ = true;
      return;
    } else if (!done_ && line.starts_with(kErrorPrefix) && error_.empty()) {
      error_ = unescape(line.substr(kErrorPrefix.size()));
      return;
    } else if (!done_ && line.starts_with(kOverrunPrefix) && !overrun_cap_) {
      const std::string_view digits = line.substr(kOverrunPrefix.size());
      uint32_t cap = 0;
      auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), cap);
      if (ec == std::errc() && end == digits.data() + digits.size() && !digits.empty()) {
        overrun_cap_ = cap;
        return;
      }
    }
    unreadable_ = std::string(line.substr(0, 120));
    if (line.size() > 120) unreadable_ += "...";
  }

  void record(bool passed, bool skipped, std::string detail) {
    ConformanceCheck& check = report_.checks[reported_++];
    check.passed = passed;
    check.skipped = skipped;
    check.detail = std::move(detail);
  }

  ChildEnd unreadable() const { return {ChildEnd::Kind::kUnreadable, 0, unreadable_, {}}; }

  pid_t child_;
  int fd_;
  ConformanceReport& report_;
  milliseconds timeout_;
  std::string pending_;                  // bytes after the last complete line
  size_t reported_ = 0;                  // checks reported so far; the next one is the one running
  bool done_ = false;                    // the child said every check is done
  bool abi_seen_ = false;                // the child said which ABI the plugin was built for
  std::string error_;                    // the checker's own failure, as the child reported it
  std::optional<uint32_t> overrun_cap_;  // the child's "overrun" line, if it sent one
  std::string unreadable_;               // a line that is not part of the protocol
};

// What ended the child, for the check that was running: one clause without a full stop.
std::string what_happened(const ChildEnd& end, milliseconds timeout) {
  switch (end.kind) {
    case ChildEnd::Kind::kExited:
      if (end.value == kChildCheckerFailed && !end.extra.empty()) {
        return "the checker itself failed (" + end.extra + ")";
      }
      if (end.value == kChildLostReport) {
        return "the checking process lost its report pipe and ended with exit(" +
               std::to_string(end.value) + ")";
      }
      return "the plugin ended the checking process with exit(" + std::to_string(end.value) + ")";
    case ChildEnd::Kind::kSignaled: {
      const char* name = ::strsignal(end.value);
      return "the checking process was killed by signal " + std::to_string(end.value) + " (" +
             (name != nullptr ? name : "unknown signal") + ")";
    }
    case ChildEnd::Kind::kTimedOut:
      return "the checking process did not finish within " + describe_duration(timeout) +
             " and was killed";
    case ChildEnd::Kind::kUnreadable:
      return "the checking process wrote a report line the checker cannot read (\"" + end.extra +
             "\")";
    case ChildEnd::Kind::kStatusLost:
      break;
  }
  return "the checking process ended without a report of how (SIGCHLD is ignored)";
}

// Fills in the checks the child did not report: the one running failed, later ones are skipped.
void blame(ConformanceReport& report, const std::string& file_name, size_t running,
           const ChildEnd& end, milliseconds timeout) {
  std::vector<ConformanceCheck>& checks = report.checks;
  if (running >= checks.size()) {
    // Every check was reported but the child never said it was done: the last check is not to
    // be trusted, since the plugin's code may still have been running behind it.
    ConformanceCheck& last = checks.back();
    last.passed = false;
    last.detail = file_name + ": after this check, " + what_happened(end, timeout) +
                  ", before it reported that every check was done.";
    return;
  }
  const std::string& name = checks[running].name;
  std::string skip_reason;
  if (end.kind == ChildEnd::Kind::kTimedOut) {
    checks[running].detail = file_name + ": the check did not return within " +
                             describe_duration(timeout) + ", so the checking process was killed.";
    skip_reason = name + " did not return within " + describe_duration(timeout);
  } else if (end.kind == ChildEnd::Kind::kSignaled && end.overrun_cap) {
    checks[running].detail = file_name +
                             ": the plugin wrote past the end of its error buffer (error_cap " +
                             std::to_string(*end.overrun_cap) + ") during this check, and " +
                             what_happened(end, timeout) + ".";
    skip_reason = "the checking process ended during " + name;
  } else {
    checks[running].detail = file_name + ": " + what_happened(end, timeout) + " during this check.";
    skip_reason = "the checking process ended during " + name;
  }
  checks[running].passed = false;
  for (size_t i = running + 1; i < checks.size(); ++i) {
    checks[i].passed = false;
    checks[i].skipped = true;
    checks[i].detail = skip_reason + ".";
  }
}

// Closes a descriptor when it goes out of scope.
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  ~Fd() { reset(); }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_;
};

}  // namespace

ConformanceReport run_conformance_isolated(const std::filesystem::path& plugin_file,
                                           milliseconds per_check_timeout,
                                           const ConformanceOptions& options) {
  ConformanceReport report;
  report.file = plugin_file.string();
  report.host_abi = std::to_string(LDS_ABI_MAJOR) + "." +
                    std::to_string(std::min<uint32_t>(options.host_abi_minor, LDS_ABI_MINOR));
  for (const std::string& name : conformance_check_names()) {
    report.checks.push_back({name, false, "not run"});
  }
  // Bounded so that a deadline never overflows the clock.
  const milliseconds timeout =
      std::clamp<milliseconds>(per_check_timeout, milliseconds(1), kLongestCheckTimeout);

  int ends[2];
  // Close-on-exec: a plugin that starts a program must not hand it the report pipe.
  if (::pipe2(ends, O_CLOEXEC) != 0) {
    throw std::system_error(errno, std::generic_category(), "conformance: pipe");
  }
  Fd read_end(ends[0]);
  Fd write_end(ends[1]);
  // The parent reads only what is there, so it can keep an eye on the clock and the child.
  ::fcntl(read_end.get(), F_SETFL, ::fcntl(read_end.get(), F_GETFL) | O_NONBLOCK);

  // Whatever the caller buffered would otherwise be written twice if the plugin calls exit().
  std::fflush(nullptr);
  const pid_t parent = ::getpid();
  const pid_t child = ::fork();
  if (child < 0) throw std::system_error(errno, std::generic_category(), "conformance: fork");
  if (child == 0) {
    read_end.reset();
    run_child(write_end.get(), parent, plugin_file, options);
  }
  write_end.reset();

  ChildWatch watch(child, read_end.get(), report, timeout);
  ChildEnd end;
  try {
    end = watch.watch();
  } catch (...) {
    // Out of memory while reading the report: the child must not outlive the call either way.
    kill_and_reap(child);
    throw;
  }
  if (!watch.done()) {
    blame(report, plugin_file.filename().string(), watch.reported(), end, timeout);
  }
  return report;
}

}  // namespace lds
