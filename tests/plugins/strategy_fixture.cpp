// Test helper implementation: dlopen of strategy plugins, instance lifetime and checked rank calls.
#include "strategy_fixture.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <set>
#include <stdexcept>

namespace lds_test {
namespace {

std::string PluginPath(const std::string& name) {
  const char* dir = std::getenv("LDS_PLUGIN_DIR");
  if (dir == nullptr || *dir == '\0') {
    throw std::runtime_error("LDS_PLUGIN_DIR is not set; run the strategy tests through ctest");
  }
  return std::string(dir) + "/liblds_" + name + ".so";
}

std::vector<lds_config_entry> ConfigEntries(const Options& options) {
  std::vector<lds_config_entry> entries;
  for (const auto& [key, value] : options) entries.push_back({key.c_str(), value.c_str()});
  return entries;
}

}  // namespace

lds_dir Dir(const char* path, uint64_t total_bytes, uint64_t usable_bytes, uint64_t reserved_bytes,
            uint32_t partition_count, uint32_t topic_partition_count, uint32_t flags) {
  lds_dir dir{};
  dir.struct_size = sizeof(lds_dir);
  dir.flags = flags;
  dir.path = path;
  dir.total_bytes = total_bytes;
  dir.usable_bytes = usable_bytes;
  dir.reserved_bytes = reserved_bytes;
  dir.partition_count = partition_count;
  dir.topic_partition_count = topic_partition_count;
  return dir;
}

LogCapture::LogCapture() {
  api_ = lds_host_api{};
  api_.struct_size = sizeof(lds_host_api);
  api_.context = this;
  api_.log = &LogCapture::Log;
  api_.log_enabled = nullptr;
}

void LogCapture::Log(void* context, int32_t level, const char* message) {
  auto* self = static_cast<LogCapture*>(context);
  std::lock_guard<std::mutex> lock(self->mutex_);
  self->lines_.push_back({level, message});
}

std::vector<LogLine> LogCapture::lines() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return lines_;
}

size_t LogCapture::CountAtLevel(int32_t level) const {
  std::lock_guard<std::mutex> lock(mutex_);
  size_t count = 0;
  for (const LogLine& line : lines_) count += line.level == level ? 1 : 0;
  return count;
}

StrategyPlugin::StrategyPlugin(const std::string& name) {
  const std::string path = PluginPath(name);
  handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle_ == nullptr) throw std::runtime_error("cannot load " + path + ": " + dlerror());
  void* symbol = dlsym(handle_, LDS_ENTRY_POINT_NAME);
  if (symbol == nullptr) {
    dlclose(handle_);
    throw std::runtime_error(path + " does not export " LDS_ENTRY_POINT_NAME);
  }
  entry_point_ = reinterpret_cast<lds_strategy_get_fn>(symbol);
}

StrategyPlugin::~StrategyPlugin() { dlclose(handle_); }

const lds_strategy& StrategyPlugin::descriptor() const {
  const lds_strategy* descriptor = entry_point_(LDS_ABI_MAJOR, LDS_ABI_MINOR);
  if (descriptor == nullptr) throw std::runtime_error("plugin refused this host's ABI version");
  return *descriptor;
}

CreateResult TryCreate(const std::string& name, const Options& options) {
  StrategyPlugin plugin(name);
  LogCapture log;
  const std::vector<lds_config_entry> entries = ConfigEntries(options);
  char error[512] = "";
  void* instance = nullptr;
  const lds_strategy& descriptor = plugin.descriptor();
  const int32_t status =
      descriptor.create(log.api(), entries.data(), static_cast<uint32_t>(entries.size()), &instance,
                        error, sizeof error);
  if (status == LDS_OK) {
    descriptor.destroy(instance);
    return {status, ""};
  }
  EXPECT_EQ(instance, nullptr) << "create failed but wrote *instance";
  return {status, error};
}

Strategy::Strategy(const std::string& name, const Options& options) : plugin_(name) {
  const std::vector<lds_config_entry> entries = ConfigEntries(options);
  char error[512] = "";
  const int32_t status =
      descriptor().create(log_.api(), entries.data(), static_cast<uint32_t>(entries.size()),
                          &instance_, error, sizeof error);
  if (status != LDS_OK) {
    throw std::runtime_error("create of strategy " + name + " failed with status " +
                             std::to_string(status) + ": " + error);
  }
}

Strategy::~Strategy() { descriptor().destroy(instance_); }

RankResult Strategy::Rank(const std::vector<lds_dir>& dirs, uint64_t expected_bytes,
                          uint32_t error_cap) const {
  lds_request request{};
  request.struct_size = sizeof(lds_request);
  request.partition = 0;
  request.expected_bytes = expected_bytes;
  return Rank(dirs, request, error_cap);
}

RankResult Strategy::Rank(const std::vector<lds_dir>& dirs, const lds_request& given,
                          uint32_t error_cap) const {
  constexpr uint32_t kUnset = 0xFFFFFFFFu;
  lds_request request = given;
  if (request.topic == nullptr) request.topic = "orders";
  std::vector<uint32_t> order(dirs.size() + 1, kUnset);
  std::string error(error_cap + 1, '\x7f');
  lds_rank_args args{};
  args.struct_size = sizeof(lds_rank_args);
  args.dir_count = static_cast<uint32_t>(dirs.size());
  args.dir_stride = sizeof(lds_dir);
  args.request = &request;
  args.dirs = dirs.empty() ? nullptr : dirs.data();
  args.order = order.data();
  args.order_len = kUnset;
  args.error = error_cap == 0 ? nullptr : error.data();
  args.error_cap = error_cap;

  RankResult result{};
  result.status = descriptor().rank(instance_, &args);
  EXPECT_EQ(order[dirs.size()], kUnset) << "rank wrote past order[dir_count]";
  if (error_cap > 0) {
    EXPECT_EQ(error[error_cap], '\x7f') << "rank wrote past error_cap";
  }
  if (result.status == LDS_OK) {
    EXPECT_GE(args.order_len, 1u) << "LDS_OK with an empty order";
    EXPECT_LE(args.order_len, dirs.size()) << "order_len exceeds dir_count";
    std::set<uint32_t> seen;
    for (uint32_t i = 0; i < args.order_len && i < dirs.size(); ++i) {
      EXPECT_LT(order[i], dirs.size()) << "index out of range at position " << i;
      EXPECT_TRUE(seen.insert(order[i]).second) << "index " << order[i] << " repeated";
      result.order.push_back(order[i]);
    }
  } else {
    EXPECT_EQ(args.order_len, 0u) << "failed rank left order_len set";
    if (error_cap > 0) {
      const size_t end = error.find('\0');
      EXPECT_LT(end, error_cap) << "error not NUL-terminated within error_cap";
      result.error = error.substr(0, end);
    }
  }
  return result;
}

std::vector<std::string> Paths(const std::vector<lds_dir>& dirs,
                               const std::vector<uint32_t>& order) {
  std::vector<std::string> paths;
  for (uint32_t index : order) paths.emplace_back(index < dirs.size() ? dirs[index].path : "?");
  return paths;
}

}  // namespace lds_test
