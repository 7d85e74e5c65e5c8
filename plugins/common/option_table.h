// A strategy's options as one table (key, default, parser) that parses create's lds_config_entry
// list and names the known keys when refusing an unknown one.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string>

#include "error_text.h"
#include "strategy_options.h"
#include <lds/logdir_strategy.h>

namespace lds::plugin {

// Parses entry.value into one field of options. Returns LDS_OK, or LDS_ERR_INVALID_ARGUMENT with
// "invalid value 'v' for option k: expected ..." in error.
template <typename Options>
using OptionParser = lds_status (*)(const lds_config_entry& entry, Options& options, char* error,
                                    uint32_t error_cap);

// One row of a strategy's option table. The default is text so that it goes through the same
// parser as a configured value and reads as an operator would write it.
template <typename Options>
struct Option {
  const char* key;
  const char* default_value;
  OptionParser<Options> parse;
};

// The class and field type of a pointer to data member, for the field parsers below.
template <typename MemberPointer>
struct MemberPointerTraits;
template <typename Class, typename Field>
struct MemberPointerTraits<Field Class::*> {
  using Options = Class;
  using Type = Field;
};
template <auto KField>
using OptionsOf = typename MemberPointerTraits<decltype(KField)>::Options;

// Field parsers for the table, e.g. {"tie.bytes", "0", ByteCountField<&SizeOptions::tie_bytes>}.
template <auto KField>
lds_status byte_count_field(const lds_config_entry& entry, OptionsOf<KField>& options, char* error,
                            uint32_t error_cap) {
  return read_byte_count_option(entry, &(options.*KField), error, error_cap);
}

template <auto KField>
lds_status seconds_field(const lds_config_entry& entry, OptionsOf<KField>& options, char* error,
                         uint32_t error_cap) {
  return read_seconds_option(entry, &(options.*KField), error, error_cap);
}

template <auto KField>
lds_status boolean_field(const lds_config_entry& entry, OptionsOf<KField>& options, char* error,
                         uint32_t error_cap) {
  return read_boolean_option(entry, &(options.*KField), error, error_cap);
}

// The field is an enum whose values are the indices of kChoices.
template <auto KField, const auto& KChoices>
lds_status choice_field(const lds_config_entry& entry, OptionsOf<KField>& options, char* error,
                        uint32_t error_cap) {
  size_t chosen = 0;
  const lds_status status = read_choice_option(entry, KChoices, &chosen, error, error_cap);
  if (status == LDS_OK) {
    options.*KField = static_cast<typename MemberPointerTraits<decltype(KField)>::Type>(chosen);
  }
  return status;
}

// The keys of table in table order, "a, b, c", or "none" for a strategy without options.
template <typename Options>
std::string known_options(std::span<const Option<Options>> table) {
  if (table.empty()) return "none";
  std::string known;
  for (const Option<Options>& option : table) {
    if (!known.empty()) known += ", ";
    known += option.key;
  }
  return known;
}

// The row of table for key, or NULL.
template <typename Options>
const Option<Options>* find_option(std::span<const Option<Options>> table, const char* key) {
  for (const Option<Options>& option : table) {
    if (std::strcmp(key, option.key) == 0) return &option;
  }
  return nullptr;
}

// Fills options with every default of table, then with config (already checked by
// CheckCreateArguments), entry by entry. An entry whose key is not in table is
// LDS_ERR_INVALID_ARGUMENT naming the key and the known options. A default that does not parse is a
// fault of the strategy itself, LDS_ERR_INTERNAL.
template <typename Options>
lds_status parse_options(const char* strategy, std::span<const Option<Options>> table,
                         std::span<const lds_config_entry> config, Options& options, char* error,
                         uint32_t error_cap) {
  for (const Option<Options>& option : table) {
    if (option.parse({option.key, option.default_value}, options, error, error_cap) != LDS_OK) {
      write_error(error, error_cap, "strategy %s: the default '%s' of option %s does not parse",
                  strategy, option.default_value, option.key);
      return LDS_ERR_INTERNAL;
    }
  }
  for (const lds_config_entry& entry : config) {
    const Option<Options>* match = find_option(table, entry.key);
    const lds_status status =
        match != nullptr ? match->parse(entry, options, error, error_cap)
                         : reject_unknown_option(strategy, entry.key, known_options(table).c_str(),
                                                 error, error_cap);
    if (status != LDS_OK) return status;
  }
  return LDS_OK;
}

}  // namespace lds::plugin
