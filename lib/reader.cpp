#include "inputanim/reader.hpp"

#include "detail/checks.hpp"
#include "detail/load.hpp"
#include "detail/marker.hpp"

namespace inputanim {

namespace detail {

float load_f32(const std::byte* p) noexcept {
    return load_f32_le(p);
}
std::int32_t load_i32(const std::byte* p) noexcept {
    return load_i32_le(p);
}

marker_result read_marker(std::span<const std::byte> bytes, std::uint64_t offset,
                          std::uint32_t max_name_bytes, marker_view& out) noexcept {
    const std::uint64_t size = bytes.size();
    out.offset = offset;
    if (size - offset < 4) return {errc::truncated, offset, 0};
    out.time = load_f32_le(bytes.data() + offset);

    // .NET BinaryWriter's 7-bit encoded length: at most 5 bytes, value at most 2^31-1.
    const std::uint64_t length_offset = offset + 4;
    length_decoder decoder;
    std::uint64_t pos = length_offset;
    for (;;) {
        if (pos == size) return {errc::truncated, length_offset, 0};
        const length_decoder::step s = decoder.add(static_cast<std::uint8_t>(bytes[pos++]));
        if (s == length_decoder::step::done) break;
        if (s == length_decoder::step::too_long) return {errc::bad_marker, length_offset, 0};
    }
    const std::uint64_t length = decoder.value();
    if (const errc e = check_name_length(length, max_name_bytes); e != errc::ok) {
        return {e, length_offset, 0};
    }
    if (length > size - pos) return {errc::truncated, pos, 0};
    out.name = {reinterpret_cast<const char*>(bytes.data() + pos),
                static_cast<std::size_t>(length)};
    return {errc::ok, 0, pos + length};
}

}  // namespace detail

namespace {

// Walks a whole file under one fixed layout; returns the error it ends with (ok when sound).
error walk_under(std::span<const std::byte> bytes, layout_choice fixed,
                 const limits& lim) noexcept {
    reader r(bytes, read_options{fixed, lim});
    item it = r.next();
    while (it == item::curve || it == item::marker) it = r.next();
    return r.error();
}

}  // namespace

reader::reader(std::span<const std::byte> bytes, const read_options& options) noexcept
    : bytes_(bytes), options_(options) {}

item reader::fail(errc code, std::uint64_t offset, error_place place, std::int64_t index,
                  limit_kind limit) noexcept {
    error_ = inputanim::error{code, offset, place, curve_.id, index, limit};
    if (place != error_place::curve) error_.curve = curve_id{};
    state_ = state::failed;
    return item::error;
}

const inputanim::error& reader::open() noexcept {
    if (state_ == state::start && read_header()) state_ = state::curves;
    return error_;
}

bool reader::fail_header(errc code, std::uint64_t offset) noexcept {
    fail(code, offset, error_place::header);
    return false;
}

bool reader::read_header() noexcept {
    const std::uint64_t size = bytes_.size();
    // A server's byte ceiling is checked before anything else is looked at.
    if (size > options_.limits.max_bytes) {
        fail(errc::limit_exceeded, options_.limits.max_bytes, error_place::none, -1,
             limit_kind::bytes);
        return false;
    }
    const std::byte* p = bytes_.data();
    if (size < 8) return fail_header(errc::truncated, 0);
    if (detail::load_u64_le(p) != file_magic) return fail_header(errc::bad_magic, 0);
    if (size < header_size) return fail_header(errc::truncated, 8);
    const std::int32_t major = detail::load_i32_le(p + 8);
    const std::int32_t minor = detail::load_i32_le(p + 12);
    if (major != 1 || (minor != 0 && minor != 1)) {
        return fail_header(errc::unsupported_version, 8);
    }
    header_.major = major;
    header_.minor = minor;
    pos_ = header_size;
    if (minor == 0) {
        header_.blocks = block_flags{true, true, false};
        header_.layout = layout::full;
    } else {
        if (size - pos_ < 3) return fail_header(errc::truncated, v11_flags_offset);
        bool flags[3];
        for (std::size_t i = 0; i < 3; ++i) {
            const auto b = static_cast<std::uint8_t>(p[v11_flags_offset + i]);
            if (b > 1) return fail_header(errc::bad_flag, v11_flags_offset + i);
            flags[i] = b == 1;
        }
        header_.blocks = block_flags{flags[0], flags[1], flags[2]};
        pos_ += 3;
        switch (options_.layout) {
            case layout_choice::compact:
                header_.layout = layout::compact;
                break;
            case layout_choice::full:
                header_.layout = layout::full;
                break;
            case layout_choice::automatic: {
                // FORMAT.md section 3: the first layout under which the file is sound; else the
                // one whose walk got further, compact on a tie. A walk stopped by a configured
                // limit counts as sound: a limit says nothing about the layout.
                const auto sound = [](const inputanim::error& e) {
                    return !e || e.code == errc::limit_exceeded;
                };
                const inputanim::error compact =
                    walk_under(bytes_, layout_choice::compact, options_.limits);
                if (sound(compact)) {
                    header_.layout = layout::compact;
                    break;
                }
                const inputanim::error full =
                    walk_under(bytes_, layout_choice::full, options_.limits);
                header_.layout =
                    sound(full) || full.offset > compact.offset ? layout::full : layout::compact;
                break;
            }
        }
    }
    header_.curve_count = static_cast<std::uint16_t>(curve_count(header_.blocks));
    return true;
}

item reader::next() noexcept {
    switch (state_) {
        case state::start:
            if (open()) return item::error;
            return next_curve();
        case state::curves:
            return next_curve();
        case state::marker_list:
            return next_marker_list();
        case state::markers:
            return next_marker();
        case state::done:
            return item::end;
        case state::failed:
            return item::error;
    }
    return item::error;
}

item reader::next_curve() noexcept {
    if (next_curve_ == header_.curve_count) {
        state_ = state::marker_list;
        return next_marker_list();
    }
    const curve_id id = curve_at(header_.blocks, next_curve_);
    curve_.id = id;
    curve_.index = next_curve_;
    curve_.kind = kind_of(id);
    curve_.offset = pos_;
    curve_.keys = {};
    if (remaining() < curve_header_size) return fail(errc::truncated, pos_, error_place::curve);

    const std::byte* p = bytes_.data() + pos_;
    curve_.pre_wrap = detail::load_i32_le(p);
    curve_.post_wrap = detail::load_i32_le(p + 4);
    const std::int32_t count = detail::load_i32_le(p + 8);
    if (!detail::valid_wrap_mode(curve_.pre_wrap)) {
        return fail(errc::bad_wrap_mode, pos_, error_place::curve);
    }
    if (!detail::valid_wrap_mode(curve_.post_wrap)) {
        return fail(errc::bad_wrap_mode, pos_ + 4, error_place::curve);
    }
    if (count < 0) return fail(errc::negative_count, pos_ + 8, error_place::curve);
    const auto n = static_cast<std::uint32_t>(count);
    if (n > options_.limits.max_keyframes_per_curve) {
        return fail(errc::limit_exceeded, pos_ + 8, error_place::curve, -1,
                    limit_kind::keyframes_per_curve);
    }
    if (n > options_.limits.max_total_keyframes - total_keys_) {
        return fail(errc::limit_exceeded, pos_ + 8, error_place::curve, -1,
                    limit_kind::total_keyframes);
    }
    const std::uint8_t stride =
        curve_.kind == curve_kind::float_curve && header_.layout == layout::full
            ? full_keyframe_size
            : compact_keyframe_size;
    // n < 2^31 and stride <= 28, so the product cannot overflow 64 bits.
    const std::uint64_t key_bytes = std::uint64_t{n} * stride;
    if (key_bytes > remaining() - curve_header_size) {
        return fail(errc::truncated, pos_ + curve_header_size, error_place::curve, 0);
    }
    curve_.keys = keyframes_view(p + curve_header_size, n, stride);
    pos_ += curve_header_size + key_bytes;
    total_keys_ += n;
    ++next_curve_;
    return item::curve;
}

item reader::next_marker_list() noexcept {
    // A file that ends right after its last curve has no marker list (the published page).
    if (remaining() == 0) {
        state_ = state::done;
        return item::end;
    }
    if (remaining() < 4) return fail(errc::truncated, pos_, error_place::markers);
    const std::int32_t count = detail::load_i32_le(bytes_.data() + pos_);
    if (count < 0) return fail(errc::negative_count, pos_, error_place::markers);
    if (static_cast<std::uint32_t>(count) > options_.limits.max_markers) {
        return fail(errc::limit_exceeded, pos_, error_place::markers, -1, limit_kind::markers);
    }
    has_markers_ = true;
    marker_count_ = static_cast<std::uint32_t>(count);
    pos_ += 4;
    state_ = state::markers;
    return next_marker();
}

item reader::next_marker() noexcept {
    if (next_marker_ == marker_count_) {
        if (remaining() != 0) return fail(errc::trailing_bytes, pos_, error_place::trailer);
        state_ = state::done;
        return item::end;
    }
    marker_.index = next_marker_;
    const auto r =
        detail::read_marker(bytes_, pos_, options_.limits.max_marker_name_bytes, marker_);
    if (r.code != errc::ok) {
        return fail(
            r.code, r.error_offset, error_place::markers, next_marker_,
            r.code == errc::limit_exceeded ? limit_kind::marker_name_bytes : limit_kind::none);
    }
    pos_ = r.end;
    ++next_marker_;
    return item::marker;
}

}  // namespace inputanim
