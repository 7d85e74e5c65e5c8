// elf_check.cpp: refuses an ELF file whose loadable segments lie past its end, before dlopen maps
// it.
#include "lds/elf_check.h"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>

namespace lds {

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

}  // namespace lds
