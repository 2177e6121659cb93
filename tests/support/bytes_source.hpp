// Bytes read at an offset as the I/O layer's input reads a file (offset_source), for the tests of
// the core's walks by reads, which read no file themselves.
#pragma once

#include <algorithm>
#include <cstring>
#include <system_error>
#include <utility>

#include "inputanim/offset_source.hpp"
#include "support/builders.hpp"

namespace inputanim::testing {

class bytes_source final : public offset_source {
  public:
    explicit bytes_source(bytes b) : bytes_(std::move(b)) {}
    std::size_t read_at(std::uint64_t offset, std::span<std::byte> out,
                        std::error_code& ec) const noexcept override {
        ec.clear();
        if (offset >= bytes_.size()) return 0;
        const std::size_t n = std::min<std::size_t>(out.size(), bytes_.size() - offset);
        std::memcpy(out.data(), bytes_.data() + offset, n);
        return n;
    }

  private:
    bytes bytes_;
};

// A source whose every read fails with `code`.
class failing_source final : public offset_source {
  public:
    explicit failing_source(std::errc code) : code_(code) {}
    std::size_t read_at(std::uint64_t, std::span<std::byte>,
                        std::error_code& ec) const noexcept override {
        ec = std::make_error_code(code_);
        return 0;
    }

  private:
    std::errc code_;
};

}  // namespace inputanim::testing
