// heap_trim.cpp: glibc's malloc_trim, where there is one.
#include "io/heap_trim.h"

#include <cstdlib>  // before the test below: it defines __GLIBC__

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace lds {

void return_free_heap() {
#if defined(__GLIBC__)
  ::malloc_trim(0);
#endif
}

void return_free_heap_after(size_t answer_bytes) {
  constexpr size_t kLargeAnswerBytes = size_t{64} << 10;
  if (answer_bytes >= kLargeAnswerBytes) return_free_heap();
}

}  // namespace lds
