// elf_check.h: a check that keeps dlopen from faulting on a truncated shared object.
#pragma once

#include <filesystem>
#include <string>

namespace lds {

// Why an ELF file cannot be mapped safely, or "" when its loadable segments all lie inside the
// file (or it is no ELF file at all, which the dynamic loader reports itself). The loader maps
// segments without checking them against the file size, so a truncated plugin would fault
// (SIGBUS) inside dlopen instead of failing. Used by the host's loader and by check-plugin.
std::string truncated_elf_problem(const std::filesystem::path& file);

}  // namespace lds
