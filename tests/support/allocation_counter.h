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
inline std::atomic<long> g_allocated_bytes{0};  ///< bytes asked of malloc & co. while counting

inline void note_allocation() {
  if (g_counting.load(std::memory_order_relaxed))
    g_allocations.fetch_add(1, std::memory_order_relaxed);
}
inline void note_bytes(std::size_t bytes) {
  if (g_counting.load(std::memory_order_relaxed))
    g_allocated_bytes.fetch_add(static_cast<long>(bytes), std::memory_order_relaxed);
}

// What `counter` counted while f() ran.
template <class F>
inline long count_while(std::atomic<long>& counter, F&& f) {
  counter = 0;
  g_counting = true;
  f();
  g_counting = false;
  return counter.load();
}

// Counts the allocations made by f().
template <class F>
inline long count_allocations(F&& f) {
  return count_while(g_allocations, f);
}

// The bytes f() asks of malloc & co. (not net of what it frees).
template <class F>
inline long count_allocated_bytes(F&& f) {
  return count_while(g_allocated_bytes, f);
}

}  // namespace ramus::test

// AddressSanitizer owns malloc: interposing it there would hand ASan's free() glibc's blocks.
// Under ASan, ASan's malloc hook counts instead.
#if defined(__SANITIZE_ADDRESS__)
#define RAMUS_TEST_COUNT_MALLOC 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RAMUS_TEST_COUNT_MALLOC 0
#endif
#endif
#ifndef RAMUS_TEST_COUNT_MALLOC
#define RAMUS_TEST_COUNT_MALLOC 1
#endif

#if !RAMUS_TEST_COUNT_MALLOC
// Under ASan, its allocator reports every malloc to a hook instead.
// (declared here: GCC does not install sanitizer/allocator_interface.h)
extern "C" int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void*,
                                                                             std::size_t),
                                                         void (*free_hook)(const volatile void*));
namespace ramus::test {
inline void sanitizer_malloc_hook(const volatile void*, std::size_t size) {
  note_allocation();
  note_bytes(size);
}
inline void sanitizer_free_hook(const volatile void*) {}
inline const int g_sanitizer_hooks_installed =
    __sanitizer_install_malloc_and_free_hooks(sanitizer_malloc_hook, sanitizer_free_hook);
}  // namespace ramus::test
#endif

#if defined(__GLIBC__) && RAMUS_TEST_COUNT_MALLOC
extern "C" {
void* __libc_malloc(std::size_t size);
void* __libc_calloc(std::size_t count, std::size_t size);
void* __libc_realloc(void* pointer, std::size_t size);
void* __libc_memalign(std::size_t alignment, std::size_t size);

void* malloc(std::size_t size) noexcept {
  ramus::test::note_allocation();
  ramus::test::note_bytes(size);
  return __libc_malloc(size);
}
void* calloc(std::size_t count, std::size_t size) noexcept {
  ramus::test::note_allocation();
  ramus::test::note_bytes(count * size);
  return __libc_calloc(count, size);
}
void* realloc(void* pointer, std::size_t size) noexcept {
  ramus::test::note_allocation();
  ramus::test::note_bytes(size);
  return __libc_realloc(pointer, size);
}
void* aligned_alloc(std::size_t alignment, std::size_t size) noexcept {
  ramus::test::note_allocation();
  ramus::test::note_bytes(size);
  return __libc_memalign(alignment, size);
}
void* memalign(std::size_t alignment, std::size_t size) noexcept {  // libgomp's teams
  ramus::test::note_allocation();
  ramus::test::note_bytes(size);
  return __libc_memalign(alignment, size);
}
int posix_memalign(void** pointer, std::size_t alignment, std::size_t size) noexcept {
  ramus::test::note_allocation();
  ramus::test::note_bytes(size);
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
// Every other form goes through the two above, so that a sanitizer's own operator new (which
// it would pair with its own delete) is never mixed with the free() below.
void* operator new[](std::size_t size) {
  return ::operator new(size);
}
void* operator new[](std::size_t size, std::align_val_t alignment) {
  return ::operator new(size, alignment);
}
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  try {
    return ::operator new(size);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  return ::operator new(size, std::nothrow);
}
void* operator new(std::size_t size, std::align_val_t alignment, const std::nothrow_t&) noexcept {
  try {
    return ::operator new(size, alignment);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](std::size_t size, std::align_val_t alignment, const std::nothrow_t&) noexcept {
  return ::operator new(size, alignment, std::nothrow);
}
void operator delete[](void* p) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::size_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::align_val_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept {
  std::free(p);
}
void operator delete(void* p, const std::nothrow_t&) noexcept {
  std::free(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept {
  std::free(p);
}
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
