// Counts heap allocations in a test executable: replaces the global operator new / delete and,
// on glibc, interposes malloc & co. (Eigen allocates with std::malloc, which operator new would
// not see). Include it in exactly ONE source file of an executable; use count_allocations(f).
#pragma once

#include <atomic>
#include <cstdlib>
#include <new>

namespace ramus::test {

inline std::atomic<bool> g_counting{false};
inline std::atomic<long> g_allocations{0};

inline void note_allocation() {
  if (g_counting.load(std::memory_order_relaxed))
    g_allocations.fetch_add(1, std::memory_order_relaxed);
}

// Counts the allocations made by f().
template <class F>
inline long count_allocations(F&& f) {
  g_allocations = 0;
  g_counting = true;
  f();
  g_counting = false;
  return g_allocations.load();
}

}  // namespace ramus::test

#if defined(__GLIBC__)
extern "C" {
void* __libc_malloc(std::size_t size);
void* __libc_calloc(std::size_t count, std::size_t size);
void* __libc_realloc(void* pointer, std::size_t size);
void* __libc_memalign(std::size_t alignment, std::size_t size);

void* malloc(std::size_t size) noexcept {
  ramus::test::note_allocation();
  return __libc_malloc(size);
}
void* calloc(std::size_t count, std::size_t size) noexcept {
  ramus::test::note_allocation();
  return __libc_calloc(count, size);
}
void* realloc(void* pointer, std::size_t size) noexcept {
  ramus::test::note_allocation();
  return __libc_realloc(pointer, size);
}
void* aligned_alloc(std::size_t alignment, std::size_t size) noexcept {
  ramus::test::note_allocation();
  return __libc_memalign(alignment, size);
}
int posix_memalign(void** pointer, std::size_t alignment, std::size_t size) noexcept {
  ramus::test::note_allocation();
  *pointer = __libc_memalign(alignment, size);
  return *pointer ? 0 : 12;  // ENOMEM
}
}
#endif

void* operator new(std::size_t size) {
  ramus::test::note_allocation();
  if (void* p = std::malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}
void* operator new(std::size_t size, std::align_val_t alignment) {
  ramus::test::note_allocation();
  const std::size_t a = static_cast<std::size_t>(alignment);
  if (void* p = std::aligned_alloc(a, (size + a - 1) / a * a)) return p;
  throw std::bad_alloc();
}
// GCC flags free() in a replaced operator delete once it is inlined next to a `new` expression.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete(void* p, std::align_val_t) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t, std::align_val_t) noexcept {
  std::free(p);
}
