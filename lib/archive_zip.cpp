// A zip walked from its central directory (docs/ARCHIVES.md): the end record (ZIP64's when the
// sizes need it) gives the directory; each entry's local header is read to find its data and
// checked against the directory, which is trusted, as unzip and Python's zipfile trust it. Before
// the first member, every entry's byte range is known and ranges that overlap (a zip bomb that
// shares one compressed kernel between entries) are found. A member stored as it is is read in
// place; a deflated one is inflated with zlib as it is read, under the ratio and byte budgets, its
// CRC-32 checked at its end.
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <optional>
#include <string_view>
#include <vector>

#include <sys/stat.h>

#include "detail/archive_walk.hpp"
#include "detail/load.hpp"

namespace inputanim::detail {

namespace {

constexpr std::uint32_t local_signature = 0x04034b50;
constexpr std::uint32_t central_signature = 0x02014b50;
constexpr std::uint32_t end_signature = 0x06054b50;
constexpr std::uint32_t descriptor_signature = 0x08074b50;
constexpr std::uint32_t zip64_locator_signature = 0x07064b50;
constexpr std::uint32_t zip64_end_signature = 0x06064b50;
constexpr std::size_t end_size = 22;
constexpr std::size_t central_size = 46;
constexpr std::size_t local_size = 30;

std::uint16_t u16(const std::byte* p) noexcept {
    return load_u16_le(p);
}

std::uint32_t u32(const std::byte* p) noexcept {
    return load_u32_le(p);
}

std::uint64_t u64(const std::byte* p) noexcept {
    return load_u64_le(p);
}

// One entry of the central directory.
struct central_entry {
    std::uint16_t made_by = 0;
    std::uint16_t flags = 0;
    std::uint16_t method = 0;
    std::uint32_t crc = 0;
    std::uint64_t compressed = 0;
    std::uint64_t size = 0;
    std::uint64_t local = 0;
    std::uint32_t external = 0;
    std::string_view name;
    // Bytes of the record, name, extra field and comment.
    std::size_t length = 0;
};

// The entry at the start of `b` (at least central_size bytes and its variable fields); false when
// it is not one.
bool parse_central(std::span<const std::byte> b, central_entry& e) noexcept {
    if (b.size() < central_size || u32(b.data()) != central_signature) return false;
    const std::byte* p = b.data();
    e.made_by = u16(p + 4);
    e.flags = u16(p + 8);
    e.method = u16(p + 10);
    e.crc = u32(p + 16);
    e.compressed = u32(p + 20);
    e.size = u32(p + 24);
    const std::size_t name = u16(p + 28);
    const std::size_t extra = u16(p + 30);
    const std::size_t comment = u16(p + 32);
    e.external = u32(p + 38);
    e.local = u32(p + 42);
    e.length = central_size + name + extra + comment;
    if (e.length > b.size()) return false;
    e.name = {reinterpret_cast<const char*>(p + central_size), name};
    // ZIP64: the fields at their largest value are in extra field 0x0001, in this order.
    std::span<const std::byte> x = b.subspan(central_size + name, extra);
    while (x.size() >= 4) {
        const std::uint16_t id = u16(x.data());
        const std::size_t n = u16(x.data() + 2);
        if (n > x.size() - 4) return false;
        if (id == 0x0001) {
            std::span<const std::byte> f = x.subspan(4, n);
            for (std::uint64_t* field : {&e.size, &e.compressed, &e.local}) {
                if (*field != 0xffffffffu) continue;
                if (f.size() < 8) return false;
                *field = u64(f.data());
                f = f.subspan(8);
            }
        }
        x = x.subspan(4 + n);
    }
    return true;
}

member_kind kind_of(const central_entry& e) noexcept {
    if (!e.name.empty() && e.name.back() == '/') return member_kind::directory;
    // Made on Unix: the file type is in the high half of the external attributes.
    if ((e.made_by >> 8) == 3) {
        switch ((e.external >> 16) & S_IFMT) {
            case S_IFDIR:
                return member_kind::directory;
            case S_IFLNK:
                return member_kind::symlink;
            case S_IFCHR:
            case S_IFBLK:
                return member_kind::device;
            case S_IFIFO:
                return member_kind::fifo;
            case S_IFSOCK:
                return member_kind::socket;
            default:
                break;
        }
    }
    return member_kind::file;
}

class zip_walk final : public archive_walk {
  public:
    zip_walk(input& in, const archive_limits& limits) : in_(in), limits_(limits) {}
    ~zip_walk() override {
        if (inflating_) inflateEnd(&z_);
    }

