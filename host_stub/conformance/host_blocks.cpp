// host_blocks.cpp: the candidates and the request laid out as a host of each minor passes them.
#include "conformance/host_blocks.h"

#include <cstring>

#include "strategy/abi_rules.h"

namespace lds::conformance_detail {

HostBlock::HostBlock(size_t size) : bytes_(new unsigned char[size]()), size_(size) {}

void HostBlock::seal() { sealed_.assign(bytes_.get(), bytes_.get() + size_); }

bool HostBlock::written_since_sealed() const {
  return size_ != 0 && std::memcmp(sealed_.data(), bytes_.get(), size_) != 0;
}

size_t host_dir_stride(DirLayout layout, uint32_t host_minor) {
  if (layout == DirLayout::kWide) return sizeof(WideDir);
  return host_minor == 0 ? abi_rules::kDirV10Size : sizeof(lds_dir);
}

HostBlock host_dirs(const CandidateSet& set, DirLayout layout, uint32_t host_minor) {
  const bool v10 = host_minor == 0;
  const size_t stride = host_dir_stride(layout, host_minor);
  // One block of exactly count entries: nothing of the host's lies past the last one.
  HostBlock block(stride * set.dirs.size());
  for (size_t i = 0; i < set.dirs.size(); ++i) {
    lds_dir dir = set.dirs[i];
    dir.path = set.paths[i].c_str();
    if (v10) {
      dir.flags &= ~LDS_DIR_RATE_UNKNOWN;
      dir.bytes_in_per_sec = 0;
    }
    unsigned char* entry = block.data() + i * stride;
    if (layout == DirLayout::kWide) {
      if (v10) dir.flags |= LDS_DIR_RATE_UNKNOWN;
      WideDir wide{};
      std::memset(&wide, 0, sizeof wide);
      wide.dir = dir;
      wide.dir.struct_size = sizeof(WideDir);
      wide.later_a = 0xDEADBEEFDEADBEEFull;
      wide.later_b = 0xFEEDFACEu;
      std::memset(wide.later_c, 0x5A, sizeof wide.later_c);
      std::memcpy(entry, &wide, sizeof wide);
    } else {
      dir.struct_size = static_cast<uint32_t>(stride);
      std::memcpy(entry, &dir, stride);
    }
  }
  return block;
}

HostBlock host_request(const CandidateSet& set, uint32_t host_minor) {
  const size_t size = host_minor == 0 ? abi_rules::kRequestV10Size : sizeof(lds_request);
  lds_request request = set.request;
  request.struct_size = static_cast<uint32_t>(size);
  request.topic = set.topic.c_str();
  HostBlock block(size);
  std::memcpy(block.data(), &request, size);
  return block;
}

}  // namespace lds::conformance_detail
