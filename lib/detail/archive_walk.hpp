// The walks behind archive_reader (archive.hpp): a tar's with libarchive (lib/archive_tar.cpp), a
// zip's from its central directory (lib/archive_zip.cpp).
#pragma once

#include <cstddef>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <string_view>
#include <system_error>

#include "inputanim/archive.hpp"

namespace inputanim::detail {

// A walk of an archive's members. What it finds wrong is held here: a walk's read_member finds
// a member's faults, and read() gives a member's bytes only while it has none.
class archive_walk {
  public:
    virtual ~archive_walk() = default;
    // The next member's header; false at the end or when the walk ended early (fault()).
    virtual bool next(archive_member& m) noexcept = 0;
    // Why the current member cannot be read, known from the headers or found while reading it (an
    // errc of the archive's, at a byte of the archive); none when it can.
    const error& member_fault() const noexcept { return member_fault_; }
    // The current member's bytes read through (inflated); 0 at its end. A failure is `ec`, and
    // member_fault() says what it was.
    std::size_t read(std::span<std::byte> out, std::error_code& ec) noexcept {
        ec.clear();
        const std::size_t n = member_fault_ ? 0 : read_member(out);
        if (member_fault_) {
            ec = make_error_code(member_fault_.code);
            return 0;
        }
        return n;
    }
    // What ended the walk early; none at the archive's end.
    const error& fault() const noexcept { return fault_; }

  protected:
    // Some of the current member's bytes, which has no fault yet; 0 at its end. A failure sets
    // member_fault_ (the bytes read with it are dropped).
    virtual std::size_t read_member(std::span<std::byte> out) noexcept = 0;

    error fault_;
    error member_fault_;
};

// A walk of type Walk over `in`, opened (Walk::open); none, and `ec`, when memory is refused or
// the walk does not open.
template <class Walk>
std::unique_ptr<archive_walk> open_walk(input& in, const archive_limits& limits,
                                        std::error_code& ec) noexcept {
    ec.clear();
    std::unique_ptr<Walk> w(new (std::nothrow) Walk(in, limits));
    if (!w) {
        ec = std::make_error_code(std::errc::not_enough_memory);
        return nullptr;
    }
    if ((ec = w->open())) return nullptr;
    return w;
}

std::unique_ptr<archive_walk> open_tar_walk(input& in, const archive_limits& limits,
                                            std::error_code& ec) noexcept;
std::unique_ptr<archive_walk> open_zip_walk(input& in, const archive_limits& limits,
                                            std::error_code& ec) noexcept;

// The input input::open gives a name that leads through an archive (split_member_path): the last
// member of that name (as extracting the archive would leave it), which must be a file. `ec`:
// not_a_directory when the archive is none, no_such_file_or_directory when it holds no such member,
// is_a_directory (or the not_regular_file category) when that member is not a file.
input open_member_path(const member_path& p, std::error_code& ec) noexcept;

// Whether the 512 bytes before `offset` of the plain tar `in` are the header of a regular file
// of `size` bytes (its checksum sound). `ec` when they cannot be read.
bool tar_header_holds(const input& in, std::uint64_t offset, std::uint64_t size,
                      std::error_code& ec) noexcept;
// Where the local header of a zip entry named `name`, stored as it is, unencrypted, of `size`
// bytes (or with its sizes after it), ends at `offset` of `in`; none when there is no such
// header. `ec` when the bytes cannot be read.
std::optional<std::uint64_t> zip_local_header_of(const input& in, std::string_view name,
                                                 std::uint64_t offset, std::uint64_t size,
                                                 std::error_code& ec) noexcept;

// An archive's error at `offset` of the archive.
inline error archive_error(errc code, std::uint64_t offset) noexcept {
    error e;
    e.code = code;
    e.offset = offset;
    return e;
}

// Whether the first bytes of a content are a tar's first header (the ustar magic at 257).
bool starts_like_tar(std::span<const std::byte> head) noexcept;
// Whether they are a zip's (a local file header, or the end record of an empty zip).
bool starts_like_zip(std::span<const std::byte> head) noexcept;
// Whether they start as one of the compressions a tar may come in (gzip, bzip2, xz, zstd).
bool starts_like_compressed(std::span<const std::byte> head) noexcept;
// Whether a regular file `in` whose first bytes are compressed holds a tar (libarchive reads a
// first tar header through the filter).
bool compressed_tar(const input& in) noexcept;

}  // namespace inputanim::detail
