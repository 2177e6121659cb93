// The archive reader's front (archive.hpp): what a content is, the walk of its format
// (lib/archive_tar.cpp, lib/archive_zip.cpp), its members as inputs of the front door, and names
// that lead through an archive.
#include "inputanim/archive.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <new>
#include <string>

#include "detail/archive_walk.hpp"
#include "inputanim/guard.hpp"
#include "inputanim/validate.hpp"

namespace inputanim {

std::string_view archive_format_name(archive_format f) noexcept {
    return f == archive_format::zip ? "zip" : "tar";
}

std::string_view member_kind_name(member_kind k) noexcept {
    switch (k) {
        case member_kind::file:
            return "file";
        case member_kind::directory:
            return "directory";
        case member_kind::symlink:
            return "symlink";
        case member_kind::hardlink:
            return "hardlink";
        case member_kind::device:
            return "device";
        case member_kind::fifo:
            return "fifo";
        case member_kind::socket:
            return "socket";
        case member_kind::sparse:
            return "sparse";
    }
    return "unknown";
}

std::optional<archive_format> archive_format_of(const input& in, std::error_code& ec) noexcept {
    ec.clear();
    if (in.descriptor() < 0 || !in.file_size()) return std::nullopt;
    std::array<std::byte, 512> head{};
    const std::size_t n = read_at(in.descriptor(), 0, head, ec);
    if (ec) return std::nullopt;
    const std::span<const std::byte> got(head.data(), n);
    if (detail::starts_like_zip(got)) return archive_format::zip;
    if (detail::starts_like_tar(got)) return archive_format::tar;
    // A compressed content: a tar only when libarchive reads a tar header through its filter (a
    // recording compressed by gzip is none).
    if (detail::starts_like_compressed(got) && detail::compressed_tar(in)) {
        return archive_format::tar;
    }
    return std::nullopt;
}

class archive_reader::impl {
  public:
    std::unique_ptr<detail::archive_walk> walk;
    input* in = nullptr;
    archive_format format = archive_format::tar;
    archive_member current;
    bool on_member = false;
};

namespace {

// A member read through: the reader's walk hands out its bytes.
class member_source final : public byte_source {
  public:
    explicit member_source(detail::archive_walk& walk) noexcept : walk_(walk) {}
    std::size_t read(std::span<std::byte> buffer, std::error_code& ec) noexcept override {
        return walk_.read(buffer, ec);
    }
    error fault() const noexcept override { return walk_.member_fault(); }

  private:
    detail::archive_walk& walk_;
};

}  // namespace

archive_reader::archive_reader() noexcept = default;
archive_reader::~archive_reader() = default;
archive_reader::archive_reader(archive_reader&&) noexcept = default;
archive_reader& archive_reader::operator=(archive_reader&&) noexcept = default;

archive_reader archive_reader::open(input& in, const archive_limits& limits,
                                    std::error_code& ec) noexcept {
    ec.clear();
    archive_reader r;
    std::optional<archive_format> f;
    if (in.descriptor() >= 0 && in.file_size()) {
        f = archive_format_of(in, ec);
        if (ec) return r;
    } else {
        // A stream is not sniffed: a tar is what libarchive finds.
        f = archive_format::tar;
    }
    if (!f) {
        ec = std::make_error_code(std::errc::invalid_argument);
        return r;
    }
    r.impl_.reset(new (std::nothrow) impl);
    if (!r.impl_) {
        ec = std::make_error_code(std::errc::not_enough_memory);
        return r;
    }
    r.impl_->in = &in;
    r.impl_->format = *f;
    r.impl_->walk = *f == archive_format::zip ? detail::open_zip_walk(in, limits, ec)
                                              : detail::open_tar_walk(in, limits, ec);
    if (!r.impl_->walk) r.impl_.reset();
    return r;
}

archive_format archive_reader::format() const noexcept {
    return impl_ ? impl_->format : archive_format::tar;
}

bool archive_reader::next(archive_member& m) noexcept {
    if (!impl_) return false;
    impl_->on_member = impl_->walk->next(impl_->current);
    if (!impl_->on_member) return false;
    try {
        m = impl_->current;
    } catch (const std::bad_alloc&) {
        return false;
    }
    return true;
}

const archive_member& archive_reader::current() const noexcept {
    static const archive_member none;
    return impl_ && impl_->on_member ? impl_->current : none;
}

const error& archive_reader::fault() const noexcept {
    static const error none;
    return impl_ ? impl_->walk->fault() : none;
}

const error& archive_reader::member_fault() const noexcept {
    static const error none;
    return impl_ && impl_->on_member ? impl_->walk->member_fault() : none;
}

input archive_reader::member(std::error_code& ec) noexcept {
    ec.clear();
    if (!impl_ || !impl_->on_member || impl_->current.kind != member_kind::file) {
        ec = std::make_error_code(std::errc::invalid_argument);
        return {};
    }
    const archive_member& m = impl_->current;
    if (m.data_offset && !impl_->walk->member_fault()) {
        return input::part(*impl_->in, *m.data_offset, m.size, ec);
    }
    std::unique_ptr<byte_source> source(new (std::nothrow) member_source(*impl_->walk));
    if (!source) {
        ec = std::make_error_code(std::errc::not_enough_memory);
        return {};
    }
    return input::from_source(std::move(source), ec);
}

namespace {

// A member read through by a reader of its own: the archive's input and the reader walked to the
// member live as long as the member's input does.
class owning_member_source final : public byte_source {
  public:
    std::size_t read(std::span<std::byte> buffer, std::error_code& ec) noexcept override {
        return member.read(buffer, ec);
    }
    error fault() const noexcept override { return member.fault(); }

