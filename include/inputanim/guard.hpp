// The guard that turns a read of a page which vanished under a memory mapping (another process
// truncated the mapped file) into an I/O error instead of a SIGBUS that kills the process. POSIX
// only; validate() runs its reads under it, and mapped_file offers it for other reads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <system_error>
#include <type_traits>
#include <utility>

namespace inputanim {

namespace detail {
// Runs fn(context) with SIGBUS faults inside `region` turned into std::errc::io_error; the
// faulting byte's offset in `region` goes to *fault_offset when that is not null.
std::error_code run_guarded(std::span<const std::byte> region, void (*fn)(void*), void* context,
                            std::uint64_t* fault_offset = nullptr);
}  // namespace detail

// Runs `f()`, which reads memory inside `region` (a mapping), so that a SIGBUS raised by a read
// inside `region` ends `f` at once and returns std::errc::io_error; the process lives on.
// A SIGBUS anywhere else keeps its usual meaning (the previous handler, else the default action).
// Thread-safe: each thread has its own guard; guards nest (the innermost one covering the
// faulting address wins).
//
// A fault leaves `f` with siglongjmp, so `f` must not own anything with a destructor that has to
// run (memory, locks) while it touches the region. The library's reader, recording and evaluation
// qualify: they neither allocate nor lock. read_model does not (it allocates). validate() guards
// its own reads.
//
// Returns `f`'s results through what it captures; an error means they are incomplete.
template <class F>
std::error_code guarded(std::span<const std::byte> region, F&& f) {
    using callable = std::remove_reference_t<F>;
    return detail::run_guarded(
        region, [](void* context) { (*static_cast<callable*>(context))(); },
        const_cast<void*>(static_cast<const void*>(std::addressof(f))));
}

// Bytes a reader is handed, with where they live: in memory, whose reads cannot fail, or in a
// mapping, which another process may truncate. run() reads them under guarded() only when they are
// a mapping, so that a holder of bytes says once what they are and no reader chooses the guard.
class held_bytes {
  public:
    // No bytes.
    held_bytes() noexcept = default;
    static held_bytes in_memory(std::span<const std::byte> bytes) noexcept {
        return held_bytes(bytes, false);
    }
    static held_bytes mapping(std::span<const std::byte> bytes) noexcept {
        return held_bytes(bytes, true);
    }

    std::span<const std::byte> span() const noexcept { return bytes_; }
    // Whether they are a mapping, whose reads may fail.
    bool mapped() const noexcept { return mapped_; }

    // Runs f(), which reads span(): under guarded() when it is a mapping (std::errc::io_error when
    // a page of it vanished, f's results then incomplete), else as it is (no error).
    template <class F>
    std::error_code run(F&& f) const {
        if (!mapped_) {
            f();
            return {};
        }
        return guarded(bytes_, std::forward<F>(f));
    }

  private:
    held_bytes(std::span<const std::byte> bytes, bool mapped) noexcept
        : bytes_(bytes), mapped_(mapped) {}

    std::span<const std::byte> bytes_;
    bool mapped_ = false;
};

namespace detail {
template <class F>
std::size_t guarded_from(std::span<const std::span<const std::byte>> regions, std::size_t i, F& f) {
    if (i == regions.size()) {
        f();
        return i;
    }
    std::size_t failed = regions.size();
    const std::error_code ec =
        guarded(regions[i], [&] { failed = guarded_from(regions, i + 1, f); });
    return ec ? i : failed;
}
}  // namespace detail

// guarded() over several regions at once (the mappings of several files read side by side):
// returns the index of the region whose vanished page ended `f`, or regions.size() when `f` ran
// to its end.
template <class F>
std::size_t guarded_each(std::span<const std::span<const std::byte>> regions, F&& f) {
    return detail::guarded_from(regions, 0, f);
}

}  // namespace inputanim
