// A tar walked with libarchive (docs/ARCHIVES.md): ustar, pax and GNU headers, plain or compressed
// by gzip, bzip2, xz or zstd. libarchive reads the archive through callbacks over the input (pread
// for a regular file, never its mapping, so that a file cut short by another process is an error
// and not a fault inside libarchive; a stream's reads), and skips a member's bytes without reading
// them where it can: a plain tar's members are then read in place, each at the offset libarchive's
// position gives once it has read the member's headers.
#include <archive.h>
#include <archive_entry.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <optional>
#include <vector>

#include "detail/archive_walk.hpp"

namespace inputanim::detail {

namespace {

// What libarchive's callbacks read from: the input, from its start.
struct tar_source {
    input* in = nullptr;
    // A regular file: read with pread at `position`, skipped without reading.
    bool regular = false;
    std::uint64_t position = 0;
    std::uint64_t size = 0;
    std::error_code io;
    std::array<std::byte, 64 * 1024> buffer{};
};

la_ssize_t read_callback(archive*, void* data, const void** out) {
    auto* s = static_cast<tar_source*>(data);
    *out = s->buffer.data();
    std::error_code ec;
    std::size_t n = 0;
    if (s->regular) {
        const std::size_t want = static_cast<std::size_t>(
            std::min<std::uint64_t>(s->buffer.size(), s->size - std::min(s->position, s->size)));
        n = want == 0
                ? 0
                : read_at(s->in->descriptor(), s->position, std::span(s->buffer).first(want), ec);
        if (!ec && n != want) ec = std::make_error_code(std::errc::io_error);
    } else {
        n = s->in->read(s->buffer, ec);
    }
    if (ec) {
        s->io = ec;
        return -1;
    }
    s->position += n;
    return static_cast<la_ssize_t>(n);
}

la_int64_t skip_callback(archive*, void* data, la_int64_t request) {
    auto* s = static_cast<tar_source*>(data);
    // Never past the end: libarchive then finds the archive cut short where it is.
    const auto n = static_cast<la_int64_t>(std::min<std::uint64_t>(
        static_cast<std::uint64_t>(request), s->size - std::min(s->position, s->size)));
    s->position += static_cast<std::uint64_t>(n);
    return n;
}

// The kind of an entry libarchive read.
member_kind kind_of(archive_entry* e) noexcept {
    if (archive_entry_hardlink(e) != nullptr) return member_kind::hardlink;
    switch (archive_entry_filetype(e)) {
        case AE_IFREG:
            return archive_entry_sparse_count(e) > 0 ? member_kind::sparse : member_kind::file;
        case AE_IFDIR:
            return member_kind::directory;
        case AE_IFLNK:
            return member_kind::symlink;
        case AE_IFCHR:
        case AE_IFBLK:
            return member_kind::device;
        case AE_IFIFO:
            return member_kind::fifo;
        case AE_IFSOCK:
            return member_kind::socket;
        default:
            return member_kind::file;
    }
}

// The code of what libarchive refused, from its message (it gives no code of its own).
errc code_of(const char* message) noexcept {
    const std::string_view m = message != nullptr ? message : "";
    if (m.find("runcated") != std::string_view::npos ||
        m.find("Premature end") != std::string_view::npos) {
        return errc::archive_truncated;
    }
    if (m.find("too large") != std::string_view::npos) return errc::header_too_large;
    return errc::archive_damaged;
}

std::string_view method_of(archive* a) noexcept {
    switch (archive_filter_code(a, 0)) {
        case ARCHIVE_FILTER_GZIP:
            return "gzip";
        case ARCHIVE_FILTER_BZIP2:
            return "bzip2";
        case ARCHIVE_FILTER_XZ:
            return "xz";
        case ARCHIVE_FILTER_ZSTD:
            return "zstd";
        default:
            return "compressed";
    }
}

class tar_walk final : public archive_walk {
  public:
    tar_walk(input& in, const archive_limits& limits) : limits_(limits) { source_.in = &in; }
    ~tar_walk() override {
        if (a_ != nullptr) archive_read_free(a_);
    }

    std::error_code open() noexcept;
    bool next(archive_member& m) noexcept override;

  private:
    std::size_t read_member(std::span<std::byte> out) noexcept override;
    // Where the walk is in the archive: the byte of the file for a plain tar, of the inflated
    // stream for a compressed one.
    std::uint64_t position() const noexcept {
        return static_cast<std::uint64_t>(std::max<la_int64_t>(archive_filter_bytes(a_, 0), 0));
    }
    void end(errc code, std::uint64_t offset) noexcept {
        fault_ = archive_error(code, offset);
        done_ = true;
    }

