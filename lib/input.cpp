#include "inputanim/input.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <new>
#include <string>

#include "detail/archive_walk.hpp"
#include "detail/gzip_inflater.hpp"
#include "detail/validate_parts.hpp"
#include "inputanim/detail/codes.hpp"
#include "inputanim/guard.hpp"

namespace inputanim {

namespace {

// Chunks read from a stream, or copied out of a mapping for the inflater.
constexpr std::size_t chunk_size = 64 * 1024;

std::error_code last_error() {
    return {errno, std::generic_category()};
}

// The types an input may be refused for, as its S_IFMT bits; no report names them.
constexpr detail::code_row<mode_t> not_regular_file_rows[] = {
    {S_IFIFO, "", "not a regular file (a FIFO); use - to read standard input"},
    {S_IFSOCK, "", "not a regular file (a socket); use - to read standard input"},
    {S_IFCHR, "", "not a regular file (a character device); use - to read standard input"},
    {S_IFBLK, "", "not a regular file (a block device); use - to read standard input"},
};
constexpr detail::code_table<mode_t> not_regular_file_codes{
    not_regular_file_rows, "not a regular file (of an unknown type); use - to read standard input"};

// From this size on, a mapped file's structure is read with pread, a curve boundary per call,
// rather than through the mapping. Through the mapping, each first touch of a page is a page fault
// (microseconds in a virtual machine) that maps up to 16 pages around it and keeps them in the
// process's memory; on a small file a few faults cover every curve header, on a large one there
// is a fault per curve. The 395 reads of a full recording's boundaries cost about the same
// whatever its size: measured, mapping wins at 0.6 MB (reads 1.3x slower) and reads win from
// 16 MB (0.7x) to 1 GiB (0.28x, and 28 MiB of memory less) (docs/PERFORMANCE.md, "Reading many
// small files, summaries, and copies").
constexpr std::size_t structure_by_reads_from = 8 << 20;

// The one call that validates a whole mapped recording: validate() guards its own reads and
// reports a page that vanished under a concurrent truncation as io_error.
void validate_whole(const input& in, const validate_options& options, report& out,
                    std::error_code& io) {
    const std::span<const std::byte> bytes = in.mapped();
    if (options.level == level::structure && bytes.size() >= structure_by_reads_from &&
        detail::validate_structure_by_reads(bytes, in, options, out)) {
        return;
    }
    out = validate(bytes, options);
    if (out.error.code == errc::io_error) io = std::make_error_code(std::errc::io_error);
}

}  // namespace

const std::error_category& not_regular_file_category() noexcept {
    static const detail::code_category<mode_t> category("inputanim.not_regular_file",
                                                        not_regular_file_codes);
    return category;
}

// An open descriptor and, once mapped, the whole file's mapping: shared by the file's input and
// the parts of it (archive members) that may outlive it.
struct opened_file {
    int fd = -1;
    const std::byte* map = nullptr;
    // The file's size when it was opened: the mapping's length.
    std::size_t size = 0;

