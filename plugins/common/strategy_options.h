// Reading a strategy's options (lds_config_entry): entry checks, numbers, booleans and choices.
#pragma once

#include <cstdint>
#include <span>

#include <lds/logdir_strategy.h>

namespace lds::plugin {

// The checks every create does before reading options: instance is non-NULL, config is non-NULL
// when config_count > 0, every key and value is non-NULL, and no key appears twice. Returns LDS_OK
// or LDS_ERR_INVALID_ARGUMENT with a sentence in error.
lds_status check_create_arguments(const char* strategy, const lds_config_entry* config,
                                  uint32_t config_count, void** instance, char* error,
                                  uint32_t error_cap) noexcept;

// Reports a key the strategy does not know: "unknown option 'k' for strategy s (known options:
// known)". Always returns LDS_ERR_INVALID_ARGUMENT.
lds_status reject_unknown_option(const char* strategy, const char* key, const char* known,
                                 char* error, uint32_t error_cap) noexcept;

// Parses an unsigned decimal integer: one or more ASCII digits, nothing else (no sign, no
// whitespace, no suffix), at most UINT64_MAX.
bool parse_unsigned_decimal(const char* text, uint64_t* value) noexcept;

// Parses "true" or "false", ignoring ASCII case as Kafka does.
bool parse_boolean(const char* text, bool* value) noexcept;

// Option readers. Each parses entry.value into *value and returns LDS_OK, or returns
// LDS_ERR_INVALID_ARGUMENT with "invalid value 'v' for option k: expected ..." in error.
lds_status read_byte_count_option(const lds_config_entry& entry, uint64_t* value, char* error,
                                  uint32_t error_cap) noexcept;
// A whole number of seconds, an unsigned decimal integer.
lds_status read_seconds_option(const lds_config_entry& entry, uint64_t* value, char* error,
                               uint32_t error_cap) noexcept;
lds_status read_boolean_option(const lds_config_entry& entry, bool* value, char* error,
                               uint32_t error_cap) noexcept;
// Sets *chosen to the index in choices of entry.value (exact match).
lds_status read_choice_option(const lds_config_entry& entry, std::span<const char* const> choices,
                              size_t* chosen, char* error, uint32_t error_cap) noexcept;

}  // namespace lds::plugin
