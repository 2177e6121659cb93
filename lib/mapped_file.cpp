#include "inputanim/mapped_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/iostreams/device/mapped_file.hpp>
#include <cerrno>

namespace inputanim {

struct mapped_file::impl {
    boost::iostreams::mapped_file_source source;
};

mapped_file::mapped_file() noexcept = default;
mapped_file::mapped_file(mapped_file&&) noexcept = default;
mapped_file& mapped_file::operator=(mapped_file&&) noexcept = default;
mapped_file::~mapped_file() = default;

mapped_file mapped_file::open(const std::filesystem::path& path, std::error_code& ec) noexcept {
    ec.clear();
    mapped_file result;
    // Boost reports every failure as one exception type, so the precise cause is found first
    // with the system calls that name it.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        ec = std::error_code(errno, std::generic_category());
        return result;
    }
    struct stat st {};
    const int stat_result = ::fstat(fd, &st);
    const int stat_errno = errno;
    ::close(fd);
    if (stat_result != 0) {
        ec = std::error_code(stat_errno, std::generic_category());
        return result;
    }
    if (S_ISDIR(st.st_mode)) {
        ec = std::make_error_code(std::errc::is_a_directory);
        return result;
    }
    if (!S_ISREG(st.st_mode)) {
        ec = std::make_error_code(std::errc::invalid_argument);
        return result;
    }
    // Boost refuses to map zero bytes; an empty file is simply an empty span.
    if (st.st_size == 0) return result;
    try {
        auto m = std::make_unique<impl>();
        m->source.open(path.string());
        if (!m->source.is_open()) {
            ec = std::make_error_code(std::errc::io_error);
            return result;
        }
        result.impl_ = std::move(m);
    } catch (const std::exception&) {
        ec = std::make_error_code(std::errc::io_error);
    }
    return result;
}

std::span<const std::byte> mapped_file::bytes() const noexcept {
    if (!impl_) return {};
    return {reinterpret_cast<const std::byte*>(impl_->source.data()), impl_->source.size()};
}

}  // namespace inputanim
