// A read-only memory mapping of a file, owned and move-only, with the guard (guard.hpp) that
// turns a page which vanished under the mapping (another process truncated the file) into an I/O
// error instead of a SIGBUS that kills the process. No Boost in this header.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <system_error>
#include <type_traits>
#include <utility>

#include "inputanim/guard.hpp"

namespace inputanim {

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
