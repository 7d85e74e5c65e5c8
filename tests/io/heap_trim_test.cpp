// heap_trim_test.cpp: return_free_heap gives freed heap pages back to the kernel, also those in the
// middle of the heap, between blocks still in use.
#include "io/heap_trim.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

namespace lds {
namespace {

// This process's resident memory, from /proc/self/status. Unused where the test is skipped.
[[maybe_unused]] uint64_t resident_bytes() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stoull(line.substr(6)) * 1024;
  }
  return 0;
}

TEST(HeapTrim, FreedPagesAmongBlocksInUseGoBackToTheKernel) {
#if !defined(__GLIBC__)
  GTEST_SKIP() << "return_free_heap is a no-op without glibc's malloc_trim";
#elif defined(LDS_SANITIZED_BUILD)
  GTEST_SKIP() << "the sanitizer's allocator serves malloc here, not glibc's heap";
#else
  // 48 MiB in blocks of 32 KiB, under the allocator's mmap threshold, so they come from the heap,
  // each written so its pages are resident. Every 16th stays in use, as long-lived objects among a
  // burst's do, so the freed ones lie between blocks in use and no free block reaches the heap's
  // top, where the allocator gives memory back by itself.
  constexpr size_t kBlock = 32 << 10, kBlocks = 1536;
  std::vector<std::unique_ptr<char[]> > blocks;
  std::vector<std::unique_ptr<char[]> > kept;
  blocks.reserve(kBlocks);
  for (size_t i = 0; i < kBlocks; ++i) {
    blocks.emplace_back(new char[kBlock]);
    std::memset(blocks.back().get(), 1, kBlock);
    if (i % 16 == 15) kept.push_back(std::move(blocks.back()));
  }
  blocks.clear();
  const uint64_t before = resident_bytes();
  return_free_heap();
  const uint64_t after = resident_bytes();
  EXPECT_GT(before, after + (32u << 20)) << "resident before " << before << ", after " << after;
  EXPECT_EQ(kept.size(), kBlocks / 16);
#endif
}

}  // namespace
}  // namespace lds