    std::error_code open() noexcept;
    bool next(archive_member& m) noexcept override;

  private:
    std::size_t read_member(std::span<std::byte> out) noexcept override;
    // Reads [offset, offset + out.size()) of the archive; false (and the walk's fault) when the
    // file ends first or cannot be read.
    bool read_exact(std::uint64_t offset, std::span<std::byte> out) noexcept;
    bool find_directory() noexcept;
    bool find_overlaps() noexcept;
    // The central entry at cursor_ into entry_, its bytes held in record_.
    bool read_entry() noexcept;
    void check_local(archive_member& m) noexcept;
    void fail_member(errc code, std::uint64_t offset) noexcept {
        member_fault_ = archive_error(code, offset);
    }

    input& in_;
    archive_limits limits_;
    std::uint64_t size_ = 0;
    std::uint64_t directory_ = 0;
    std::uint64_t directory_end_ = 0;
    std::uint64_t entries_ = 0;
    // Added to every offset the directory gives (bytes put before the archive: a stub).
    std::uint64_t shift_ = 0;
    std::uint64_t cursor_ = 0;
    // Where the current member's directory entry starts.
    std::uint64_t entry_at_ = 0;
    std::uint64_t ordinal_ = 0;
    std::vector<std::byte> record_;
    std::vector<std::byte> local_name_;
    central_entry entry_;
    // The ordinals of the entries whose bytes overlap another's.
    std::vector<bool> overlapping_;
    bool done_ = false;