    opened_file() = default;
    opened_file(const opened_file&) = delete;
    opened_file& operator=(const opened_file&) = delete;
    ~opened_file() {
        if (map != nullptr) ::munmap(const_cast<std::byte*>(map), size);
        if (fd >= 0) ::close(fd);
    }
};

struct input::impl {
    // The descriptor (a regular file, or a stream such as standard input); null for a source.
    std::shared_ptr<opened_file> file;
    // Bytes pulled from elsewhere (a member of an archive read through).
    std::unique_ptr<byte_source> source;
    // A regular file read from its start, or a part of one: bytes [base, base + size) of it.
    bool regular = false;
    bool mapped = false;
    // A part of a file (a member of an archive stored as it is): no descriptor of its own.
    bool part = false;
    std::uint64_t base = 0;
    std::size_t size = 0;
    // A regular file opened whole: what its fstat said.
    std::optional<file_stamp> stamp;
    // The next byte read() hands out.
    std::size_t pos = 0;
};

input::input() noexcept = default;
input::input(input&&) noexcept = default;
input& input::operator=(input&&) noexcept = default;
input::~input() = default;

input input::open(std::string_view name, std::error_code& ec, file_access access) noexcept {
    ec.clear();
    if (name == "-") {
        // A descriptor of its own, so that closing the input leaves standard input open.
        const int fd = ::fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0);
        if (fd < 0) {
            ec = last_error();
            return {};
        }
        return from_fd(fd, ec, true);
    }
    std::string path;
    try {
        path.assign(name);
    } catch (const std::bad_alloc&) {
        ec = std::make_error_code(std::errc::not_enough_memory);
        return {};
    }
    // O_NONBLOCK: opening a FIFO without a writer would otherwise wait for one, before fstat can
    // tell what the file is. O_NOCTTY: a terminal named here never becomes ours.
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        ec = last_error();
        // A name through a file, ARCHIVE/MEMBER: a member of the archive (archive.hpp).
        if (errno == ENOTDIR) {
            if (const std::optional<member_path> p = split_member_path(path)) {
                return detail::open_member_path(*p, ec);
            }
        }
        return {};
    }
    return adopt(fd, ec, false, true, access);
}

input input::from_fd(int fd, std::error_code& ec, bool any_type) noexcept {
    ec.clear();
    return adopt(fd, ec, any_type, ::lseek(fd, 0, SEEK_CUR) == 0, file_access::map);
}

input input::adopt(int fd, std::error_code& ec, bool any_type, bool at_start,
                   file_access access) noexcept {
    ec.clear();
    input result;
    auto m = std::unique_ptr<impl>(new (std::nothrow) impl);
    if (m) m->file = std::shared_ptr<opened_file>(new (std::nothrow) opened_file);
    if (!m || !m->file) {
        ::close(fd);
        ec = std::make_error_code(std::errc::not_enough_memory);
        return result;
    }
    m->file->fd = fd;
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        ec = last_error();
        return result;
    }
    if (S_ISDIR(st.st_mode)) {
        ec = std::make_error_code(std::errc::is_a_directory);
        return result;
    }
    const bool regular = S_ISREG(st.st_mode);
    if (!regular && !any_type) {
        ec = std::error_code(static_cast<int>(st.st_mode & S_IFMT), not_regular_file_category());
        return result;
    }
    // Reads of a stream wait for data from here on (a pipe's writer may be slower than this
    // reader). O_NONBLOCK means nothing to a regular file.
    if (!regular) {
        const int flags = ::fcntl(fd, F_GETFL);
        if (flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
            ec = last_error();
            return result;
        }
    }
    // A regular file is the input from its start, unless (as standard input) it was already read
    // from: then its bytes from the current position on are the input, read as a stream.
    if (regular && at_start) {
        m->regular = true;
        m->size = static_cast<std::size_t>(st.st_size);
        m->file->size = m->size;
        m->stamp = stamp_of(st);
    }
    result.impl_ = std::move(m);
    if (result.impl_->regular && access == file_access::map) {
        ec = result.map();
        if (ec) result.impl_.reset();
    }
    return result;
}

std::optional<std::uint64_t> input::file_size() const noexcept {
    if (!impl_ || !impl_->regular) return std::nullopt;
    return impl_->size;
}

file_stamp stamp_of(const struct ::stat& st) noexcept {
    return {static_cast<std::uint64_t>(st.st_size),
            static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec,
            static_cast<std::uint64_t>(st.st_ino)};
}

std::optional<file_stamp> input::stamp() const noexcept {
    return impl_ ? impl_->stamp : std::nullopt;
}

