// The allocation counter of tests/support/allocation_counter.cpp; only executables that link it
// (tests/allocation.cmake) count.
#pragma once

#include <cstddef>

namespace inputanim::testing {

// Global operator new calls so far in this process.
std::size_t allocation_count() noexcept;

// Counts the allocations made between its construction and `count()`. Nothing that may
// allocate (gtest assertions, messages) belongs inside that stretch.
class allocation_probe {
  public:
    allocation_probe() noexcept : start_(allocation_count()) {}
    std::size_t count() const noexcept { return allocation_count() - start_; }

  private:
    std::size_t start_;
};

}  // namespace inputanim::testing
