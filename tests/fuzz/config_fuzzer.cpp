// config_fuzzer.cpp: libFuzzer target for the config loader (ConfigStore over broker.toml and its
// dynamic file). Any crash, sanitizer report or exception other than ConfigError is a finding, and
// so is a ConfigError that does not name the file it is about or is not one sentence.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "config/config.h"
#include "fuzz_harness.h"
#include "util/errors.h"

namespace {

[[noreturn]] void finding(const std::string& what, const std::string& message) {
  std::fprintf(stderr, "config_fuzzer: %s: %s\n", what.c_str(), message.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static lds::fuzz::ScratchDir scratch;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::filesystem::path file = lds::fuzz::write_config_input(scratch.path(), input);
  try {
    lds::ConfigStore store(file);
    (void)store.describe();
    // Validation of a change on top of what was read: the cordon is checked against log.dirs.
    try {
      (void)store.preview({{"cordoned.log.dirs", lds::ConfigAlteration::Op::kSet, "disk1,*"}});
    } catch (const lds::ConfigError&) {
    }
  } catch (const lds::ConfigError& e) {
    const std::string message = e.what();
    if (message.rfind(file.string(), 0) != 0) finding("error does not name the file", message);
    if (message.back() != '.') finding("error is not one sentence", message);
  }
  return 0;
}