std::error_code input::map() noexcept {
    if (!impl_ || !impl_->regular) return std::make_error_code(std::errc::invalid_argument);
    if (impl_->mapped) return {};
    opened_file& f = *impl_->file;
    if (f.size > 0 && f.map == nullptr) {
        void* p = ::mmap(nullptr, f.size, PROT_READ, MAP_SHARED, f.fd, 0);
        if (p == MAP_FAILED) return last_error();
        f.map = static_cast<const std::byte*>(p);
    }
    impl_->mapped = true;
    return {};
}

input input::part(const input& whole, std::uint64_t offset, std::uint64_t size,
                  std::error_code& ec) noexcept {
    ec.clear();
    input result;
    if (!whole.is_mapped() || offset > whole.impl_->size || size > whole.impl_->size - offset) {
        ec = std::make_error_code(std::errc::invalid_argument);
        return result;
    }
    auto m = std::unique_ptr<impl>(new (std::nothrow) impl);
    if (!m) {
        ec = std::make_error_code(std::errc::not_enough_memory);
        return result;
    }
    m->file = whole.impl_->file;
    m->regular = true;
    m->mapped = true;
    m->part = true;
    m->base = whole.impl_->base + offset;
    m->size = static_cast<std::size_t>(size);
    result.impl_ = std::move(m);
    return result;
}

input input::from_source(std::unique_ptr<byte_source> source, std::error_code& ec) noexcept {
    ec.clear();
    input result;
    auto m = std::unique_ptr<impl>(new (std::nothrow) impl);
    if (!m) {
        ec = std::make_error_code(std::errc::not_enough_memory);
        return result;
    }
    m->source = std::move(source);
    result.impl_ = std::move(m);
    return result;
}

bool input::is_open() const noexcept {
    return impl_ != nullptr;
}

int input::descriptor() const noexcept {
    return impl_ && impl_->file && !impl_->part ? impl_->file->fd : -1;
}

bool input::is_mapped() const noexcept {
    return impl_ && impl_->mapped;
}

std::span<const std::byte> input::mapped() const noexcept {
    if (!is_mapped()) return {};
    if (impl_->file->map == nullptr) return {impl_->file->map, 0};
    return {impl_->file->map + impl_->base, impl_->size};
}

error input::fault() const noexcept {
    return impl_ && impl_->source ? impl_->source->fault() : error{};
}

std::size_t input::read(std::span<std::byte> buffer, std::error_code& ec) noexcept {
    ec.clear();
    if (!impl_ || buffer.empty()) return 0;
    if (impl_->source) return impl_->source->read(buffer, ec);
    if (impl_->regular) {
        // With pread, not from the mapping: the pages a copy out of the mapping touches stay in
        // the process's memory until it is unmapped (the whole of a large gzip file read once).
        const std::size_t n = std::min(buffer.size(), impl_->size - impl_->pos);
        if (n == 0) return 0;
        const std::size_t got =
            inputanim::read_at(impl_->file->fd, impl_->base + impl_->pos, buffer.first(n), ec);
        if (ec) return 0;
        if (got != n) {
            // The file is shorter than when it was mapped: another process cut it.
            ec = std::make_error_code(std::errc::io_error);
            return 0;
        }
        impl_->pos += n;
        return n;
    }
    const int fd = impl_->file->fd;
    for (;;) {
        const ssize_t n =
            retry_interrupted([&] { return ::read(fd, buffer.data(), buffer.size()); });
        if (n >= 0) return static_cast<std::size_t>(n);
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            // Another holder of the descriptor made it non-blocking again: wait for data.
            pollfd p{fd, POLLIN, 0};
            if (retry_interrupted([&] { return ::poll(&p, 1, -1); }) >= 0) continue;
        }
        ec = last_error();
        return 0;
    }
}

input input::from_bytes(std::span<const std::byte> bytes, std::error_code& ec) noexcept {
    ec.clear();
    const int fd = ::memfd_create("inputanim", MFD_CLOEXEC);
    if (fd < 0) {
        ec = last_error();
        return {};
    }
    ec = write_all(fd, bytes);
    // From its start, so that from_fd maps it (a file already read from is a stream there).
    if (!ec && ::lseek(fd, 0, SEEK_SET) != 0) ec = last_error();
    if (ec) {
        ::close(fd);
        return {};
    }
    return from_fd(fd, ec);
}

