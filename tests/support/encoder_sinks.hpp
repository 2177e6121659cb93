// Sinks for the encoder tests: one that keeps every byte and how it arrived, one that refuses
// bytes after a number of calls.
#pragma once

#include <cstddef>
#include <span>
#include <system_error>
#include <vector>

#include "inputanim/writer.hpp"

namespace inputanim::testing {

class recording_sink final : public byte_sink {
  public:
    std::error_code write(std::span<const std::byte> b) override {
        bytes.insert(bytes.end(), b.begin(), b.end());
        ++calls;
        return {};
    }
    std::vector<std::byte> bytes;
    std::size_t calls = 0;
};

// Takes `accepted` calls, then fails every call with no_space_on_device.
class failing_sink final : public byte_sink {
  public:
    explicit failing_sink(std::size_t accepted) noexcept : accepted_(accepted) {}
    std::error_code write(std::span<const std::byte> b) override {
        ++calls;
        if (calls > accepted_) return std::make_error_code(std::errc::no_space_on_device);
        taken += b.size();
        return {};
    }
    std::size_t calls = 0;
    std::size_t taken = 0;

  private:
    std::size_t accepted_;
};

}  // namespace inputanim::testing
