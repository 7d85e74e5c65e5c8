// heap_trim.h: gives the heap's free memory back to the kernel after a burst of allocations.
#pragma once

#include <cstddef>

namespace lds {

// The allocator keeps what a burst freed (a startup's scan, the answer to a DescribeLogDirs of
// every partition) for later allocations: after one, the broker's resident memory stays where the
// burst left it. This returns the free pages of every arena to the kernel. It walks the heap, so
// it is for after a burst, not for a hot path. A no-op where the C library offers no such call.
void return_free_heap();

// return_free_heap() after an answer of `answer_bytes`, when it was large (64 KiB or more: a
// DescribeLogDirs naming thousands of partitions). Its document's many small allocations are freed
// by then; a small answer's are not worth the walk.
void return_free_heap_after(size_t answer_bytes);

}  // namespace lds