std::size_t read_at(int fd, std::uint64_t offset, std::span<std::byte> out,
                    std::error_code& ec) noexcept {
    ec.clear();
    std::size_t got = 0;
    while (got < out.size()) {
        const ssize_t n = retry_interrupted([&] {
            return ::pread(fd, out.data() + got, out.size() - got,
                           static_cast<off_t>(offset + got));
        });
        if (n < 0) {
            ec = last_error();
            return 0;
        }
        if (n == 0) break;
        got += static_cast<std::size_t>(n);
    }
    return got;
}

std::size_t input::read_at(std::uint64_t offset, std::span<std::byte> out,
                           std::error_code& ec) const noexcept {
    ec.clear();
    if (!impl_ || !impl_->file) {
        // Nothing open, or bytes a source hands out in order only.
        ec = std::make_error_code(impl_ ? std::errc::invalid_seek : std::errc::bad_file_descriptor);
        return 0;
    }
    // A stream's descriptor is read as it is: pread on a pipe or a socket is invalid_seek.
    if (!impl_->regular) return inputanim::read_at(impl_->file->fd, offset, out, ec);
    if (offset >= impl_->size) return 0;
    const auto n =
        static_cast<std::size_t>(std::min<std::uint64_t>(out.size(), impl_->size - offset));
    return inputanim::read_at(impl_->file->fd, impl_->base + offset, out.first(n), ec);
}

std::error_code write_all(int fd, std::span<const std::byte> bytes) noexcept {
    while (!bytes.empty()) {
        const ssize_t n =
            retry_interrupted([&] { return ::write(fd, bytes.data(), bytes.size()); });
        if (n < 0) return last_error();
        if (n == 0) return std::make_error_code(std::errc::io_error);
        bytes = bytes.subspan(static_cast<std::size_t>(n));
    }
    return {};
}

bool starts_like_recording(std::span<const std::byte> head) noexcept {
    const std::size_t n = std::min<std::size_t>(head.size(), sizeof file_magic);
    for (std::size_t i = 0; i < n; ++i) {
        if (head[i] != static_cast<std::byte>((file_magic >> (8 * i)) & 0xff)) return false;
    }
    return true;
}

bool starts_like_gzip(std::span<const std::byte> head) noexcept {
    return detail::is_gzip(head);
}

chunk_validator::chunk_validator(const validate_options& options) noexcept : validator_(options) {}
chunk_validator::chunk_validator(chunk_validator&&) noexcept = default;
chunk_validator& chunk_validator::operator=(chunk_validator&&) noexcept = default;
chunk_validator::~chunk_validator() = default;

const report& chunk_validator::result() const noexcept {
    return faulted_ ? fault_ : validator_.result();
}

std::optional<std::uint64_t> chunk_validator::compressed_bytes() const noexcept {
    if (!gzip_) return std::nullopt;
    return inflater_ ? inflater_->compressed_bytes() : 0;
}

void chunk_validator::fail(errc code, std::uint64_t offset) noexcept {
    fault_ = validator_.result();
    fault_.error = error{code, offset, error_place::none, {}, -1, limit_kind::none};
    faulted_ = true;
}

bool chunk_validator::accept(std::span<const std::byte> piece) noexcept {
    if (head_size_ < head_.size()) {
        const std::size_t n = std::min(piece.size(), head_.size() - head_size_);
        std::copy_n(piece.data(), n, head_.data() + head_size_);
        head_size_ += n;
    }
    if (validator_.feed(piece) == stream_status::error) return false;
    if (receiver_ == nullptr || receiver_->receive(piece)) return true;
    stopped_ = true;
    return false;
}

