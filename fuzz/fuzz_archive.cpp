// Raw bytes opened as an archive (a tar, plain or gzip-compressed, or a zip) under small budgets:
// the walk never reads outside the bytes; every member's place and size lie inside them; a member
// held as it is is a part of the bytes themselves; every member's verdict is the one its bytes get
// as a loose file, or an error of the archive's at a byte of it; a tar walked from a stream gives
// the same members as walked from the file; the budgets bound the entries walked.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "inputanim/archive.hpp"
#include "invariants.hpp"

namespace {

using namespace inputanim;

// The bytes as a stream, as standard input or an upload is.
class bytes_source final : public byte_source {
  public:
    explicit bytes_source(std::span<const std::byte> bytes) noexcept : bytes_(bytes) {}
    std::size_t read(std::span<std::byte> buffer, std::error_code& ec) noexcept override {
        ec.clear();
        const std::size_t n = std::min(buffer.size(), bytes_.size() - at_);
        std::copy_n(bytes_.data() + at_, n, buffer.data());
        at_ += n;
        return n;
    }
    error fault() const noexcept override { return {}; }

  private:
    std::span<const std::byte> bytes_;
    std::size_t at_ = 0;
};

struct header {
    std::string name;
    member_kind kind;
    std::uint64_t size;
};

constexpr archive_limits budgets() {
    archive_limits l;
    l.max_members = 200;
    l.max_inflated_bytes = std::uint64_t{4} << 20;
    l.max_ratio = 1024;
    return l;
}

// The members a walk of `in` gives before any fault, and the fault codes.
std::vector<header> headers_of(input& in, errc& stopped) {
    std::vector<header> out;
    std::error_code ec;
    archive_reader r = archive_reader::open(in, budgets(), ec);
    if (ec) return out;
    archive_member m;
    while (r.next(m)) {
        if (r.member_fault()) break;
        out.push_back({m.name, m.kind, m.size});
    }
    stopped = r.fault().code;
    return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace inputanim::fuzz;
    const std::span<const std::byte> bytes = as_bytes(data, size);
    std::error_code ec;
    input in = input::from_bytes(bytes, ec);
    if (ec) return 0;
    const std::optional<archive_format> format = archive_format_of(in, ec);
    FUZZ_CHECK(!ec);
    archive_reader r = archive_reader::open(in, budgets(), ec);
    // Opened exactly when the first bytes say it is one.
    FUZZ_CHECK(static_cast<bool>(ec) == !format.has_value());
    if (ec) return 0;
    const validate_options how{level::structure, layout_choice::automatic, {}};
    // A compressed tar's offsets are in its inflated stream; any other archive's are its bytes'.
    const bool plain =
        *format == archive_format::zip || (size >= 262 && std::memcmp(data + 257, "ustar", 5) == 0);
    const std::uint64_t reach = plain ? size : UINT64_MAX;
    std::vector<std::byte> buffer;
    std::uint64_t ordinal = 0;
    archive_member m;
    while (r.next(m)) {
        FUZZ_CHECK(m.ordinal == ordinal++);
        FUZZ_CHECK(m.ordinal < budgets().max_members);
        if (m.data_offset) FUZZ_CHECK(*m.data_offset <= size && m.size <= size - *m.data_offset);
        if (m.kind != member_kind::file) {
            (void)r.member(ec);
            FUZZ_CHECK(ec);
            continue;
        }
        const std::span<const std::byte> in_place = r.member_bytes();
        if (!in_place.empty()) {
            // A part of the bytes themselves, not a copy.
            FUZZ_CHECK(in_place.data() == in.mapped().data() + *m.data_offset);
            FUZZ_CHECK(in_place.size() == m.size);
        }
        const file_check c = validate_member(r, how, buffer);
        FUZZ_CHECK(!c.io);
        if (const error& fault = r.member_fault()) {
            FUZZ_CHECK(is_archive_fault(fault.code) || fault.code == errc::bad_compression);
            FUZZ_CHECK(fault.offset <= reach);
            continue;
        }
        // The verdict of the same bytes as a loose file: those in place, or those read through.
        const std::span<const std::byte> held = !in_place.empty() ? in_place : buffer;
        if (!held.empty()) {
            input loose_file = input::from_bytes(held, ec);
            if (ec) continue;
            const file_check loose = validate_input(loose_file, how);
            FUZZ_CHECK(c.rep.error.code == loose.rep.error.code);
            FUZZ_CHECK(c.rep.error.offset == loose.rep.error.offset);
        }
    }
    if (const error& fault = r.fault()) {
        FUZZ_CHECK(is_archive_fault(fault.code));
        FUZZ_CHECK(fault.offset <= reach);
    }
    if (*format == archive_format::tar) {
        // From a stream, the same members up to the first damage.
        errc mapped_stop = errc::ok;
        errc stream_stop = errc::ok;
        input again = input::from_bytes(bytes, ec);
        if (ec) return 0;
        const std::vector<header> mapped = headers_of(again, mapped_stop);
        input stream = input::from_source(std::make_unique<bytes_source>(bytes), ec);
        if (ec) return 0;
        const std::vector<header> streamed = headers_of(stream, stream_stop);
        const std::size_t common = std::min(mapped.size(), streamed.size());
        for (std::size_t i = 0; i < common; ++i) {
            FUZZ_CHECK(mapped[i].name == streamed[i].name);
            FUZZ_CHECK(mapped[i].kind == streamed[i].kind);
            FUZZ_CHECK(mapped[i].size == streamed[i].size);
        }
        if (mapped_stop == errc::ok && stream_stop == errc::ok) {
            FUZZ_CHECK(mapped.size() == streamed.size());
        }
    }
    return 0;
}
