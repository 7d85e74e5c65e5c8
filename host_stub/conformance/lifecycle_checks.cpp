// lifecycle_checks.cpp: the checks around ranking: loading, the entry point and its descriptor,
// create, destroy and unloading.
#include <dlfcn.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "conformance/conformance_run.h"
#include "strategy/abi_rules.h"

namespace lds::conformance_detail {
namespace {

constexpr const char* kUnknownKey = "lds.conformance.unknown.key";

// A descriptor that declares minor 2 or later but is too small to hold placed and score_name: a
// host would read neither.
bool descriptor_short_for_its_minor(const lds_strategy& d) {
  return d.abi_minor >= 2 && d.struct_size >= abi_rules::kStrategyV1Size &&
         d.struct_size < abi_rules::kStrategyV12Size;
}

// What to write in the plugin's lds_strategy initialiser for each faulty field, so that the
// failure says how to fix it as well as what is wrong: ".abi_major = LDS_ABI_MAJOR". `stem` is
// the <name> of the file liblds_<name>.so, or "" when the file is not named so.
std::vector<std::string> descriptor_fixes(const lds_strategy& d, const std::string& stem) {
  std::vector<std::string> fixes;
  if (d.struct_size < abi_rules::kStrategyV1Size || descriptor_short_for_its_minor(d)) {
    fixes.emplace_back(".struct_size = sizeof(lds_strategy)");
  }
  if (d.abi_major != LDS_ABI_MAJOR) fixes.emplace_back(".abi_major = LDS_ABI_MAJOR");
  if (d.name == nullptr || !abi_rules::valid_strategy_name(d.name)) {
    std::string& fix = fixes.emplace_back(".name = ");
    fix += abi_rules::valid_strategy_name(stem) ? quote(stem) : std::string("\"...\"");
  }
  if (d.version == nullptr) fixes.emplace_back(".version = \"...\"");
  if (d.description == nullptr) fixes.emplace_back(".description = \"...\"");
  if (d.create == nullptr) fixes.emplace_back(".create = <your create function>");
  if (d.destroy == nullptr) fixes.emplace_back(".destroy = <your destroy function>");
  if (d.rank == nullptr) fixes.emplace_back(".rank = <your rank function>");
  return fixes;
}

// "a", "a and b", "a, b and c".
std::string join_fixes(const std::vector<std::string>& fixes) {
  std::string text;
  for (size_t i = 0; i < fixes.size(); ++i) {
    if (i > 0) text += i + 1 == fixes.size() ? " and " : ", ";
    text += fixes[i];
  }
  return text;
}

// "fault_x" for liblds_fault_x.so, else "".
std::string file_stem(std::string_view file) {
  constexpr std::string_view kPrefix = "liblds_";
  constexpr std::string_view kSuffix = ".so";
  if (file.size() <= kPrefix.size() + kSuffix.size() || !file.starts_with(kPrefix) ||
      !file.ends_with(kSuffix)) {
    return "";
  }
  return std::string(file.substr(kPrefix.size(), file.size() - kPrefix.size() - kSuffix.size()));
}

}  // namespace

void ConformanceRun::load() {
  if (std::string problem = abi_rules::truncated_elf_problem(path_); !problem.empty()) {
    fail(kLoads, "does not load as a shared object: " + problem);
    return;
  }
  dlerror();
  handle_ = dlopen(path_.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle_ == nullptr) {
    const char* why = dlerror();
    fail(kLoads, std::string("does not load as a shared object: ") + (why ? why : "unknown error"));
    return;
  }
  pass(kLoads);
}

void ConformanceRun::find_entry_point() {
  if (handle_ == nullptr) return skip(kExportsEntryPoint, "the library did not load");
  dlerror();
  void* symbol = dlsym(handle_, LDS_ENTRY_POINT_NAME);
  if (symbol == nullptr) {
    return fail(kExportsEntryPoint,
                std::string("does not export ") + LDS_ENTRY_POINT_NAME +
                    " (declare it with LDS_EXPORT and build with lds_add_strategy_plugin)");
  }
  entry_ = reinterpret_cast<lds_strategy_get_fn>(symbol);
  pass(kExportsEntryPoint);
}

void ConformanceRun::handshake() {
  if (entry_ == nullptr) {
    return skip(kVersionHandshake,
                handle_ == nullptr ? "the library did not load" : "the entry point is missing");
  }
  const lds_strategy* current = nullptr;
  const lds_strategy* next_major = nullptr;
  try {
    current = entry_(LDS_ABI_MAJOR, host_minor_);
    next_major = entry_(LDS_ABI_MAJOR + 1, 0);
  } catch (...) {
    return fail(kVersionHandshake, "lds_strategy_get let a C++ exception escape");
  }
  if (current != nullptr) {
    // Read only what the plugin declares and what this run's host knows (an older host's
    // lds_strategy ends before placed); fields either side lacks stay zero.
    const size_t host_size = host_has_purpose() ? sizeof descriptor_ : abi_rules::kStrategyV1Size;
    const size_t size = std::min<size_t>(current->struct_size, host_size);
    std::memcpy(&descriptor_, current, size);
    have_descriptor_ = true;
    deterministic_ = (descriptor_.capabilities & LDS_CAP_DETERMINISTIC) != 0;
    report_.plugin_abi =
        std::to_string(descriptor_.abi_major) + "." + std::to_string(descriptor_.abi_minor);
  }
  std::string fault;
  if (current == nullptr && host_minor_ < LDS_ABI_MINOR) {
    fault = "refused a host of ABI " + host_abi() + ": lds_strategy_get(" +
            std::to_string(LDS_ABI_MAJOR) + ", " + std::to_string(host_minor_) +
            ") returned NULL, so it needs a later minor of ABI " + std::to_string(LDS_ABI_MAJOR);
  } else if (current == nullptr) {
    fault = "lds_strategy_get(" + std::to_string(LDS_ABI_MAJOR) + ", " +
            std::to_string(LDS_ABI_MINOR) + ") returned NULL for a host of its own ABI";
  } else if (next_major != nullptr) {
    fault = "lds_strategy_get(" + std::to_string(LDS_ABI_MAJOR + 1) +
            ", 0) returned a descriptor; a plugin must return NULL for a host of another major";
  }
  verdict(kVersionHandshake, fault);
}

void ConformanceRun::check_descriptor() {
  if (!have_descriptor_) {
    return skip(kDescriptorFields, cannot_call());
  }
  const lds_strategy& d = descriptor_;
  std::vector<std::string> faults = abi_rules::descriptor_faults(d);
  if (descriptor_short_for_its_minor(d)) {
    // placed and score_name are optional, but a 1.2 descriptor has room for them.
    faults.insert(faults.begin(), "struct_size " + std::to_string(d.struct_size) +
                                      " is below the ABI 1.2 size " +
                                      std::to_string(abi_rules::kStrategyV12Size) +
                                      " though abi_minor is " + std::to_string(d.abi_minor) +
                                      ", so a host would read neither placed nor score_name");
  }
  if (d.name != nullptr && !abi_rules::valid_strategy_name(d.name)) {
    for (std::string& f : faults) {
      if (f == "name does not match [a-z0-9_]+")
        f = "name " + quote(d.name) + " does not match [a-z0-9_]+";
    }
  }
  descriptor_usable_ = abi_rules::descriptor_callable(d);
  std::string fault;
  for (const std::string& f : faults) fault += (fault.empty() ? "descriptor " : "; ") + f;
  if (const std::vector<std::string> fixes = descriptor_fixes(d, file_stem(file_name_));
      !fault.empty() && !fixes.empty()) {
    fault += "; set ";
    fault += join_fixes(fixes);
    fault += " in your lds_strategy";
  }
  verdict(kDescriptorFields, fault);
}

void ConformanceRun::check_name_matches_file() {
  if (!have_descriptor_) {
    return skip(kNameMatchesFile, "there is no descriptor for ABI " + host_abi());
  }
  if (descriptor_.name == nullptr) return skip(kNameMatchesFile, "the descriptor has no name");
  const std::string name = descriptor_.name;
  const std::string stem = file_stem(file_name_);
  if (stem.empty()) return fail(kNameMatchesFile, "the file name is not liblds_<name>.so");
  if (stem != name) {
    return fail(kNameMatchesFile, "the descriptor names the strategy " + quote(name) +
                                      " but the file is liblds_" + stem + ".so");
  }
  pass(kNameMatchesFile);
}

int32_t ConformanceRun::call_create(const lds_config_entry* config, uint32_t config_count,
                                    void** instance, ErrorBuffer& error, std::string& fault) {
  try {
    return descriptor_.create(&host_api_, config, config_count, instance, error.data(),
                              error.cap());
  } catch (...) {
    fault = "create let a C++ exception escape across the C ABI";
    return LDS_ERR_INTERNAL;
  }
}

void ConformanceRun::create_without_options() {
  if (const std::string reason = cannot_call(); !reason.empty()) {
    return skip(kCreateWithoutOptions, reason);
  }
  ErrorBuffer error(kErrorCap);
  void* instance = nullptr;
  std::string fault;
  const int32_t status = call_create(nullptr, 0, &instance, error, fault);
  if (!fault.empty()) return fail(kCreateWithoutOptions, fault);
  if (status != LDS_OK) {
    return fail(kCreateWithoutOptions, "create without options returned status " +
                                           std::to_string(status) + " with error " +
                                           quote(error.text()));
  }
  instance_ = instance;
  created_ = true;
  verdict(kCreateWithoutOptions,
          error.fault(false).empty() ? "" : "create without options " + error.fault(false));
}

void ConformanceRun::create_with_given_options() {
  if (const std::string reason = cannot_call(); !reason.empty()) {
    return skip(kCreateWithGivenOptions, reason);
  }
  if (plugin_options_.empty()) return pass(kCreateWithGivenOptions);
  if (!created_) {
    return skip(kCreateWithGivenOptions, "create without options did not succeed");
  }
  std::vector<lds_config_entry> entries;
  std::string given;
  for (const auto& [key, value] : plugin_options_) {
    entries.push_back({key.c_str(), value.c_str()});
    if (!given.empty()) given += ", ";
    given += key + "=" + value;
  }
  ErrorBuffer error(kErrorCap);
  void* instance = nullptr;
  std::string fault;
  const int32_t status =
      call_create(entries.data(), static_cast<uint32_t>(entries.size()), &instance, error, fault);
  if (!fault.empty()) return fail(kCreateWithGivenOptions, fault);
  if (status != LDS_OK) {
    return fail(kCreateWithGivenOptions, "create with " + given + " returned status " +
                                             std::to_string(status) + " with error " +
                                             quote(error.text()));
  }
  // The rank checks run on the instance made with the given options.
  descriptor_.destroy(instance_);
  instance_ = instance;
  given_options_used_ = true;
  verdict(kCreateWithGivenOptions,
          error.fault(false).empty() ? "" : "create with " + given + " " + error.fault(false));
}

std::string ConformanceRun::create_with_unknown_key(uint32_t cap, bool require_key_in_message) {
  const lds_config_entry entry{kUnknownKey, "1"};
  ErrorBuffer error(cap);
  void* const sentinel = &log_;  // any recognisable non-NULL value
  void* instance = sentinel;
  std::string fault;
  const int32_t status = call_create(&entry, 1, &instance, error, fault);
  if (!fault.empty()) return fault;
  if (status == LDS_OK) {
    try {
      descriptor_.destroy(instance);
    } catch (...) {
    }
    return std::string("create accepted the unknown key ") + kUnknownKey +
           "; unknown keys must fail with LDS_ERR_INVALID_ARGUMENT";
  }
  const std::string cap_text = " with error_cap " + std::to_string(cap);
  if (status != LDS_ERR_INVALID_ARGUMENT) {
    return std::string("create with the unknown key ") + kUnknownKey + " returned status " +
           std::to_string(status) + ", not LDS_ERR_INVALID_ARGUMENT (1)" +
           (require_key_in_message ? "" : cap_text);
  }
  if (const std::string buffer_fault = error.fault(true); !buffer_fault.empty()) {
    return "create with an unknown key " + buffer_fault;
  }
  if (instance != sentinel) return "create failed but still wrote *instance";
  if (require_key_in_message && error.text().find(kUnknownKey) == std::string::npos) {
    return "create's error " + quote(error.text()) + " does not name the unknown key " +
           kUnknownKey;
  }
  return "";
}

void ConformanceRun::create_rejects_unknown_key() {
  if (const std::string reason = cannot_call(); !reason.empty()) {
    return skip(kCreateRejectsUnknownKey, reason);
  }
  verdict(kCreateRejectsUnknownKey, create_with_unknown_key(kErrorCap, true));
}

void ConformanceRun::create_error_truncation() {
  if (const std::string reason = cannot_call(); !reason.empty()) {
    return skip(kCreateErrorTruncation, reason);
  }
  std::string fault;
  for (const uint32_t cap : kTinyErrorCaps) {
    if (fault.empty()) fault = create_with_unknown_key(cap, false);
  }
  verdict(kCreateErrorTruncation, fault);
}

void ConformanceRun::destroy() {
  if (const std::string reason = cannot_call(); !reason.empty()) return skip(kDestroy, reason);
  try {
    if (created_) descriptor_.destroy(instance_);
    created_ = false;
    descriptor_.destroy(nullptr);
  } catch (...) {
    return fail(kDestroy, "destroy let a C++ exception escape across the C ABI");
  }
  pass(kDestroy);
}

void ConformanceRun::unload() {
  if (handle_ == nullptr) return skip(kUnloads, "the library did not load");
  void* handle = std::exchange(handle_, nullptr);
  dlerror();
  if (dlclose(handle) != 0) {
    const char* why = dlerror();
    return fail(kUnloads, std::string("dlclose failed: ") + (why ? why : "unknown error"));
  }
  if (void* again = dlopen(path_.c_str(), RTLD_NOW | RTLD_NOLOAD); again != nullptr) {
    dlclose(again);
    return fail(kUnloads,
                "stays mapped after dlclose, so a rebuilt plugin could not replace it (a "
                "STB_GNU_UNIQUE symbol or a thread_local with a destructor pins it; build with "
                "-fno-gnu-unique)");
  }
  pass(kUnloads);
}

}  // namespace lds::conformance_detail
