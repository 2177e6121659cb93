// A read-only memory mapping of a file, owned and move-only, and the guard that turns a page
// which vanished under the mapping (another process truncated the file) into an I/O error
// instead of a SIGBUS that kills the process. No Boost in this header.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <system_error>
#include <type_traits>
#include <utility>

#include "inputanim/validate.hpp"

namespace inputanim {

namespace detail {
// Runs fn(context) with SIGBUS faults inside `region` turned into std::errc::io_error.
std::error_code run_guarded(std::span<const std::byte> region, void (*fn)(void*), void* context);
}  // namespace detail

// Runs `f()`, which reads memory inside `region` (a mapping), so that a SIGBUS raised by a read
// inside `region` ends `f` at once and returns std::errc::io_error; the process lives on.
// A SIGBUS anywhere else keeps its usual meaning (the previous handler, else the default action).
// Thread-safe: each thread has its own guard; guards nest (the innermost one covering the
// faulting address wins).
//
// A fault leaves `f` with siglongjmp, so `f` must not own anything with a destructor that has to
// run (memory, locks) while it touches the region. The library's reader, recording, validate and
// check_content qualify: they neither allocate nor lock. read_model does not (it allocates).
//
// Returns `f`'s results through what it captures; an error means they are incomplete.
template <class F>
std::error_code guarded(std::span<const std::byte> region, F&& f) {
    using callable = std::remove_reference_t<F>;
    return detail::run_guarded(
        region, [](void* context) { (*static_cast<callable*>(context))(); },
        const_cast<void*>(static_cast<const void*>(std::addressof(f))));
}

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

// validate() of a mapping (or any bytes) under guarded(), on up to `threads` threads: the
// structure walk and the warnings run on the calling thread, and at level full the content checks
// run in parts of about equal size on the threads at once, each part under its own guard. One
// core cannot read memory as fast as several: on a large file this is faster than validate(), and
// `out` is the same report. Files smaller than `min_part_bytes` per thread use fewer threads (one
// below twice that size, and then nothing is allocated). Returns io_error when a page of the
// mapping vanished (another process truncated the file); `out` is then no verdict.
std::error_code validate_guarded(std::span<const std::byte> bytes, const validate_options& options,
                                 unsigned threads, report& out,
                                 std::uint64_t min_part_bytes = std::uint64_t{16} << 20);

class mapped_file {
  public:
    mapped_file() noexcept;
    mapped_file(mapped_file&&) noexcept;
    mapped_file& operator=(mapped_file&&) noexcept;
    mapped_file(const mapped_file&) = delete;
    mapped_file& operator=(const mapped_file&) = delete;
    ~mapped_file();

    // Maps `path` read-only, through the input layer (input.hpp: opened without blocking, the
    // type checked on the descriptor). On failure returns an empty mapping and sets `ec` as
    // input::open does for a path. An empty file maps to an empty span without error.
    static mapped_file open(const std::filesystem::path& path, std::error_code& ec) noexcept;

    std::span<const std::byte> bytes() const noexcept;
    std::size_t size() const noexcept { return bytes().size(); }

    // guarded(bytes(), f): reads of this mapping inside `f` that hit a page cut off by a
    // concurrent truncation return std::errc::io_error instead of killing the process.
    template <class F>
    std::error_code guard(F&& f) const {
        return guarded(bytes(), std::forward<F>(f));
    }

  private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

}  // namespace inputanim
