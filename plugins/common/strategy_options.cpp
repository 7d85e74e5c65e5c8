// Option parsing shared by the strategies, with the ABI's error sentences naming key and value.
#include "strategy_options.h"

#include <cstdio>
#include <cstring>

#include "error_text.h"

namespace lds::plugin {
namespace {

char LowerAscii(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool EqualsIgnoringAsciiCase(const char* text, const char* lower) {
  for (; *lower != '\0'; ++text, ++lower) {
    if (LowerAscii(*text) != *lower) return false;
  }
  return *text == '\0';
}

}  // namespace

lds_status CheckCreateArguments(const char* strategy, const lds_config_entry* config,
                                uint32_t config_count, void** instance, char* error,
                                uint32_t error_cap) noexcept {
  if (instance == nullptr) {
    WriteError(error, error_cap, "create for strategy %s was given a NULL instance pointer",
               strategy);
    return LDS_ERR_INVALID_ARGUMENT;
  }
  if (config == nullptr && config_count > 0) {
    WriteError(error, error_cap, "create for strategy %s was given a NULL config with %u entries",
               strategy, config_count);
    return LDS_ERR_INVALID_ARGUMENT;
  }
  for (uint32_t i = 0; i < config_count; ++i) {
    if (config[i].key == nullptr) {
      WriteError(error, error_cap, "config entry %u for strategy %s has a NULL key", i, strategy);
      return LDS_ERR_INVALID_ARGUMENT;
    }
    if (config[i].value == nullptr) {
      WriteError(error, error_cap, "option '%s' for strategy %s has a NULL value", config[i].key,
                 strategy);
      return LDS_ERR_INVALID_ARGUMENT;
    }
    for (uint32_t j = 0; j < i; ++j) {
      if (std::strcmp(config[i].key, config[j].key) == 0) {
        WriteError(error, error_cap, "option '%s' is given more than once for strategy %s",
                   config[i].key, strategy);
        return LDS_ERR_INVALID_ARGUMENT;
      }
    }
  }
  return LDS_OK;
}

lds_status RejectUnknownOption(const char* strategy, const char* key, const char* known,
                               char* error, uint32_t error_cap) noexcept {
  WriteError(error, error_cap, "unknown option '%s' for strategy %s (known options: %s)", key,
             strategy, known);
  return LDS_ERR_INVALID_ARGUMENT;
}

bool ParseUnsignedDecimal(const char* text, uint64_t* value) noexcept {
  if (text == nullptr || *text == '\0') return false;
  uint64_t result = 0;
  for (const char* p = text; *p != '\0'; ++p) {
    if (*p < '0' || *p > '9') return false;
    const auto digit = static_cast<uint64_t>(*p - '0');
    if (result > (UINT64_MAX - digit) / 10) return false;
    result = result * 10 + digit;
  }
  *value = result;
  return true;
}

bool ParseBoolean(const char* text, bool* value) noexcept {
  if (text == nullptr) return false;
  if (EqualsIgnoringAsciiCase(text, "true")) {
    *value = true;
    return true;
  }
  if (EqualsIgnoringAsciiCase(text, "false")) {
    *value = false;
    return true;
  }
  return false;
}

lds_status ReadByteCountOption(const lds_config_entry& entry, uint64_t* value, char* error,
                               uint32_t error_cap) noexcept {
  if (ParseUnsignedDecimal(entry.value, value)) return LDS_OK;
  WriteError(error, error_cap,
             "invalid value '%s' for option %s: expected a number of bytes, an unsigned decimal "
             "integer no larger than %llu",
             entry.value, entry.key, static_cast<unsigned long long>(UINT64_MAX));
  return LDS_ERR_INVALID_ARGUMENT;
}

lds_status ReadBooleanOption(const lds_config_entry& entry, bool* value, char* error,
                             uint32_t error_cap) noexcept {
  if (ParseBoolean(entry.value, value)) return LDS_OK;
  WriteError(error, error_cap, "invalid value '%s' for option %s: expected true or false",
             entry.value, entry.key);
  return LDS_ERR_INVALID_ARGUMENT;
}

lds_status ReadChoiceOption(const lds_config_entry& entry, std::span<const char* const> choices,
                            size_t* chosen, char* error, uint32_t error_cap) noexcept {
  for (size_t i = 0; i < choices.size(); ++i) {
    if (std::strcmp(entry.value, choices[i]) == 0) {
      *chosen = i;
      return LDS_OK;
    }
  }
  // "expected a, b or c"
  char expected[256] = "";
  size_t used = 0;
  for (size_t i = 0; i < choices.size() && used < sizeof expected; ++i) {
    const char* separator = i == 0 ? "" : (i + 1 == choices.size() ? " or " : ", ");
    const int n =
        std::snprintf(expected + used, sizeof expected - used, "%s%s", separator, choices[i]);
    if (n < 0) break;
    used += static_cast<size_t>(n);
  }
  WriteError(error, error_cap, "invalid value '%s' for option %s: expected %s", entry.value,
             entry.key, expected);
  return LDS_ERR_INVALID_ARGUMENT;
}

}  // namespace lds::plugin
