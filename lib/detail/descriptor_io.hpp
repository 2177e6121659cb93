// The input layer's read at an offset, inline so that the library's every build (the one without
// the I/O layer included) has it: recording::open_by_reads reads a file's structure with it, and
// input.hpp's read_at is it.
#pragma once

#include <sys/types.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <system_error>

#include "inputanim/input.hpp"

namespace inputanim::detail {

inline std::size_t read_at(int fd, std::uint64_t offset, std::span<std::byte> out,
                           std::error_code& ec) noexcept {
    ec.clear();
    std::size_t got = 0;
    while (got < out.size()) {
        const ssize_t n = retry_interrupted([&] {
            return ::pread(fd, out.data() + got, out.size() - got,
                           static_cast<off_t>(offset + got));
        });
        if (n < 0) {
            ec = {errno, std::generic_category()};
            return 0;
        }
        if (n == 0) break;
        got += static_cast<std::size_t>(n);
    }
    return got;
}

}  // namespace inputanim::detail