void chunk_validator::take(std::span<const std::byte> bytes) noexcept {
    if (!gzip_) {
        accept(bytes);
        return;
    }
    inflater_->write(bytes, [this](std::span<const std::byte> piece) { return accept(piece); });
    if (faulted_ || validator_.status() == stream_status::error) return;
    if (const detail::gzip_fault f = inflater_->fault(); f != detail::gzip_fault::none) {
        fail(f == detail::gzip_fault::no_memory ? errc::io_error : errc::bad_compression,
             inflater_->fault_offset());
    }
}

stream_status chunk_validator::feed(std::span<const std::byte> chunk) noexcept {
    if (stopped_) return stream_status::error;
    if (!finished_ && !faulted_ && validator_.status() != stream_status::error && !chunk.empty()) {
        if (!decided_) {
            if (held_ == 0 && chunk.size() == 1) {
                first_ = chunk[0];
                held_ = 1;
                return stream_status::more;
            }
            const std::array<std::byte, 2> head =
                held_ != 0 ? std::array{first_, chunk[0]} : std::array{chunk[0], chunk[1]};
            decided_ = true;
            gzip_ = detail::is_gzip(head);
            if (gzip_) {
                inflater_.reset(new (std::nothrow) detail::gzip_inflater);
                if (!inflater_) fail(errc::io_error, 0);
            }
            if (held_ != 0 && !faulted_) take({&first_, 1});
            held_ = 0;
        }
        if (!faulted_) take(chunk);
    }
    if (faulted_ || stopped_) return stream_status::error;
    const stream_status s = validator_.status();
    // For gzip only finish() concludes: the trailer's CRC vouches for the bytes before it.
    return gzip_ && s == stream_status::done ? stream_status::more : s;
}

const report& chunk_validator::finish() noexcept {
    if (finished_) return result();
    finished_ = true;
    if (faulted_ || stopped_ || validator_.status() == stream_status::error) return result();
    if (!decided_) {
        // Fewer than two bytes: not gzip.
        decided_ = true;
        if (held_ != 0) take({&first_, 1});
        held_ = 0;
        if (validator_.status() == stream_status::error) return result();
    }
    if (gzip_) {
        if (const detail::gzip_fault f = inflater_->finish(); f != detail::gzip_fault::none) {
            fail(f == detail::gzip_fault::no_memory ? errc::io_error : errc::bad_compression,
                 inflater_->fault_offset());
            return result();
        }
    }
    return validator_.finish();
}

namespace {

// Reads `in` chunk by chunk into `v` until its verdict is final or the input ends.
std::error_code feed_all(input& in, chunk_validator& v) noexcept {
    std::array<std::byte, chunk_size> chunk;
    std::error_code ec;
    for (;;) {
        const std::size_t n = in.read(chunk, ec);
        if (ec || n == 0) return ec;
        if (v.feed({chunk.data(), n}) == stream_status::error) return {};
    }
}

}  // namespace

bool is_gzip(const input& in, std::error_code& ec) noexcept {
    ec.clear();
    const std::span<const std::byte> bytes = in.mapped();
    // Two bytes are read with pread where there is a descriptor: touching the mapping would map
    // its first page, and the kernel maps a whole page-cache folio around it (up to megabytes of
    // RSS for a caller that reads only the structure next, as inputanim.open does).
    if (in.descriptor() >= 0 && in.file_size().value_or(0) >= 2) {
        std::array<std::byte, 2> head{};
        std::error_code read_error;
        if (read_at(in.descriptor(), 0, head, read_error) == head.size()) {
            return detail::is_gzip(head);
        }
    }
    bool gzip = false;
    ec = guarded(bytes, [&] { gzip = detail::is_gzip(bytes); });
    return gzip;
}

