// byte_units.h: the binary byte units the suites size disks, files and appends in.
#pragma once

#include <cstdint>

namespace lds {

inline constexpr uint64_t kKiB = uint64_t{1} << 10;
inline constexpr uint64_t kMiB = uint64_t{1} << 20;
inline constexpr uint64_t kGiB = uint64_t{1} << 30;

}  // namespace lds
