// Every global operator new and delete, replaced by counting versions. Linked only into the tests
// that prove the absence of allocation (tests/allocation.cmake). A replacement defined in the
// executable takes precedence over the sanitizer runtime's, so this works under ASan too.
#include "support/allocation_counter.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <new>

namespace {

std::atomic<std::size_t> allocations{0};

void* counted_malloc(std::size_t size) noexcept {
    allocations.fetch_add(1, std::memory_order_relaxed);
    // operator new must return a distinct pointer for size 0; malloc(0) may return nullptr.
    return std::malloc(size == 0 ? 1 : size);
}

void* counted_aligned(std::size_t size, std::align_val_t align) noexcept {
    allocations.fetch_add(1, std::memory_order_relaxed);
    void* p = nullptr;
    const std::size_t alignment = std::max(static_cast<std::size_t>(align), sizeof(void*));
    return posix_memalign(&p, alignment, size == 0 ? 1 : size) == 0 ? p : nullptr;
}

// Out of line so that GCC, inlining a replaced operator delete, does not see new paired with free
// (-Wmismatched-new-delete); the pairing is right here because operator new calls malloc.
[[gnu::noinline]] void release(void* p) noexcept {
    std::free(p);
}

void* or_throw(void* p) {
    if (p == nullptr) throw std::bad_alloc();
    return p;
}

}  // namespace

void* operator new(std::size_t size) {
    return or_throw(counted_malloc(size));
}
void* operator new[](std::size_t size) {
    return or_throw(counted_malloc(size));
}
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
    return counted_malloc(size);
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
    return counted_malloc(size);
}
void* operator new(std::size_t size, std::align_val_t align) {
    return or_throw(counted_aligned(size, align));
}
void* operator new[](std::size_t size, std::align_val_t align) {
    return or_throw(counted_aligned(size, align));
}
void* operator new(std::size_t size, std::align_val_t align, const std::nothrow_t&) noexcept {
    return counted_aligned(size, align);
}
void* operator new[](std::size_t size, std::align_val_t align, const std::nothrow_t&) noexcept {
    return counted_aligned(size, align);
}

void operator delete(void* p) noexcept {
    release(p);
}
void operator delete[](void* p) noexcept {
    release(p);
}
void operator delete(void* p, std::size_t) noexcept {
    release(p);
}
void operator delete[](void* p, std::size_t) noexcept {
    release(p);
}
void operator delete(void* p, const std::nothrow_t&) noexcept {
    release(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept {
    release(p);
}
void operator delete(void* p, std::align_val_t) noexcept {
    release(p);
}
void operator delete[](void* p, std::align_val_t) noexcept {
    release(p);
}
void operator delete(void* p, std::size_t, std::align_val_t) noexcept {
    release(p);
}
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept {
    release(p);
}
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept {
    release(p);
}
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept {
    release(p);
}

namespace inputanim::testing {

std::size_t allocation_count() noexcept {
    return allocations.load();
}

}  // namespace inputanim::testing