namespace {

// The first bytes of a mapped plain input: with pread where there is a descriptor (is_gzip says
// why), else from the mapping (a part of an archive's).
std::size_t plain_head(const input& in, std::span<std::byte> head, std::error_code& ec) noexcept {
    if (in.descriptor() >= 0) return read_at(in.descriptor(), 0, head, ec);
    const std::span<const std::byte> bytes = in.mapped();
    const std::size_t n = std::min(head.size(), bytes.size());
    ec = guarded(bytes, [&] { std::memcpy(head.data(), bytes.data(), n); });
    return ec ? 0 : n;
}

}  // namespace

file_check validate_input(input& in, const validate_options& options) noexcept {
    file_check c;
    if (in.is_mapped()) {
        const bool gzip = is_gzip(in, c.io);
        if (c.io) return c;
        if (!gzip) {
            c.bytes = in.mapped().size();
            c.head_size = plain_head(in, c.head, c.io);
            if (c.io) return c;
            validate_whole(in, options, c.rep, c.io);
            if (!c.io && c.rep.error.code == errc::io_error) {
                c.io = std::make_error_code(std::errc::io_error);
            }
            return c;
        }
    }
    chunk_validator v(options);
    c.io = feed_all(in, v);
    c.rep = v.finish();
    c.bytes = v.recording_bytes();
    c.compressed_bytes = v.compressed_bytes();
    c.head_size = v.head().size();
    std::copy(v.head().begin(), v.head().end(), c.head.begin());
    if (c.io && c.io.category() == error_category()) {
        // The bytes' own damage (an archive around them): a verdict, not a failure to read.
        c.rep.error = in.fault();
        c.io.clear();
    }
    if (!c.io && c.rep.error.code == errc::io_error) {
        c.io = std::make_error_code(std::errc::io_error);
    }
    return c;
}

bool found_recording(const file_check& c) noexcept {
    const std::span<const std::byte> head(c.head.data(), c.head_size);
    if (starts_like_recording(head)) return true;
    const summary& s = c.rep.summary;
    return may_be_2019(head) && s.edition != edition::v1 && s.keyframes > 0 &&
           !is_structural(c.rep.error.code);
}

file_check validate_file(std::string_view name, const validate_options& options) noexcept {
    std::error_code ec;
    input in = input::open(name, ec);
    if (ec) {
        file_check c;
        c.io = ec;
        return c;
    }
    return validate_input(in, options);
}

namespace {

// read_whole's receiver: keeps every byte the validator took, past the header check only and
// never more than the byte ceiling (the validator stops anything beyond it). Grown
// geometrically, but clamped to the ceiling so that the last growth does not double past it.
class keeper final : public recording_receiver {
  public:
    keeper(std::vector<std::byte>& storage, std::uint64_t ceiling) noexcept
        : storage_(storage), ceiling_(ceiling) {}

    bool receive(std::span<const std::byte> piece) noexcept override {
        const std::size_t needed = storage_.size() + piece.size();
        try {
            if (needed > storage_.capacity()) {
                const std::uint64_t doubled = std::max<std::uint64_t>(
                    needed, std::max<std::uint64_t>(2 * storage_.capacity(), chunk_size));
                storage_.reserve(static_cast<std::size_t>(
                    std::min(doubled, std::max<std::uint64_t>(ceiling_, needed))));
            }
        } catch (const std::bad_alloc&) {
            out_of_memory_ = true;
            return false;
        }
        storage_.insert(storage_.end(), piece.begin(), piece.end());
        return true;
    }
    bool out_of_memory() const noexcept { return out_of_memory_; }

  private:
    std::vector<std::byte>& storage_;
    std::uint64_t ceiling_;
    bool out_of_memory_ = false;
};

}  // namespace