    // The member being inflated.
    z_stream z_{};
    bool inflating_ = false;
    std::uint64_t data_ = 0;
    std::uint64_t compressed_left_ = 0;
    std::uint64_t inflated_ = 0;
    std::uint64_t declared_ = 0;
    std::uint32_t crc_ = 0;
    std::uint32_t expected_crc_ = 0;
    bool deflated_ = false;
    bool ended_ = false;
    std::uint64_t total_inflated_ = 0;
    std::array<std::byte, 64 * 1024> compressed_{};
};

bool zip_walk::read_exact(std::uint64_t offset, std::span<std::byte> out) noexcept {
    if (offset > size_ || out.size() > size_ - offset) {
        fault_ = archive_error(errc::archive_truncated, std::min(offset, size_));
        return false;
    }
    std::error_code io;
    if (read_at(in_.descriptor(), offset, out, io) != out.size() || io) {
        fault_ = archive_error(errc::io_error, offset);
        return false;
    }
    return true;
}

bool zip_walk::find_directory() noexcept {
    // The end record is within the last 64 KiB + 22 bytes (its comment is at most 65535).
    const std::uint64_t tail = std::min<std::uint64_t>(size_, 65535 + end_size);
    std::vector<std::byte> t;
    try {
        t.resize(static_cast<std::size_t>(tail));
    } catch (const std::bad_alloc&) {
        fault_ = archive_error(errc::io_error, 0);
        return false;
    }
    if (!read_exact(size_ - tail, t)) return false;
    // The last place a whole record, its comment included, fits.
    std::size_t at = 0;
    bool found = false;
    for (std::size_t i = t.size() < end_size ? 0 : t.size() - end_size + 1; i-- > 0;) {
        if (u32(t.data() + i) == end_signature &&
            u16(t.data() + i + 20) <= t.size() - end_size - i) {
            at = i;
            found = true;
            break;
        }
    }
    if (!found) {
        fault_ = archive_error(errc::archive_truncated, size_);
        return false;
    }
    const std::uint64_t end_at = size_ - tail + at;
    const std::byte* e = t.data() + at;
    std::uint64_t entries = u16(e + 10);
    std::uint64_t directory_size = u32(e + 12);
    std::uint64_t directory = u32(e + 16);
    std::uint64_t directory_end = end_at;
    if (entries == 0xffff || directory_size == 0xffffffffu || directory == 0xffffffffu) {
        // ZIP64: a locator just before the end record names the ZIP64 end record.
        std::array<std::byte, 20> locator{};
        std::array<std::byte, 56> end64{};
        if (end_at < locator.size() || !read_exact(end_at - locator.size(), locator) ||
            u32(locator.data()) != zip64_locator_signature) {
            fault_ = archive_error(errc::archive_damaged, end_at);
            return false;
        }
        const std::uint64_t end64_at = u64(locator.data() + 8);
        if (!read_exact(end64_at, end64) || u32(end64.data()) != zip64_end_signature) {
            if (!fault_) fault_ = archive_error(errc::archive_damaged, end64_at);
            return false;
        }
        entries = u64(end64.data() + 32);
        directory_size = u64(end64.data() + 40);
        directory = u64(end64.data() + 48);
        directory_end = end64_at;
    }
    // Where the directory really ends, against where the record says it starts: bytes before the
    // archive (a self-extracting stub) move every offset by the difference.
    if (directory_size > directory_end || directory > directory_end - directory_size) {
        fault_ = archive_error(errc::archive_damaged, end_at);
        return false;
    }
    shift_ = directory_end - directory_size - directory;
    directory_ = directory + shift_;
    directory_end_ = directory_end;
    entries_ = entries;
    if (entries_ > limits_.max_members) {
        fault_ = archive_error(errc::too_many_members, end_at);
        return false;
    }
    return true;
}

bool zip_walk::read_entry() noexcept {
    std::array<std::byte, central_size> head{};
    if (cursor_ + central_size > directory_end_ || !read_exact(cursor_, head) ||
        u32(head.data()) != central_signature) {
        if (!fault_) fault_ = archive_error(errc::archive_damaged, cursor_);
        return false;
    }
    const std::size_t variable =
        std::size_t{u16(head.data() + 28)} + u16(head.data() + 30) + u16(head.data() + 32);
    try {
        record_.resize(central_size + variable);
    } catch (const std::bad_alloc&) {
        fault_ = archive_error(errc::io_error, cursor_);
        return false;
    }
    std::memcpy(record_.data(), head.data(), head.size());
    if (!read_exact(cursor_ + central_size, std::span(record_).subspan(central_size))) {
        return false;
    }
    if (!parse_central(record_, entry_)) {
        fault_ = archive_error(errc::archive_damaged, cursor_);
        return false;
    }
    entry_.local += shift_;
    return true;
}

bool zip_walk::find_overlaps() noexcept {
    // Each entry's bytes: from its local header to the end of its compressed data, where its
    // local header's name and extra field say the data starts (the directory's name may differ
    // from it, which is that entry's own damage, not an overlap of the next). An entry whose
    // local header cannot be read counts its fixed part only; check_local refuses it.
    struct range {
        std::uint64_t start;
        std::uint64_t end;
        std::uint64_t ordinal;
    };
    std::vector<range> ranges;
    try {
        ranges.reserve(static_cast<std::size_t>(entries_));
        overlapping_.assign(static_cast<std::size_t>(entries_), false);
    } catch (const std::bad_alloc&) {
        fault_ = archive_error(errc::io_error, directory_);
        return false;
    }
    cursor_ = directory_;
    for (std::uint64_t i = 0; i < entries_; ++i) {
        if (!read_entry()) return false;
        const std::uint64_t start = entry_.local;
        std::uint64_t end = start;
        if (start < directory_) {
            std::array<std::byte, local_size> head{};
            std::uint64_t length = std::min<std::uint64_t>(local_size, directory_ - start);
            const error kept = fault_;
            if (length == local_size && read_exact(start, head) &&
                u32(head.data()) == local_signature) {
                length += std::uint64_t{u16(head.data() + 26)} + u16(head.data() + 28);
                length += entry_.compressed;
            }
            fault_ = kept;
            end = start + std::min(length, directory_ - start);
        }
        ranges.push_back({start, end, i});
        cursor_ += entry_.length;
    }
    std::sort(ranges.begin(), ranges.end(),
              [](const range& a, const range& b) { return a.start < b.start; });
    // Every entry that starts before the furthest end of those before it overlaps that one.
    std::uint64_t reach = 0;
    std::uint64_t reaching = 0;
    for (std::size_t i = 0; i < ranges.size(); ++i) {
        if (i > 0 && ranges[i].start < reach) {
            overlapping_[static_cast<std::size_t>(ranges[i].ordinal)] = true;
            overlapping_[static_cast<std::size_t>(reaching)] = true;
        }
        if (ranges[i].end > reach) {
            reach = ranges[i].end;
            reaching = ranges[i].ordinal;
        }
    }
    cursor_ = directory_;
    return true;
}

std::error_code zip_walk::open() noexcept {
    if (in_.descriptor() < 0 || !in_.file_size()) {
        return std::make_error_code(std::errc::invalid_argument);
    }
    size_ = *in_.file_size();
    if (!in_.is_mapped()) {
        if (const std::error_code ec = in_.map()) return ec;
    }
    if (find_directory()) find_overlaps();
    if (fault_) done_ = true;
    return {};
}

void zip_walk::check_local(archive_member& m) noexcept {
    std::array<std::byte, local_size> head{};
    const std::uint64_t at = entry_.local;
    if (at >= directory_ || local_size > directory_ - at) {
        // The offset is a byte of the archive's: the directory entry that points past it.
        return fail_member(errc::member_past_end, entry_at_);
    }
    error kept = fault_;
    if (!read_exact(at, head)) {
        fault_ = kept;
        return fail_member(errc::archive_truncated, at);
    }
    if (u32(head.data()) != local_signature) return fail_member(errc::archive_damaged, at);
    const std::size_t name = u16(head.data() + 26);
    const std::size_t extra = u16(head.data() + 28);
    const std::uint64_t data = at + local_size + name + extra;
    // Kept from member to member: a name read costs no allocation once one as long was read.
    std::vector<std::byte>& local_name = local_name_;
    try {
        local_name.resize(name);
    } catch (const std::bad_alloc&) {
        return fail_member(errc::io_error, at);
    }
    if (!read_exact(at + local_size, local_name)) {
        fault_ = kept;
        return fail_member(errc::archive_truncated, at);
    }
    const std::uint16_t flags = u16(head.data() + 6);
    const bool described = (flags & 8) != 0;
    const std::uint32_t local_crc = u32(head.data() + 14);
    const std::uint32_t local_compressed = u32(head.data() + 18);
    const std::uint32_t local_size_field = u32(head.data() + 22);
    // The sizes of a ZIP64 entry are in its local extra field; only their 32-bit markers are
    // compared here.
    const auto same_size = [](std::uint32_t local, std::uint64_t central) {
        return local == 0xffffffffu || local == central;
    };
    const bool same_name =
        std::string_view(reinterpret_cast<const char*>(local_name.data()), name) == entry_.name;
    if (!same_name || u16(head.data() + 8) != entry_.method || (flags & 1) != (entry_.flags & 1) ||
        (!described &&
         (local_crc != entry_.crc || !same_size(local_compressed, entry_.compressed) ||
          !same_size(local_size_field, entry_.size)))) {
        return fail_member(errc::header_mismatch, at);
    }
    if (data > directory_ || entry_.compressed > directory_ - data) {
        return fail_member(errc::member_past_end, at);
    }
    if (overlapping_[static_cast<std::size_t>(m.ordinal)]) {
        return fail_member(errc::overlapping_members, at);
    }
    data_ = data;
    if (entry_.flags & 1) return fail_member(errc::encrypted_member, at);
    if (entry_.method == 0) {
        if (entry_.compressed != entry_.size) return fail_member(errc::header_mismatch, at);
        m.data_offset = data;
        return;
    }
    if (entry_.method != 8) return fail_member(errc::unsupported_method, at);
}

bool zip_walk::next(archive_member& m) noexcept {
    if (inflating_) {
        inflateEnd(&z_);
        inflating_ = false;
    }
    member_fault_ = {};
    if (done_ || ordinal_ == entries_) {
        done_ = true;
        return false;
    }
    if (!read_entry()) {
        done_ = true;
        return false;
    }
    entry_at_ = cursor_;
    cursor_ += entry_.length;
    try {
        m.name.assign(entry_.name);
    } catch (const std::bad_alloc&) {
        fault_ = archive_error(errc::io_error, cursor_);
        done_ = true;
        return false;
    }
    m.ordinal = ordinal_++;
    m.kind = kind_of(entry_);
    m.size = entry_.size;
    m.data_offset.reset();
    m.method = entry_.method == 0 ? "stored" : entry_.method == 8 ? "deflate" : "other";
    m.encrypted = (entry_.flags & 1) != 0;
    if (m.kind == member_kind::file) {
        check_local(m);
        if (!member_fault_ && entry_.method == 8) {
            // Inflated as it is read: raw deflate (no zlib header).
            z_ = z_stream{};
            if (inflateInit2(&z_, -MAX_WBITS) != Z_OK) {
                fail_member(errc::io_error, data_);
            } else {
                inflating_ = true;
                compressed_left_ = entry_.compressed;
                inflated_ = 0;
                declared_ = entry_.size;
                crc_ = static_cast<std::uint32_t>(crc32(0, nullptr, 0));
                expected_crc_ = entry_.crc;
                deflated_ = true;
                ended_ = false;
            }
        } else {
            deflated_ = false;
        }
    }
    return true;
}

std::size_t zip_walk::read_member(std::span<std::byte> out) noexcept {
    if (!deflated_ || !inflating_ || out.empty()) return 0;
    std::size_t produced = 0;
    while (produced == 0 && !ended_) {
        if (z_.avail_in == 0 && compressed_left_ > 0) {
            const std::size_t n = static_cast<std::size_t>(
                std::min<std::uint64_t>(compressed_left_, compressed_.size()));
            const std::uint64_t from = data_ + (entry_.compressed - compressed_left_);
            std::error_code io;
            if (read_at(in_.descriptor(), from, std::span(compressed_).first(n), io) != n || io) {
                fail_member(errc::archive_truncated, from);
                return 0;
            }
            compressed_left_ -= n;
            z_.next_in = reinterpret_cast<Bytef*>(compressed_.data());
            z_.avail_in = static_cast<uInt>(n);
        }
        z_.next_out = reinterpret_cast<Bytef*>(out.data());
        z_.avail_out = static_cast<uInt>(std::min<std::size_t>(out.size(), 1u << 30));
        const int r = inflate(&z_, Z_NO_FLUSH);
        produced = out.size() - z_.avail_out;
        crc_ = static_cast<std::uint32_t>(
            crc32(crc_, reinterpret_cast<const Bytef*>(out.data()), static_cast<uInt>(produced)));
        inflated_ += produced;
        total_inflated_ += produced;
        const std::uint64_t at = data_ + (entry_.compressed - compressed_left_) - z_.avail_in;
        if (r == Z_STREAM_END) {
            ended_ = true;
        } else if (r != Z_OK && !(r == Z_BUF_ERROR && produced > 0)) {
            fail_member(errc::bad_compression, at);
        } else if (produced == 0 && z_.avail_in == 0 && compressed_left_ == 0) {
            // The compressed bytes end before the deflate stream does.
            fail_member(errc::bad_compression, at);
        }
        if (!member_fault_) {
            const std::uint64_t consumed = entry_.compressed - compressed_left_ - z_.avail_in;
            if (inflated_ > declared_) {
                fail_member(errc::bad_compression, at);
            } else if (inflated_ / std::max<std::uint64_t>(consumed, 1) >= limits_.max_ratio &&
                       inflated_ > (std::uint64_t{1} << 20)) {
                fail_member(errc::ratio_exceeded, at);
            } else if (total_inflated_ > limits_.max_inflated_bytes) {
                fail_member(errc::archive_too_large, at);
                done_ = true;
            } else if (ended_ && (inflated_ != declared_ || crc_ != expected_crc_)) {
                fail_member(errc::bad_compression, at);
            }
        }
        if (member_fault_) return 0;
    }
    return produced;
}

}  // namespace

std::unique_ptr<archive_walk> open_zip_walk(input& in, const archive_limits& limits,
                                            std::error_code& ec) noexcept {
    return open_walk<zip_walk>(in, limits, ec);
}

bool starts_like_zip(std::span<const std::byte> head) noexcept {
    return head.size() >= 4 &&
           (u32(head.data()) == local_signature || u32(head.data()) == end_signature);
}

std::optional<std::uint64_t> zip_local_header_of(const input& in, std::string_view name,
                                                 std::uint64_t offset, std::uint64_t size,
                                                 std::error_code& ec) noexcept {
    ec.clear();
    // The header ends `extra` bytes (at most 65,535) before the data: every place it may start
    // is read at once and tried, nearest first.
    const std::uint64_t fixed = local_size + name.size();
    if (offset < fixed) return std::nullopt;
    const std::uint64_t reach = std::min<std::uint64_t>(offset - fixed, 0xffff);
    std::vector<std::byte> window;
    try {
        window.resize(static_cast<std::size_t>(fixed + reach));
    } catch (const std::bad_alloc&) {
        ec = std::make_error_code(std::errc::not_enough_memory);
        return std::nullopt;
    }
    const std::uint64_t first = offset - fixed - reach;
    if (read_at(in.descriptor(), first, window, ec) != window.size() || ec) {
        if (!ec) ec = std::make_error_code(std::errc::io_error);
        return std::nullopt;
    }
    for (std::uint64_t extra = 0; extra <= reach; ++extra) {
        const std::byte* h = window.data() + (reach - extra);
        if (u32(h) != local_signature || u16(h + 26) != name.size() || u16(h + 28) != extra) {
            continue;
        }
        if (std::memcmp(h + local_size, name.data(), name.size()) != 0) continue;
        const std::uint16_t flags = u16(h + 6);
        const std::uint32_t compressed = u32(h + 18);
        if (u16(h + 8) != 0 || (flags & 1) != 0) return std::nullopt;
        // Of that size: in the header (ZIP64's marker passes), or in the data descriptor after
        // the bytes (its signature optional, its sizes 32 or 64 bits).
        bool sized = compressed == size || compressed == 0xffffffffu;
        if ((flags & 8) != 0) {
            std::array<std::byte, 24> d{};
            const std::size_t got = read_at(in.descriptor(), offset + size, d, ec);
            if (ec) return std::nullopt;
            const std::size_t at = got >= 4 && u32(d.data()) == descriptor_signature ? 8 : 4;
            sized = (got >= at + 4 && u32(d.data() + at) == size) ||
                    (got >= at + 8 && u64(d.data() + at) == size);
        }
        if (!sized) return std::nullopt;
        return first + (reach - extra);
    }
    return std::nullopt;
}

}  // namespace inputanim::detail
