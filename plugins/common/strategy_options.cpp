// Option parsing shared by the strategies, with the ABI's error sentences naming key and value.
#include "strategy_options.h"

#include <cstdio>
#include <cstring>

#include "error_text.h"

namespace lds::plugin {
namespace {

char lower_ascii(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool equals_ignoring_ascii_case(const char* text, const char* lower) {
  for (; *lower != '\0'; ++text, ++lower) {
    if (lower_ascii(*text) != *lower) return false;
  }
  return *text == '\0';
}

}  // namespace

lds_status check_create_arguments(const char* strategy, const lds_config_entry* config,
                                  uint32_t config_count, void** instance, char* error,
                                  uint32_t error_cap) noexcept {
  if (instance == nullptr) {
    write_error(error, error_cap, "create for strategy %s was given a NULL instance pointer",
                strategy);
    return LDS_ERR_INVALID_ARGUMENT;
  }
  if (config == nullptr && config_count > 0) {
    write_error(error, error_cap, "create for strategy %s was given a NULL config with %u entries",
                strategy, config_count);
    return LDS_ERR_INVALID_ARGUMENT;
  }
  for (uint32_t i = 0; i < config_count; ++i) {
    if (config[i].key == nullptr) {
      write_error(error, error_cap, "config entry %u for strategy %s has a NULL key", i, strategy);
      return LDS_ERR_INVALID_ARGUMENT;
    }
    if (config[i].value == nullptr) {
      write_error(error, error_cap, "option '%s' for strategy %s has a NULL value", config[i].key,
                  strategy);
      return LDS_ERR_INVALID_ARGUMENT;
    }
    for (uint32_t j = 0; j < i; ++j) {
      if (std::strcmp(config[i].key, config[j].key) == 0) {
        write_error(error, error_cap, "option '%s' is given more than once for strategy %s",
                    config[i].key, strategy);
        return LDS_ERR_INVALID_ARGUMENT;
      }
    }
  }
  return LDS_OK;
}

lds_status reject_unknown_option(const char* strategy, const char* key, const char* known,
                                 char* error, uint32_t error_cap) noexcept {
  write_error(error, error_cap, "unknown option '%s' for strategy %s (known options: %s)", key,
              strategy, known);
  return LDS_ERR_INVALID_ARGUMENT;
}

bool parse_unsigned_decimal(const char* text, uint64_t* value) noexcept {
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

bool parse_boolean(const char* text, bool* value) noexcept {
  if (text == nullptr) return false;
  if (equals_ignoring_ascii_case(text, "true")) {
    *value = true;
    return true;
  }
  if (equals_ignoring_ascii_case(text, "false")) {
    *value = false;
    return true;
  }
  return false;
}

lds_status read_byte_count_option(const lds_config_entry& entry, uint64_t* value, char* error,
                                  uint32_t error_cap) noexcept {
  if (parse_unsigned_decimal(entry.value, value)) return LDS_OK;
  write_error(error, error_cap,
              "invalid value '%s' for option %s: expected a number of bytes, an unsigned decimal "
              "integer no larger than %llu",
              entry.value, entry.key, static_cast<unsigned long long>(UINT64_MAX));
  return LDS_ERR_INVALID_ARGUMENT;
}

lds_status read_seconds_option(const lds_config_entry& entry, uint64_t* value, char* error,
                               uint32_t error_cap) noexcept {
  if (parse_unsigned_decimal(entry.value, value)) return LDS_OK;
  write_error(error, error_cap,
              "invalid value '%s' for option %s: expected a number of seconds, an unsigned "
              "decimal integer no larger than %llu",
              entry.value, entry.key, static_cast<unsigned long long>(UINT64_MAX));
  return LDS_ERR_INVALID_ARGUMENT;
}

lds_status read_boolean_option(const lds_config_entry& entry, bool* value, char* error,
                               uint32_t error_cap) noexcept {
  if (parse_boolean(entry.value, value)) return LDS_OK;
  write_error(error, error_cap, "invalid value '%s' for option %s: expected true or false",
              entry.value, entry.key);
  return LDS_ERR_INVALID_ARGUMENT;
}

lds_status read_choice_option(const lds_config_entry& entry, std::span<const char* const> choices,
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
  write_error(error, error_cap, "invalid value '%s' for option %s: expected %s", entry.value,
              entry.key, expected);
  return LDS_ERR_INVALID_ARGUMENT;
}

}  // namespace lds::plugin