    input archive;
    archive_reader reader;
    input member;
};

}  // namespace

std::optional<archive_member> find_member(input& archive, std::string_view member,
                                          const archive_limits& limits, error& stopped,
                                          std::error_code& ec) noexcept {
    stopped = {};
    archive_reader reader = archive_reader::open(archive, limits, ec);
    if (ec) return std::nullopt;
    std::optional<archive_member> found;
    archive_member m;
    while (reader.next(m)) {
        const bool named = m.name == member || (m.kind == member_kind::directory &&
                                                m.name.size() == member.size() + 1 &&
                                                m.name.starts_with(member) && m.name.back() == '/');
        if (!named) continue;
        try {
            found = m;
        } catch (const std::bad_alloc&) {
            ec = std::make_error_code(std::errc::not_enough_memory);
            return std::nullopt;
        }
    }
    stopped = reader.fault();
    return found;
}

namespace detail {

input open_member_path(const member_path& p, std::error_code& ec) noexcept {
    ec.clear();
    input file = input::open(p.archive, ec);
    if (ec) return {};
    error stopped;
    const std::optional<archive_member> found =
        find_member(file, p.member, archive_limits{}, stopped, ec);
    if (ec == std::errc::invalid_argument) {
        // Not an archive: the name leads nowhere, as the system says of a file taken for a folder.
        ec = std::make_error_code(std::errc::not_a_directory);
    }
    if (ec) return {};
    if (!found) {
        ec = stopped ? make_error_code(stopped.code)
                     : std::make_error_code(std::errc::no_such_file_or_directory);
        return {};
    }
    if (found->kind != member_kind::file) {
        ec = std::make_error_code(found->kind == member_kind::directory
                                      ? std::errc::is_a_directory
                                      : std::errc::invalid_argument);
        return {};
    }
    if (found->data_offset) return input::part(file, *found->data_offset, found->size, ec);
    // Read through: walked again to it, by a reader that the member's input owns.
    std::unique_ptr<owning_member_source> source(new (std::nothrow) owning_member_source);
    if (!source) {
        ec = std::make_error_code(std::errc::not_enough_memory);
        return {};
    }
    source->archive = input::open(p.archive, ec);
    if (!ec) source->reader = archive_reader::open(source->archive, archive_limits{}, ec);
    if (ec) return {};
    archive_member m;
    while (source->reader.next(m) && m.ordinal != found->ordinal) {
    }
    if (m.ordinal != found->ordinal) {
        ec = std::make_error_code(std::errc::io_error);
        return {};
    }
    source->member = source->reader.member(ec);
    if (ec) return {};
    return input::from_source(std::move(source), ec);
}

}  // namespace detail

std::span<const std::byte> archive_reader::member_bytes() const noexcept {
    if (!impl_ || !impl_->on_member || impl_->current.kind != member_kind::file ||
        !impl_->current.data_offset || impl_->walk->member_fault()) {
        return {};
    }
    return impl_->in->mapped().subspan(static_cast<std::size_t>(*impl_->current.data_offset),
                                       static_cast<std::size_t>(impl_->current.size));
}

namespace {

// The checks of validate_input on bytes held in memory: a mapped file's, or a .bin.gz's as it is
// inflated.
file_check validate_held(std::span<const std::byte> bytes, const validate_options& options) {
    file_check c;
    if (starts_like_gzip(bytes)) {
        chunk_validator v(options);
        v.feed(bytes);
        c.rep = v.finish();
        c.bytes = v.recording_bytes();
        c.compressed_bytes = v.compressed_bytes();
        c.head_size = v.head().size();
        std::copy(v.head().begin(), v.head().end(), c.head.begin());
    } else {
        c.rep = validate(bytes, options);
        c.bytes = bytes.size();
        c.head_size = std::min(c.head.size(), bytes.size());
        std::copy_n(bytes.begin(), c.head_size, c.head.begin());
    }
    if (c.rep.error.code == errc::io_error) c.io = std::make_error_code(std::errc::io_error);
    return c;
}

}  // namespace

file_check validate_member(archive_reader& reader, const validate_options& options,
                           std::vector<std::byte>& buffer) noexcept {
    file_check c;
    buffer.clear();
    if (const error& known = reader.member_fault()) {
        c.rep.error = known;
        return c;
    }
    if (const std::span<const std::byte> bytes = reader.member_bytes(); !bytes.empty()) {
        // In place, as validate_input reads a mapped file (gzip inflated from it).
        bool gzip = false;
        c.head_size = std::min(c.head.size(), bytes.size());
        if (guarded(bytes, [&] {
                gzip = starts_like_gzip(bytes);
                std::copy_n(bytes.begin(), c.head_size, c.head.begin());
            })) {
            c.io = std::make_error_code(std::errc::io_error);
            return c;
        }
        if (!gzip) {
            c.bytes = bytes.size();
            c.rep = validate(bytes, options);
            if (c.rep.error.code == errc::io_error)
                c.io = std::make_error_code(std::errc::io_error);
            return c;
        }
    }
    input member = reader.member(c.io);
    if (c.io) return c;
    const std::uint64_t declared = reader.current().size;
    if (member.is_mapped() || declared > whole_member_bytes) return validate_input(member, options);
    // Read through whole, then checked as the same bytes are when loose.
    try {
        buffer.resize(static_cast<std::size_t>(declared));
    } catch (const std::bad_alloc&) {
        buffer.clear();
        return validate_input(member, options);
    }
    std::size_t got = 0;
    std::array<std::byte, 1> past{};
    for (;;) {
        const std::span<std::byte> into =
            got < buffer.size() ? std::span(buffer).subspan(got) : std::span(past);
        const std::size_t n = member.read(into, c.io);
        if (c.io) {
            if (c.io.category() == error_category()) {
                c.rep.error = member.fault();
                c.io.clear();
            }
            buffer.clear();
            return c;
        }
        if (n == 0) break;
        if (got == buffer.size()) {
            // More bytes than the archive said: its header is wrong.
            c.rep.error = detail::archive_error(errc::archive_damaged, 0);
            buffer.clear();
            return c;
        }
        got += n;
    }
    buffer.resize(got);
    return validate_held(buffer, options);
}

input open_member(const std::string& archive, std::string_view member,
                  std::error_code& ec) noexcept {
    member_path p;
    try {
        p = {archive, std::string(member)};
    } catch (const std::bad_alloc&) {
        ec = std::make_error_code(std::errc::not_enough_memory);
        return {};
    }
    return detail::open_member_path(p, ec);
}

input open_member_at(const std::string& archive, std::string_view member, std::uint64_t offset,
                     std::uint64_t size, std::error_code& ec) noexcept {
    input file = input::open(archive, ec);
    if (ec) return {};
    const std::optional<std::uint64_t> file_size = file.file_size();
    if (!file_size || file.descriptor() < 0) {
        ec = std::make_error_code(std::errc::invalid_argument);
        return {};
    }
    std::array<std::byte, 512> head{};
    const std::size_t n = read_at(file.descriptor(), 0, head, ec);
    if (ec) return {};
    const std::span<const std::byte> first(head.data(), n);
    const bool tar = detail::starts_like_tar(first);
    if (!tar && !detail::starts_like_zip(first)) {
        // Only a plain tar or a zip holds a member's bytes as they are.
        ec = std::make_error_code(std::errc::not_a_directory);
        return {};
    }
    if (offset > *file_size || size > *file_size - offset) {
        ec = make_error_code(errc::member_past_end);
        return {};
    }
    const bool holds =
        tar ? detail::tar_header_holds(file, offset, size, ec)
            : detail::zip_local_header_of(file, member, offset, size, ec).has_value();
    if (ec) return {};
    if (!holds) {
        ec = make_error_code(errc::header_mismatch);
        return {};
    }
    return input::part(file, offset, size, ec);
}

bool reported_member(const archive_reader& reader, const file_check& c) noexcept {
    return found_recording(c) || reader.member_fault();
}

file_check validate_member(archive_reader& reader, const validate_options& options) noexcept {
    std::vector<std::byte> buffer;
    return validate_member(reader, options, buffer);
}

std::optional<member_path> split_member_path(std::string_view name) noexcept {
    try {
        std::string path(name);
        struct stat st {};
        if (::stat(path.c_str(), &st) == 0) return std::nullopt;
        for (std::size_t slash = path.find('/', 1); slash != std::string::npos;
             slash = path.find('/', slash + 1)) {
            const std::string prefix = path.substr(0, slash);
            if (::stat(prefix.c_str(), &st) != 0) return std::nullopt;
            if (S_ISDIR(st.st_mode)) continue;
            if (!S_ISREG(st.st_mode) || slash + 1 == path.size()) return std::nullopt;
            return member_path{prefix, path.substr(slash + 1)};
        }
    } catch (const std::bad_alloc&) {
    }
    return std::nullopt;
}

}  // namespace inputanim
