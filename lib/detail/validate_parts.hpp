// The pieces validate() is made of: one input on the calling thread, under the guard or not, and
// one large input with its content checks split over threads (validate_parts.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <type_traits>

#include "inputanim/guard.hpp"
#include "inputanim/validate.hpp"

namespace inputanim::detail {

// Runs fn(context) under the guard: the offset in `region` of a read that hit a vanished page,
// or nothing when it ran to its end.
std::optional<std::uint64_t> fault_in(std::span<const std::byte> region, void (*fn)(void*),
                                      void* context) noexcept;
template <class F>
std::optional<std::uint64_t> guard_reads(std::span<const std::byte> region, F&& f) noexcept {
    using callable = std::remove_reference_t<F>;
    return fault_in(
        region, [](void* context) { (*static_cast<callable*>(context))(); },
        const_cast<void*>(static_cast<const void*>(std::addressof(f))));
}

// The report of a read that hit a vanished page at `offset`.
report io_fault(std::uint64_t offset) noexcept;

// validate() on the calling thread, without and with the guard.
report validate_here(std::span<const std::byte> bytes, const validate_options& options) noexcept;
report validate_guarded_here(std::span<const std::byte> bytes,
                             const validate_options& options) noexcept;

// validate() at level structure of `bytes`, the mapping of the whole file that `file` reads, with
// the structure read from `file` (recording::open_by_reads): no page of the mapping is touched.
// False, `rep` untouched, for what that walk leaves to validate() (anything but a sound v1.x
// file).
bool validate_structure_by_reads(std::span<const std::byte> bytes, const offset_source& file,
                                 const validate_options& options, report& rep) noexcept;

// validate() at level full with the content checks in parts on up to options.threads threads (0:
// one per core); the calling thread's validate_guarded_here when one part is all that pays.
report validate_in_parts(std::span<const std::byte> bytes,
                         const validate_options& options) noexcept;

}  // namespace inputanim::detail