whole_input read_whole(input& in, const validate_options& options,
                       std::vector<std::byte>& storage) noexcept {
    whole_input w;
    storage.clear();
    if (in.is_mapped()) {
        const bool gzip = is_gzip(in, w.io);
        if (w.io) return w;
        if (!gzip) {
            w.bytes = in.mapped();
            w.mapped = true;
            return w;
        }
    }
    validate_options structure = options;
    structure.level = level::structure;
    chunk_validator v(structure);
    keeper keep(storage, options.limits.max_bytes);
    v.pass_to(&keep);
    w.io = feed_all(in, v);
    const report& r = v.finish();
    w.compressed_bytes = v.compressed_bytes();
    if (w.io && w.io.category() == error_category()) {
        // The bytes' own damage (an archive around them): invalid, with what was read before it.
        w.invalid = in.fault();
        w.io.clear();
        w.read_before = storage;
        return w;
    }
    if (w.io || keep.out_of_memory() || r.error.code == errc::io_error) {
        if (!w.io) w.io = std::make_error_code(std::errc::io_error);
    } else if (!r.valid()) {
        w.invalid = r.error;
    }
    const bool damaged = w.invalid && w.invalid.code != errc::limit_exceeded;
    if (w.io || (w.invalid && !damaged)) {
        storage.clear();
        storage.shrink_to_fit();
        return w;
    }
    if (damaged) {
        w.read_before = storage;
        return w;
    }
    w.bytes = storage;
    return w;
}

error read_content(input& in, std::uint64_t max_bytes, std::vector<std::byte>& out,
                   std::error_code& io) noexcept {
    out.clear();
    io.clear();
    keeper keep(out, max_bytes);
    bool over = false;
    const auto take = [&](std::span<const std::byte> piece) {
        if (piece.size() > max_bytes - out.size()) {
            over = true;
            return false;
        }
        return keep.receive(piece);
    };
    detail::gzip_inflater inflater;
    std::array<std::byte, chunk_size> chunk;
    bool first = true;
    bool gzip = false;
    for (;;) {
        const std::size_t n = in.read(chunk, io);
        if (io || n == 0) break;
        const std::span<const std::byte> got(chunk.data(), n);
        if (first) gzip = detail::is_gzip(got);
        first = false;
        if (!(gzip ? inflater.write(got, take) : take(got))) break;
    }
    error e;
    if (io && io.category() == error_category()) {
        e = in.fault();
        io.clear();
    } else if (keep.out_of_memory() || inflater.fault() == detail::gzip_fault::no_memory) {
        io = std::make_error_code(std::errc::not_enough_memory);
    } else if (over) {
        limits lim;
        lim.max_bytes = max_bytes;
        e = size_error(max_bytes + 1, lim);
    } else if (!io && gzip && inflater.finish() != detail::gzip_fault::none) {
        e.code = errc::bad_compression;
        e.offset = inflater.fault_offset();
    }
    if (io || e) {
        out.clear();
        out.shrink_to_fit();
    }
    return e;
}

std::size_t recording_head(const input& in, std::span<std::byte> head,
                           std::error_code& ec) noexcept {
    ec.clear();
    const std::span<const std::byte> bytes = in.mapped();
    const bool gzip = is_gzip(in, ec);
    if (ec) return 0;
    if (!gzip) {
        const std::size_t n = std::min(head.size(), bytes.size());
        ec = guarded(bytes, [&] { std::memcpy(head.data(), bytes.data(), n); });
        return ec ? 0 : n;
    }
    // The inflater never reads the mapping itself: a chunk is copied out under the guard first.
    detail::gzip_inflater inflater;
    std::array<std::byte, 4096> chunk;
    std::size_t got = 0;
    for (std::size_t pos = 0; pos < bytes.size() && got < head.size(); pos += chunk.size()) {
        const std::size_t n = std::min(chunk.size(), bytes.size() - pos);
        ec = guarded(bytes, [&] { std::memcpy(chunk.data(), bytes.data() + pos, n); });
        if (ec) return 0;
        const bool going = inflater.write({chunk.data(), n}, [&](std::span<const std::byte> piece) {
            const std::size_t k = std::min(piece.size(), head.size() - got);
            std::memcpy(head.data() + got, piece.data(), k);
            got += k;
            return got < head.size();
        });
        if (!going) break;
    }
    return got;
}

}  // namespace inputanim
