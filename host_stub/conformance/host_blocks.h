// host_blocks.h: the candidates and the request as a host of a given minor lays them out, each one
// heap block of exactly the size that host passes, so that a read past it is a read past the
// allocation (which AddressSanitizer and Valgrind report).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "conformance/battery.h"
#include <lds/logdir_strategy.h>

namespace lds::conformance_detail {

// A host built against a later minor: its lds_dir carries fields this header does not know.
struct WideDir {
  lds_dir dir;
  uint64_t later_a;
  uint32_t later_b;
  char later_c[20];
};

enum class DirLayout { kPlain, kWide };

// Bytes the host owns and the plugin may only read, with a copy to tell whether it wrote anyway.
class HostBlock {
 public:
  explicit HostBlock(size_t size);
  unsigned char* data() const { return bytes_.get(); }
  size_t size() const { return size_; }
  // Remembers the contents, for written_since_sealed().
  void seal();
  bool written_since_sealed() const;

 private:
  std::unique_ptr<unsigned char[]> bytes_;
  size_t size_;
  std::vector<unsigned char> sealed_;
};

// The bytes from one lds_dir to the next: 48 for a 1.0 host, this header's lds_dir for a later
// one, and WideDir for kWide (a host of a later minor than this header).
size_t host_dir_stride(DirLayout layout, uint32_t host_minor);

// Every candidate of `set`, paths bound, at host_dir_stride. A 1.0 host sends neither the 1.1 rate
// nor its flag; a kWide entry of a 1.0 host marks the rate unknown, which is what a 1.0 host's
// answer was based on.
HostBlock host_dirs(const CandidateSet& set, DirLayout layout, uint32_t host_minor);

// The request of `set`, topic bound: 1.0-sized for a 1.0 host.
HostBlock host_request(const CandidateSet& set, uint32_t host_minor);

}  // namespace lds::conformance_detail
