#include "support/reference.hpp"

#include <vector>

namespace inputanim::testing::reference {
namespace {

std::uint32_t le32(std::span<const std::byte> b, std::uint64_t at) {
    std::uint32_t v = 0;
    for (std::uint64_t i = 0; i < 4; ++i) v |= std::to_integer<std::uint32_t>(b[at + i]) << (8 * i);
    return v;
}

std::int32_t le_i32(std::span<const std::byte> b, std::uint64_t at) {
    return static_cast<std::int32_t>(le32(b, at));
}

struct curve_entry {
    std::uint16_t id;
    bool is_bool;
};

// The curve list of a file, spelled out block by block as FORMAT.md section 3 lists it.
std::vector<curve_entry> curves_of(bool camera, bool hands, bool gaze) {
    std::vector<curve_entry> out;
    std::uint16_t id = 0;
    for (int i = 0; i < 7; ++i, ++id) {
        if (camera) out.push_back({id, false});
    }
    for (int i = 0; i < 4; ++i, ++id) {
        if (hands) out.push_back({id, true});
    }
    for (int i = 0; i < 2 * 27 * 7; ++i, ++id) {
        if (hands) out.push_back({id, false});
    }
    for (int i = 0; i < 6; ++i, ++id) {
        if (gaze) out.push_back({id, false});
    }
    return out;
}

verdict fail(errc code, std::uint64_t offset, error_place place, std::int64_t index = -1) {
    verdict v;
    v.code = code;
    v.offset = offset;
    v.place = place;
    v.index = index;
    return v;
}

verdict fail_curve(errc code, std::uint64_t offset, std::uint16_t id, std::int64_t index = -1) {
    verdict v = fail(code, offset, error_place::curve, index);
    v.curve = curve_id(id);
    return v;
}

verdict walk_body(std::span<const std::byte> b, std::uint64_t pos,
                  const std::vector<curve_entry>& curves, bool full) {
    const std::uint64_t size = b.size();
    for (const curve_entry& c : curves) {
        if (size - pos < 12) return fail_curve(errc::truncated, pos, c.id);
        for (std::uint64_t field = 0; field < 8; field += 4) {
            const std::int32_t wrap = le_i32(b, pos + field);
            if (wrap != 0 && wrap != 1 && wrap != 2 && wrap != 4 && wrap != 8) {
                return fail_curve(errc::bad_wrap_mode, pos + field, c.id);
            }
        }
        const std::int32_t count = le_i32(b, pos + 8);
        if (count < 0) return fail_curve(errc::negative_count, pos + 8, c.id);
        const std::uint64_t key_size = (full && !c.is_bool) ? 28 : 8;
        const std::uint64_t need = static_cast<std::uint64_t>(count) * key_size;
        if (need > size - pos - 12) return fail_curve(errc::truncated, pos + 12, c.id, 0);
        pos += 12 + need;
    }

    if (pos == size) return {};
    if (size - pos < 4) return fail(errc::truncated, pos, error_place::markers);
    const std::int32_t count = le_i32(b, pos);
    if (count < 0) return fail(errc::negative_count, pos, error_place::markers);
    pos += 4;
    for (std::int64_t m = 0; m < count; ++m) {
        if (size - pos < 4) return fail(errc::truncated, pos, error_place::markers, m);
        pos += 4;
        const std::uint64_t length_at = pos;
        std::uint64_t length = 0;
        for (int byte = 0;; ++byte) {
            // Five bytes all saying "more" already make the length invalid.
            if (byte == 5) return fail(errc::bad_marker, length_at, error_place::markers, m);
            if (pos == size) return fail(errc::truncated, length_at, error_place::markers, m);
            const auto v = std::to_integer<std::uint64_t>(b[pos]);
            ++pos;
            length += (v & 0x7f) << (7 * byte);
            if (v < 0x80) break;
        }
        if (length > 2147483647u) return fail(errc::bad_marker, length_at, error_place::markers, m);
        if (length > size - pos) return fail(errc::truncated, pos, error_place::markers, m);
        pos += length;
    }
    if (pos != size) return fail(errc::trailing_bytes, pos, error_place::trailer);
    return {};
}

}  // namespace

verdict check_structure(std::span<const std::byte> b, layout_choice choice) {
    static constexpr unsigned char magic[8] = {0xc6, 0x42, 0x9e, 0x0f, 0x6e, 0xaf, 0x8f, 0x6a};
    if (b.size() < 8) return fail(errc::truncated, 0, error_place::header);
    for (std::size_t i = 0; i < 8; ++i) {
        if (std::to_integer<unsigned char>(b[i]) != magic[i]) {
            return fail(errc::bad_magic, 0, error_place::header);
        }
    }
    if (b.size() < 16) return fail(errc::truncated, 8, error_place::header);
    const std::int32_t major = le_i32(b, 8);
    const std::int32_t minor = le_i32(b, 12);
    if (major != 1 || (minor != 0 && minor != 1)) {
        return fail(errc::unsupported_version, 8, error_place::header);
    }
    if (minor == 0) {
        verdict v = walk_body(b, 16, curves_of(true, true, false), true);
        v.chosen = layout::full;
        return v;
    }
    if (b.size() < 19) return fail(errc::truncated, 16, error_place::header);
    bool flag[3];
    for (std::size_t i = 0; i < 3; ++i) {
        const auto f = std::to_integer<unsigned char>(b[16 + i]);
        if (f > 1) return fail(errc::bad_flag, 16 + i, error_place::header);
        flag[i] = f == 1;
    }
    const std::vector<curve_entry> curves = curves_of(flag[0], flag[1], flag[2]);
    verdict compact = walk_body(b, 19, curves, false);
    compact.chosen = layout::compact;
    if (choice == layout_choice::compact) return compact;
    verdict full = walk_body(b, 19, curves, true);
    full.chosen = layout::full;
    if (choice == layout_choice::full) return full;
    if (compact.code == errc::ok) return compact;
    if (full.code == errc::ok) return full;
    return full.offset > compact.offset ? full : compact;
}

}  // namespace inputanim::testing::reference
