// durable_file_test.cpp: Fd ownership, and an atomic write that never leaves a file half-written.
#include "io/durable_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "host_test_support.h"

namespace lds {

namespace fs = std::filesystem;
namespace {

using test::TempDir;

std::string read_all(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::set<std::string> names_in(const fs::path& folder) {
  std::set<std::string> out;
  for (const auto& e : fs::directory_iterator(folder)) out.insert(e.path().filename().string());
  return out;
}

bool is_open(int fd) { return ::fcntl(fd, F_GETFD) != -1; }

// Files written by this process may not grow past `bytes` while it lives, so a write fails midway
// with EFBIG as it would on a full disk.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    ::getrlimit(RLIMIT_FSIZE, &saved_);
    old_handler_ = ::signal(SIGXFSZ, SIG_IGN);
    rlimit limit = saved_;
    limit.rlim_cur = bytes;
    ::setrlimit(RLIMIT_FSIZE, &limit);
  }
  ~FileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &saved_);
    ::signal(SIGXFSZ, old_handler_);
  }

 private:
  rlimit saved_{};
  sighandler_t old_handler_;
};

TEST(Fd, ClosesWhenDestroyedAndHandsOverOnMoveOrRelease) {
  TempDir tmp;
  int raw = -1;
  {
    Fd fd = open_file(tmp.path(), O_RDONLY | O_DIRECTORY);
    raw = fd.get();
    Fd moved(std::move(fd));
    EXPECT_FALSE(fd.valid());
    EXPECT_EQ(moved.get(), raw);
    EXPECT_TRUE(is_open(raw));
  }
  EXPECT_FALSE(is_open(raw));

  Fd fd = open_file(tmp.path(), O_RDONLY | O_DIRECTORY);
  raw = fd.release();
  EXPECT_FALSE(fd.valid());
  EXPECT_TRUE(is_open(raw));
  ::close(raw);
}

TEST(Fd, OpenFailureNamesTheCallAndThePath) {
  TempDir tmp;
  const fs::path missing = tmp.path() / "missing";
  try {
    open_file(missing, O_RDONLY);
    FAIL() << "opened a missing file";
  } catch (const FileError& e) {
    EXPECT_EQ(e.operation(), "open");
    EXPECT_EQ(e.path(), missing);
    EXPECT_EQ(std::string(e.what()), "open " + missing.string() + ": No such file or directory");
  }
  EXPECT_THROW(fsync_folder(missing), FileError);
}

TEST(AtomicWrite, ReplacesTheFileAndLeavesNothingElse) {
  TempDir tmp;
  const fs::path file = tmp.path() / "meta.properties";
  write_file_atomically(file, "version=1\n");
  write_file_atomically(file, "version=2\n");
  EXPECT_EQ(read_all(file), "version=2\n");
  EXPECT_EQ(names_in(tmp.path()), std::set<std::string>{"meta.properties"});
  struct stat st {};
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
}

TEST(AtomicWrite, AFailingWriteLeavesTheOldContentWhole) {
  TempDir tmp;
  const fs::path file = tmp.path() / "meta.properties";
  const std::string old_content = "version=1\nbroker.id=0\n";
  write_file_atomically(file, old_content);
  const std::string new_content(1 << 20, 'x');
  try {
    FileSizeLimit limit(4096);
    write_file_atomically(file, new_content);
    FAIL() << "a write past the file size limit succeeded";
  } catch (const FileError& e) {
    EXPECT_EQ(e.operation(), "write") << e.what();
    EXPECT_EQ(e.code().value(), EFBIG) << e.what();
  }
  EXPECT_EQ(read_all(file), old_content);
  EXPECT_EQ(names_in(tmp.path()), std::set<std::string>{"meta.properties"});
}

TEST(AtomicWrite, AFailingRenameLeavesNoTempFile) {
  TempDir tmp;
  // A non-empty folder where the file goes makes the rename fail.
  const fs::path file = tmp.path() / "dynamic";
  fs::create_directories(file / "keep");
  try {
    write_file_atomically(file, "x = 1\n");
    FAIL() << "renamed over a non-empty folder";
  } catch (const FileError& e) {
    EXPECT_EQ(e.operation(), "rename") << e.what();
  }
  EXPECT_EQ(names_in(tmp.path()), std::set<std::string>{"dynamic"});
  EXPECT_TRUE(fs::is_directory(file / "keep"));
}

TEST(ReadFileIfPresent, GivesTheWholeFileNothingWhenAbsentAndNamesTheFailingCall) {
  test::TempDir tmp;
  EXPECT_FALSE(read_file_if_present(tmp.path() / "absent"));
  const std::string big(200 * 1024, 'x');  // more than one read
  write_file_atomically(tmp.path() / "f", big + "end");
  EXPECT_EQ(read_file_if_present(tmp.path() / "f"), big + "end");
  try {
    read_file_if_present(tmp.path());  // a folder opens, but does not read
    FAIL() << "read a folder";
  } catch (const FileError& e) {
    EXPECT_EQ(e.operation(), "read") << e.what();
  }
}

}  // namespace
}  // namespace lds
