// abi_rules.cpp: the ABI's rules for names, descriptors, rankings and loadable files.
#include "strategy/abi_rules.h"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace lds::abi_rules {

bool valid_strategy_name(std::string_view name) noexcept {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

std::string plugin_file_name(std::string_view name) {
  return "liblds_" + std::string(name) + ".so";
}

std::vector<std::string> descriptor_faults(const lds_strategy& d) {
  std::vector<std::string> faults;
  if (d.struct_size < kStrategyV1Size) {
    faults.push_back("struct_size " + std::to_string(d.struct_size) +
                     " is below the ABI 1.0 size " + std::to_string(kStrategyV1Size));
  }
  if (d.abi_major != LDS_ABI_MAJOR) {
    faults.push_back("abi_major is " + std::to_string(d.abi_major) + ", not " +
                     std::to_string(LDS_ABI_MAJOR));
  }
  if (d.name == nullptr) {
    faults.push_back("name is NULL");
  } else if (!valid_strategy_name(d.name)) {
    faults.push_back("name does not match [a-z0-9_]+");
  }
  if (d.version == nullptr) faults.push_back("version is NULL");
  if (d.description == nullptr) faults.push_back("description is NULL");
  if (d.create == nullptr) faults.push_back("create is NULL");
  if (d.destroy == nullptr) faults.push_back("destroy is NULL");
  if (d.rank == nullptr) faults.push_back("rank is NULL");
  return faults;
}

bool descriptor_callable(const lds_strategy& d) noexcept {
  return d.struct_size >= kStrategyV1Size && d.abi_major == LDS_ABI_MAJOR && d.create != nullptr &&
         d.destroy != nullptr && d.rank != nullptr;
}

bool ranking_is_valid(const uint32_t* order, uint32_t order_len, uint32_t dir_count) noexcept {
  if (order_len == 0 || order_len > dir_count) return false;
  if (dir_count > 256) return ranking_problem(order, order_len, dir_count).empty();
  if (dir_count <= 64) {  // the usual broker: the seen set in one register, no store per entry
    uint64_t seen = 0;
    for (uint32_t i = 0; i < order_len; ++i) {
      const uint32_t d = order[i];
      if (d >= dir_count) return false;
      const uint64_t bit = 1ull << d;
      if ((seen & bit) != 0) return false;
      seen |= bit;
    }
    return true;
  }
  uint64_t seen[4] = {0, 0, 0, 0};
  for (uint32_t i = 0; i < order_len; ++i) {
    const uint32_t d = order[i];
    if (d >= dir_count) return false;
    const uint64_t bit = 1ull << (d % 64);
    if ((seen[d / 64] & bit) != 0) return false;
    seen[d / 64] |= bit;
  }
  return true;
}

std::string ranking_problem(const uint32_t* order, uint32_t order_len, uint32_t dir_count) {
  if (order_len == 0) return "it ranked no directory but returned LDS_OK";
  if (order_len > dir_count) {
    return "order_len " + std::to_string(order_len) + " exceeds the " + std::to_string(dir_count) +
           " candidate directories";
  }
  std::vector<bool> seen(dir_count, false);
  for (uint32_t i = 0; i < order_len; ++i) {
    const uint32_t d = order[i];
    if (d >= dir_count) {
      return "index " + std::to_string(d) + " is out of range for " + std::to_string(dir_count) +
             " directories";
    }
    if (seen[d]) return "index " + std::to_string(d) + " appears twice";
    seen[d] = true;
  }
  return {};
}

std::string truncated_elf_problem(const std::filesystem::path& file) {
  int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  struct stat st {};
  ElfW(Ehdr) header{};
  std::string problem;
  const bool is_elf =
      ::fstat(fd, &st) == 0 &&
      ::pread(fd, &header, sizeof header, 0) == static_cast<ssize_t>(sizeof header) &&
      std::memcmp(header.e_ident, ELFMAG, SELFMAG) == 0 &&
      header.e_ident[EI_CLASS] == (sizeof(void*) == 8 ? ELFCLASS64 : ELFCLASS32);
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  if (is_elf && header.e_phentsize != sizeof(ElfW(Phdr))) {
    problem = "its ELF program headers have an unexpected size";
  } else if (is_elf && header.e_phoff + uint64_t{header.e_phnum} * sizeof(ElfW(Phdr)) > size) {
    problem = "it is truncated: its ELF program headers end past the end of the " +
              std::to_string(size) + "-byte file";
  }
  for (uint32_t i = 0; is_elf && problem.empty() && i < header.e_phnum; ++i) {
    ElfW(Phdr) ph{};
    const off_t at = static_cast<off_t>(header.e_phoff + i * sizeof ph);
    if (::pread(fd, &ph, sizeof ph, at) != static_cast<ssize_t>(sizeof ph)) {
      problem = "its ELF program header " + std::to_string(i) + " cannot be read";
    } else if (ph.p_type == PT_LOAD && (ph.p_offset > size || ph.p_filesz > size - ph.p_offset)) {
      problem = "it is truncated: its loadable segment " + std::to_string(i) + " ends at byte " +
                std::to_string(ph.p_offset + ph.p_filesz) + ", past the end of the " +
                std::to_string(size) + "-byte file";
    }
  }
  ::close(fd);
  return problem;
}

}  // namespace lds::abi_rules
