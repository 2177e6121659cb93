// A file's bytes read at an offset: what the walks that must not touch a file's mapping read
// instead (recording::open_by_reads, convert_options::source). The library's core reads no file
// itself; the I/O layer's input is one (input.hpp), and a test can hand bytes of its own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <system_error>

namespace inputanim {

class offset_source {
  public:
    // out.size() bytes from `offset`, fewer only when the bytes end first: the count read. A
    // failed read is `ec` (and 0).
    virtual std::size_t read_at(std::uint64_t offset, std::span<std::byte> out,
                                std::error_code& ec) const noexcept = 0;

  protected:
    offset_source() = default;
    offset_source(const offset_source&) = default;
    offset_source& operator=(const offset_source&) = default;
    ~offset_source() = default;
};

}  // namespace inputanim
