// Error sentences for the ABI's error buffers, and the guard that keeps exceptions inside the
// plugin.
#pragma once

#include <cstdarg>
#include <cstdint>
#include <exception>
#include <new>

#include <lds/logdir_strategy.h>

namespace lds::plugin {

// Writes one printf-formatted sentence into error, a buffer of error_cap bytes. Does nothing when
// error is NULL or error_cap is 0. Otherwise the text is cut to fit, never inside a UTF-8 sequence,
// and is always NUL-terminated within error_cap.
void write_error(char* error, uint32_t error_cap, const char* format, ...) noexcept
    __attribute__((format(printf, 3, 4)));

// WriteError with a va_list, for other variadic writers.
void write_error_v(char* error, uint32_t error_cap, const char* format, va_list arguments) noexcept
    __attribute__((format(printf, 3, 0)));

// Runs body, which returns an lds_status, and turns any exception that escapes it into
// LDS_ERR_INTERNAL with a sentence naming the strategy, so no exception crosses the ABI.
template <typename Body>
int32_t run_guarded(const char* strategy, char* error, uint32_t error_cap, Body&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    write_error(error, error_cap, "strategy %s ran out of memory", strategy);
  } catch (const std::exception& e) {
    write_error(error, error_cap, "internal error in strategy %s: %s", strategy, e.what());
  } catch (...) {
    write_error(error, error_cap, "internal error in strategy %s", strategy);
  }
  return LDS_ERR_INTERNAL;
}

}  // namespace lds::plugin
