// config_list_ops_test.cpp: ConfigStore's APPEND and SUBTRACT (Kafka's IncrementalAlterConfigs
// list operations): applied over the key's dynamic value or its default, never the file's, as
// Kafka's prepareIncrementalConfigs does, and refused for keys that are not lists.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "config/config.h"

namespace {

namespace fs = std::filesystem;
using lds::ConfigAlteration;

class ConfigListOps : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "lds-config-list-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = lds::canonical_path("/", pattern);
    file_ = dir_ / "broker.toml";
    std::ofstream(file_) << "log.dirs = [\"a\", \"b\", \"c\"]\ncordoned.log.dirs = [\"a\"]\n";
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  ConfigAlteration op(ConfigAlteration::Op kind, const std::string& name,
                      const std::string& value) const {
    return {name, kind, value};
  }
  std::string dir(const char* name) const { return (dir_ / name).string(); }
  static std::vector<fs::path> cordoned(const lds::ConfigStore& store) {
    return store.current().cordoned;
  }

  fs::path dir_;
  fs::path file_;
};

TEST_F(ConfigListOps, AppendAndSubtractWorkOnTheDynamicValueNotTheFiles) {
  lds::ConfigStore store(file_);
  EXPECT_EQ(cordoned(store), std::vector<fs::path>{dir("a")});
  // The file's "a" is not the base: the dynamic layer starts from the default (empty).
  store.commit({op(ConfigAlteration::Op::kAppend, "cordoned.log.dirs", dir("b"))});
  EXPECT_EQ(cordoned(store), std::vector<fs::path>{dir("b")});
  // Entries already there are not added twice.
  store.commit(
      {op(ConfigAlteration::Op::kAppend, "cordoned.log.dirs", dir("c") + " , " + dir("b"))});
  EXPECT_EQ(cordoned(store), (std::vector<fs::path>{dir("b"), dir("c")}));
  store.commit({op(ConfigAlteration::Op::kSubtract, "cordoned.log.dirs", dir("b"))});
  EXPECT_EQ(cordoned(store), std::vector<fs::path>{dir("c")});
  // The result is persisted like any SET: a fresh store reads it back.
  lds::ConfigStore reread(file_);
  EXPECT_EQ(cordoned(reread), std::vector<fs::path>{dir("c")});
}

TEST_F(ConfigListOps, OnlyDynamicListKeysTakeThem) {
  lds::ConfigStore store(file_);
  try {
    store.preview({op(ConfigAlteration::Op::kAppend, "log.level", "debug")});
    ADD_FAILURE() << "APPEND to log.level was accepted";
  } catch (const lds::ConfigError& e) {
    EXPECT_STREQ(e.what(), "Config value append is not allowed for config key: log.level");
  }
  try {
    store.preview({op(ConfigAlteration::Op::kSubtract, "log.level", "debug")});
    ADD_FAILURE() << "SUBTRACT from log.level was accepted";
  } catch (const lds::ConfigError& e) {
    EXPECT_STREQ(e.what(), "Config value subtract is not allowed for config key: log.level");
  }
  // log.dirs is a list, but static.
  EXPECT_THROW(store.preview({op(ConfigAlteration::Op::kAppend, "log.dirs", dir("d"))}),
               lds::ConfigError);
  // An appended entry outside log.dirs is refused, as a SET of it is.
  EXPECT_THROW(store.preview({op(ConfigAlteration::Op::kAppend, "cordoned.log.dirs", dir("x"))}),
               lds::ConfigError);
  EXPECT_EQ(cordoned(store), std::vector<fs::path>{dir("a")});
}

}  // namespace