    tar_source source_;
    archive_limits limits_;
    archive* a_ = nullptr;
    bool compressed_ = false;
    bool done_ = false;
    std::uint64_t ordinal_ = 0;
    std::uint64_t inflated_ = 0;
    bool readable_ = false;
};

std::error_code tar_walk::open() noexcept {
    input& in = *source_.in;
    source_.regular = in.descriptor() >= 0 && in.file_size().has_value();
    source_.size = in.file_size().value_or(UINT64_MAX);
    a_ = archive_read_new();
    if (a_ == nullptr) return std::make_error_code(std::errc::not_enough_memory);
    archive_read_support_filter_gzip(a_);
    archive_read_support_filter_bzip2(a_);
    archive_read_support_filter_xz(a_);
    archive_read_support_filter_zstd(a_);
    archive_read_support_format_tar(a_);
    archive_read_set_read_callback(a_, read_callback);
    if (source_.regular) archive_read_set_skip_callback(a_, skip_callback);
    archive_read_set_callback_data(a_, &source_);
    if (archive_read_open1(a_) != ARCHIVE_OK) {
        if (source_.io) return source_.io;
        // Taken for a tar (its first bytes, or the caller's word for a stream), yet no header
        // libarchive reads as one: a tar damaged at its start (a first header whose checksum is
        // wrong), with nothing before the damage.
        end(errc::archive_damaged, 0);
        return {};
    }
    compressed_ = archive_filter_count(a_) > 1;
    // The members read in place are parts of the mapping.
    if (source_.regular && !compressed_ && !in.is_mapped()) {
        if (const std::error_code ec = in.map()) return ec;
    }
    return {};
}

bool tar_walk::next(archive_member& m) noexcept {
    member_fault_ = {};
    readable_ = false;
    if (done_) return false;
    archive_entry* e = nullptr;
    const int r = archive_read_next_header(a_, &e);
    // Where this header starts: libarchive sets it once it skipped the member before, and after a
    // fatal error (which it returns instead) nothing of the header was consumed.
    const la_int64_t header = archive_read_header_position(a_);
    const std::uint64_t at = header >= 0 ? static_cast<std::uint64_t>(header) : position();
    if (r == ARCHIVE_EOF) {
        done_ = true;
        return false;
    }
    if (ordinal_ == limits_.max_members) {
        end(errc::too_many_members, at);
        return false;
    }
    if (r != ARCHIVE_OK && r != ARCHIVE_WARN) {
        if (source_.io) {
            end(errc::io_error, at);
        } else {
            end(code_of(archive_error_string(a_)), at);
        }
        return false;
    }
    const char* name = archive_entry_pathname(e);
    try {
        m.name.assign(name != nullptr ? name : "");
    } catch (const std::bad_alloc&) {
        end(errc::io_error, at);
        return false;
    }
    m.ordinal = ordinal_++;
    m.kind = kind_of(e);
    m.size = archive_entry_size_is_set(e) ? static_cast<std::uint64_t>(archive_entry_size(e)) : 0;
    m.encrypted = archive_entry_is_data_encrypted(e) == 1;
    m.data_offset.reset();
    m.method = compressed_ ? method_of(a_) : "stored";
    if (m.kind != member_kind::file) return true;
    if (compressed_) {
        readable_ = true;
        return true;
    }
    const std::uint64_t data = position();
    if (data > source_.size || m.size > source_.size - data) {
        // libarchive would skip past the end without a word.
        member_fault_ = archive_error(errc::member_past_end, data);
        done_ = true;
        return true;
    }
    if (source_.regular) {
        m.data_offset = data;
    } else {
        readable_ = true;
    }
    return true;
}

std::size_t tar_walk::read_member(std::span<std::byte> out) noexcept {
    if (!readable_ || out.empty()) return 0;
    const la_ssize_t n = archive_read_data(a_, out.data(), out.size());
    if (n < 0) {
        member_fault_ = archive_error(
            source_.io ? errc::io_error : code_of(archive_error_string(a_)), position());
        done_ = true;
        return 0;
    }
    inflated_ += static_cast<std::uint64_t>(n);
    // The budgets: bytes read through, and for a compressed tar the stream's ratio (past its
    // first MiB, so that a small file's header overhead does not count).
    const std::uint64_t stream = position();
    const auto compressed =
        static_cast<std::uint64_t>(std::max<la_int64_t>(archive_filter_bytes(a_, -1), 1));
    if (inflated_ > limits_.max_inflated_bytes) {
        member_fault_ = archive_error(errc::archive_too_large, stream);
    } else if (compressed_ && stream > (std::uint64_t{1} << 20) &&
               stream / compressed >= limits_.max_ratio) {
        member_fault_ = archive_error(errc::ratio_exceeded, stream);
    }
    if (member_fault_) {
        done_ = true;
        return 0;
    }
    return static_cast<std::size_t>(n);
}

}  // namespace

std::unique_ptr<archive_walk> open_tar_walk(input& in, const archive_limits& limits,
                                            std::error_code& ec) noexcept {
    return open_walk<tar_walk>(in, limits, ec);
}

bool starts_like_tar(std::span<const std::byte> head) noexcept {
    // "ustar\0" (POSIX) or "ustar " (GNU) at offset 257 of the first 512-byte header.
    return head.size() >= 512 && std::memcmp(head.data() + 257, "ustar", 5) == 0;
}

bool starts_like_compressed(std::span<const std::byte> head) noexcept {
    const auto starts = [&](std::initializer_list<unsigned> magic) {
        if (head.size() < magic.size()) return false;
        std::size_t i = 0;
        for (const unsigned b : magic) {
            if (std::to_integer<unsigned>(head[i++]) != b) return false;
        }
        return true;
    };
    return starts_like_gzip(head) || starts({'B', 'Z', 'h'}) ||
           starts({0xfd, '7', 'z', 'X', 'Z', 0x00}) || starts({0x28, 0xb5, 0x2f, 0xfd});
}

bool compressed_tar(const input& in) noexcept {
    tar_source source;
    // Read with pread through the descriptor only: `in` is not changed.
    source.in = const_cast<input*>(&in);
    source.regular = true;
    source.size = in.file_size().value_or(0);
    archive* a = archive_read_new();
    if (a == nullptr) return false;
    archive_read_support_filter_gzip(a);
    archive_read_support_filter_bzip2(a);
    archive_read_support_filter_xz(a);
    archive_read_support_filter_zstd(a);
    archive_read_support_format_tar(a);
    archive_read_set_read_callback(a, read_callback);
    archive_read_set_skip_callback(a, skip_callback);
    archive_read_set_callback_data(a, &source);
    archive_entry* e = nullptr;
    bool tar = archive_read_open1(a) == ARCHIVE_OK && archive_filter_count(a) > 1;
    if (tar) {
        const int r = archive_read_next_header(a, &e);
        // Not ARCHIVE_EOF: zeros compressed (an empty tar to libarchive) are no archive, as an
        // uncompressed run of zeros is none, and read as what they are.
        tar = r == ARCHIVE_OK || r == ARCHIVE_WARN;
    }
    archive_read_free(a);
    return tar;
}

bool tar_header_holds(const input& in, std::uint64_t offset, std::uint64_t size,
                      std::error_code& ec) noexcept {
    ec.clear();
    constexpr std::uint64_t block = 512;
    if (offset < block || offset % block != 0) return false;
    std::array<unsigned char, block> h{};
    if (read_at(in.descriptor(), offset - block, std::as_writable_bytes(std::span(h)), ec) !=
            h.size() ||
        ec) {
        if (!ec) ec = std::make_error_code(std::errc::io_error);
        return false;
    }
    // An octal field (NUL or space ended), or base-256 (the first byte's high bit set).
    const auto number = [&](std::size_t at, std::size_t length) -> std::optional<std::uint64_t> {
        std::uint64_t v = 0;
        if (h[at] & 0x80) {
            for (std::size_t i = 1; i < length; ++i) {
                if (v >> 56) return std::nullopt;
                v = v << 8 | h[at + i];
            }
            return v;
        }
        std::size_t i = at;
        while (i < at + length && h[i] == ' ') ++i;
        for (; i < at + length && h[i] >= '0' && h[i] <= '7'; ++i) v = v << 3 | (h[i] - '0');
        return v;
    };
    // The checksum: the header's bytes summed with its own field taken as spaces.
    std::uint64_t sum = 0;
    for (std::size_t i = 0; i < block; ++i) sum += i >= 148 && i < 156 ? ' ' : h[i];
    const std::optional<std::uint64_t> declared = number(124, 12);
    // A regular file ('0' or NUL) whose size is this member's; a pax header may hold a size the
    // field cannot (past 8 GiB), and then the field is not compared.
    const bool file = h[156] == '0' || h[156] == 0;
    return file && number(148, 8) == sum && declared &&
           (*declared == size || size >= (std::uint64_t{1} << 33));
}

}  // namespace inputanim::detail
