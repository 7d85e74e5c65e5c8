// conformance_test.cpp: runs every conformance check on every strategy plugin this build makes,
// played by a host of each ABI minor (1.0, 1.1 and this build's 1.2).
//
// The plugins are every liblds_*.so in LDS_PLUGIN_DIR (the build's plugin folder) plus the plain-C
// example plugin. Each (plugin, host, check) is one test case, so a failure names all three.
#include "conformance/conformance.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <lds/logdir_strategy.h>

namespace {

namespace fs = std::filesystem;

// The build's plugin folder: LDS_PLUGIN_DIR when ctest sets it, else the folder configured at
// build.
fs::path plugin_dir() {
  const char* dir = std::getenv("LDS_PLUGIN_DIR");
  return (dir != nullptr && *dir != '\0') ? fs::path(dir) : fs::path(LDS_DEFAULT_PLUGIN_DIR);
}

std::vector<fs::path> shipped_plugins() {
  std::vector<fs::path> found;
  std::error_code error;
  for (fs::directory_iterator it(plugin_dir(), error), end; !error && it != end;
       it.increment(error)) {
    const std::string name = it->path().filename().string();
    if (name.starts_with("liblds_") && name.ends_with(".so") && it->is_regular_file()) {
      found.push_back(it->path());
    }
  }
  std::sort(found.begin(), found.end());
  return found;
}

std::vector<fs::path> all_plugins() {
  std::vector<fs::path> plugins = shipped_plugins();
  plugins.emplace_back(LDS_C_PLUGIN_FILE);
  return plugins;
}

// "partition" for liblds_partition.so; only letters, digits and '_' (test names allow no more).
std::string plugin_label(const fs::path& file) {
  std::string stem = file.stem().string();
  if (stem.starts_with("liblds_")) stem.erase(0, 7);
  for (char& c : stem) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return stem;
}

// One report per plugin and host, run on first use and shared by its test cases.
const lds::ConformanceReport& report_for(const fs::path& file,
                                         uint32_t host_abi_minor = LDS_ABI_MINOR) {
  static std::map<std::pair<fs::path, uint32_t>, lds::ConformanceReport> reports;
  const auto key = std::make_pair(file, host_abi_minor);
  auto it = reports.find(key);
  if (it == reports.end()) {
    lds::ConformanceOptions options;
    options.host_abi_minor = host_abi_minor;
    it = reports.emplace(key, lds::run_conformance(file, options, nullptr)).first;
  }
  return it->second;
}

TEST(PluginDiscovery, FindsEveryPluginOfThisBuild) {
  const std::vector<fs::path> shipped = shipped_plugins();
  EXPECT_FALSE(shipped.empty()) << "no liblds_*.so found in " << plugin_dir()
                                << "; the conformance suite would prove nothing";
  std::set<std::string> found;
  for (const fs::path& file : shipped) found.insert(plugin_label(file));
  std::stringstream expected(LDS_EXPECTED_PLUGINS);
  for (std::string name; std::getline(expected, name, ',');) {
    if (!name.empty()) {
      EXPECT_TRUE(found.count(name)) << "liblds_" << name << ".so is missing from " << plugin_dir();
    }
  }
  EXPECT_TRUE(fs::is_regular_file(LDS_C_PLUGIN_FILE)) << LDS_C_PLUGIN_FILE << " is missing";
}

struct CheckCase {
  fs::path file;
  uint32_t host_abi_minor;
  std::string check;
};

void PrintTo(const CheckCase& c, std::ostream* out) {
  *out << c.file << " on a host of ABI 1." << c.host_abi_minor << " " << c.check;
}

std::vector<CheckCase> all_check_cases() {
  std::vector<CheckCase> cases;
  for (const fs::path& file : all_plugins()) {
    for (uint32_t minor = 0; minor <= LDS_ABI_MINOR; ++minor) {
      for (const std::string& check : lds::conformance_check_names()) {
        cases.push_back({file, minor, check});
      }
    }
  }
  return cases;
}

class PluginConformance : public testing::TestWithParam<CheckCase> {};

// Passed, or does not apply to that host (which keeps the plugin's result a pass).
TEST_P(PluginConformance, Passes) {
  const lds::ConformanceReport& report = report_for(GetParam().file, GetParam().host_abi_minor);
  EXPECT_EQ(report.host_abi, "1." + std::to_string(GetParam().host_abi_minor));
  const lds::ConformanceCheck* check = report.find(GetParam().check);
  ASSERT_NE(check, nullptr) << "the report of " << report.file << " lacks " << GetParam().check;
  EXPECT_TRUE(check->passed) << check->name << ": " << check->detail;
}

// "size_rank_scores" on this build's host, "size_on_1_0_rank_scores" on an older one.
INSTANTIATE_TEST_SUITE_P(Plugins, PluginConformance, testing::ValuesIn(all_check_cases()),
                         [](const testing::TestParamInfo<CheckCase>& p) {
                           const std::string host =
                               p.param.host_abi_minor == LDS_ABI_MINOR
                                   ? ""
                                   : "_on_1_" + std::to_string(p.param.host_abi_minor);
                           return plugin_label(p.param.file) + host + "_" + p.param.check;
                         });

class PluginReport : public testing::TestWithParam<fs::path> {};

TEST_P(PluginReport, ListsEveryCheckInOrderAndFormats) {
  const lds::ConformanceReport& report = report_for(GetParam());
  std::vector<std::string> names;
  for (const lds::ConformanceCheck& check : report.checks) names.push_back(check.name);
  EXPECT_EQ(names, lds::conformance_check_names());
  const std::string text = lds::format_report(report);
  EXPECT_NE(text.find(report.all_passed() ? "Result: PASS" : "Result: FAIL"), std::string::npos)
      << text;
}

INSTANTIATE_TEST_SUITE_P(Plugins, PluginReport, testing::ValuesIn(all_plugins()),
                         [](const testing::TestParamInfo<fs::path>& p) {
                           return plugin_label(p.param);
                         });

// The C example's own option, through the plain ABI: the limit makes full directories ineligible,
// and a bad value is refused with a sentence naming key and value.
TEST(CExamplePlugin, HonoursMaxPartitionsAndNamesBadValues) {
  void* library = dlopen(LDS_C_PLUGIN_FILE, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(library, nullptr) << dlerror();
  const auto get = reinterpret_cast<lds_strategy_get_fn>(dlsym(library, LDS_ENTRY_POINT_NAME));
  ASSERT_NE(get, nullptr);
  const lds_strategy* strategy = get(LDS_ABI_MAJOR, LDS_ABI_MINOR);
  ASSERT_NE(strategy, nullptr);

  char error[128] = {};
  void* instance = nullptr;
  const lds_config_entry bad{"max.partitions", "lots"};
  EXPECT_EQ(strategy->create(nullptr, &bad, 1, &instance, error, sizeof error),
            LDS_ERR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(error).find("'lots' for max.partitions"), std::string::npos) << error;

  const lds_config_entry limit{"max.partitions", "5"};
  ASSERT_EQ(strategy->create(nullptr, &limit, 1, &instance, error, sizeof error), LDS_OK) << error;
  const uint32_t counts[] = {7, 3, 5, 1, 3};
  lds_dir dirs[5] = {};
  for (uint32_t i = 0; i < 5; ++i) {
    dirs[i].struct_size = sizeof(lds_dir);
    dirs[i].path = "/data";
    dirs[i].partition_count = counts[i];
  }
  const lds_request request{sizeof(lds_request), 0, "topic", 0, 0};
  uint32_t order[5] = {};
  lds_rank_args args{};
  args.struct_size = sizeof args;
  args.dir_count = 5;
  args.dir_stride = sizeof(lds_dir);
  args.request = &request;
  args.dirs = dirs;
  args.order = order;
  args.error = error;
  args.error_cap = sizeof error;
  ASSERT_EQ(strategy->rank(instance, &args), LDS_OK) << error;
  EXPECT_EQ(std::vector<uint32_t>(order, order + args.order_len), (std::vector<uint32_t>{3, 1, 4}));

  for (lds_dir& dir : dirs) dir.partition_count = 9;
  EXPECT_EQ(strategy->rank(instance, &args), LDS_ERR_NO_ELIGIBLE_DIR);
  EXPECT_NE(std::string(error).find("max.partitions=5"), std::string::npos) << error;
  strategy->destroy(instance);
  EXPECT_EQ(dlclose(library), 0);
}

}  // namespace
