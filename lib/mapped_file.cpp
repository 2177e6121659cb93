#include "inputanim/mapped_file.hpp"

#include <fcntl.h>

#include <cerrno>

#include "inputanim/input.hpp"

namespace inputanim {

// The mapping is the input layer's: one owner of mappings in the library.
struct mapped_file::impl {
    inputanim::input input;
};

mapped_file::mapped_file() noexcept = default;
mapped_file::mapped_file(mapped_file&&) noexcept = default;
mapped_file& mapped_file::operator=(mapped_file&&) noexcept = default;
mapped_file::~mapped_file() = default;

mapped_file mapped_file::open(const std::filesystem::path& path, std::error_code& ec) noexcept {
    ec.clear();
    mapped_file result;
    // A path, never standard input: a file named "-" is a file here.
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        ec = std::error_code(errno, std::generic_category());
        return result;
    }
    inputanim::input in = input::from_fd(fd, ec, false);
    if (ec) return result;
    result.impl_ = std::unique_ptr<impl>(new (std::nothrow) impl{std::move(in)});
    if (!result.impl_) ec = std::make_error_code(std::errc::not_enough_memory);
    return result;
}

std::span<const std::byte> mapped_file::bytes() const noexcept {
    if (!impl_) return {};
    return impl_->input.mapped();
}

}  // namespace inputanim
