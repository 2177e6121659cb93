#include "inputanim/reader.hpp"

#include "detail/load.hpp"
#include "detail/marker.hpp"
#include "detail/rules.hpp"

namespace inputanim {

namespace detail {

float load_f32(const std::byte* p) noexcept {
    return load_f32_le(p);
}
std::int32_t load_i32(const std::byte* p) noexcept {
    return load_i32_le(p);
}

marker_result read_marker(std::span<const std::byte> bytes, std::uint64_t offset, const limits& lim,
                          marker_view& out) noexcept {
    const std::uint64_t size = bytes.size();
    out.offset = offset;
    if (size - offset < 4) return {{errc::truncated}, offset, 0};
    out.time = load_f32_le(bytes.data() + offset);

    // .NET BinaryWriter's 7-bit encoded length: at most 5 bytes, value at most 2^31-1.
    const std::uint64_t length_offset = offset + 4;
    length_decoder decoder;
    std::uint64_t pos = length_offset;
    for (;;) {
        if (pos == size) return {{errc::truncated}, length_offset, 0};
        const length_decoder::step s = decoder.add(static_cast<std::uint8_t>(bytes[pos++]));
        if (s == length_decoder::step::done) break;
        if (s == length_decoder::step::too_long) return {overlong_name_length, length_offset, 0};
    }
    const std::uint64_t length = decoder.value();
    if (const fault f = check_name_length(length, lim)) return {f, length_offset, 0};
    if (length > size - pos) return {{errc::truncated}, pos, 0};
    out.name = {reinterpret_cast<const char*>(bytes.data() + pos),
                static_cast<std::size_t>(length)};
    return {{}, 0, pos + length};
}

}  // namespace detail

std::string_view version_name(edition e, int major, int minor) noexcept {
    switch (e) {
        case edition::june_2019:
            return "2019-06";
        case edition::may_2019:
            return "2019-05";
        case edition::v1:
            break;
    }
    if (major != 1) return {};
    return minor == 0 ? "1.0" : "1.1";
}

layout_choice choice_of(const file_header& h) noexcept {
    switch (h.edition) {
        case edition::june_2019:
            return layout_choice::june_2019;
        case edition::may_2019:
            return layout_choice::may_2019;
        case edition::v1:
            break;
    }
    if (h.minor == 0) return layout_choice::automatic;
    return h.layout == layout::compact ? layout_choice::compact : layout_choice::full;
}

bool may_be_2019(std::span<const std::byte> head) noexcept {
    if (head.size() < 8) return false;
    return detail::may_be_2019(detail::check_header(head.data(), 8), head.data(),
                               layout_choice::automatic);
}

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
    if (const detail::fault f = detail::check_size(bytes_.size(), options_.limits)) {
        fail(f.code, f.offset, error_place::none, -1, f.limit);
        return false;
    }
    switch (options_.layout) {
        case layout_choice::june_2019:
            start_2019(detail::header_2019(edition::june_2019, bool_keyframe_size));
            return true;
        case layout_choice::may_2019: {
            // 8-byte bool keys first, then 28-byte (FORMAT.md section 9); when neither is sound,
            // the walk that got further, 8-byte on a tie.
            const file_header bool8 = detail::header_2019(edition::may_2019, bool_keyframe_size);
            const file_header bool28 = detail::header_2019(edition::may_2019, full_keyframe_size);
            const inputanim::error e8 = walk_as(bool8, 0, options_.limits);
            bool wide = false;
            if (!detail::sound_walk(e8)) {
                const inputanim::error e28 = walk_as(bool28, 0, options_.limits);
                wide = detail::sound_walk(e28) || e28.offset > e8.offset;
            }
            start_2019(wide ? bool28 : bool8);
            return true;
        }
        default:
            break;
    }
    const detail::header_check h = detail::check_header(bytes_.data(), bytes_.size());
    if (detail::may_be_2019(h, bytes_.data(), options_.layout) && detect_2019()) return true;
    if (h.error) return fail_header(h.error.code, h.error.offset);
    if (!h.whole()) return fail_header(errc::truncated, h.missing);
    header_.major = 1;
    header_.minor = h.minor;
    header_.blocks = h.blocks;
    pos_ = h.size;
    header_.curve_count = static_cast<std::uint16_t>(curve_count(header_.blocks));
    header_.layout = h.minor == 0 ? layout::full : layout_of_v11();
    return true;
}

void reader::start_2019(const file_header& h) noexcept {
    header_ = h;
    pos_ = 0;
}

bool reader::detect_2019() noexcept {
    // Without limits: a limit stops a walk before it can tell whether the whole file is of the
    // layout. The walk touches only headers, and the limits apply to the real walk that follows.
    for (const file_header& h : {detail::header_2019(edition::june_2019, bool_keyframe_size),
                                 detail::header_2019(edition::may_2019, bool_keyframe_size),
                                 detail::header_2019(edition::may_2019, full_keyframe_size)}) {
        if (!walk_as(h, 0, limits{})) {
            start_2019(h);
            return true;
        }
    }
    return false;
}

inputanim::error reader::walk_as(const file_header& h, std::uint64_t first,
                                 const inputanim::limits& lim) const noexcept {
    reader r(bytes_, read_options{options_.layout, lim});
    r.header_ = h;
    r.pos_ = first;
    r.state_ = state::curves;
    item it = r.next();
    while (it == item::curve || it == item::marker) it = r.next();
    return r.error();
}

layout reader::layout_of_v11() const noexcept {
    switch (options_.layout) {
        case layout_choice::compact:
            return layout::compact;
        case layout_choice::full:
            return layout::full;
        case layout_choice::automatic:
        // read_header reads the 2019 layouts without looking for a header.
        case layout_choice::june_2019:
        case layout_choice::may_2019:
            break;
    }
    file_header h = header_;
    h.layout = layout::compact;
    const inputanim::error compact = walk_as(h, pos_, options_.limits);
    if (detail::sound_walk(compact)) return layout::compact;
    h.layout = layout::full;
    return detail::choose_layout(compact, walk_as(h, pos_, options_.limits));
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
    const curve_id id = detail::curve_in_file(header_, next_curve_);
    curve_.id = id;
    curve_.index = next_curve_;
    curve_.kind = kind_of(id);
    curve_.offset = pos_;
    curve_.keys = {};
    if (remaining() < curve_header_size) return fail(errc::truncated, pos_, error_place::curve);

    const std::byte* p = bytes_.data() + pos_;
    curve_.pre_wrap = detail::load_i32_le(p);
    curve_.post_wrap = detail::load_i32_le(p + 4);
    if (const detail::fault f = detail::check_curve_header(p, options_.limits, total_keys_)) {
        return fail(f.code, pos_ + f.offset, error_place::curve, -1, f.limit);
    }
    const std::uint32_t n = detail::curve_key_count(p);
    const std::uint8_t stride = detail::keyframe_stride(header_, curve_.kind);
    if (!detail::keys_fit(n, stride, remaining() - curve_header_size)) {
        return fail(errc::truncated, pos_ + curve_header_size, error_place::curve, 0);
    }
    const std::uint64_t key_bytes = std::uint64_t{n} * stride;
    curve_.keys = keyframes_view(p + curve_header_size, n, stride);
    pos_ += curve_header_size + key_bytes;
    total_keys_ += n;
    ++next_curve_;
    return item::curve;
}

item reader::next_marker_list() noexcept {
    if (header_.edition == edition::may_2019) {
        // No marker list: the trailer holds one .NET would have to read, so markers are unknown.
        const std::byte* p = bytes_.data() + pos_;
        if (const detail::fault f = detail::check_formatter_trailer(p, remaining())) {
            return fail(f.code, pos_ + f.offset, error_place::markers);
        }
        pos_ = bytes_.size();
        state_ = state::done;
        return item::end;
    }
    // A file that ends right after its last curve has no marker list (the published page).
    if (remaining() == 0) {
        state_ = state::done;
        return item::end;
    }
    if (remaining() < 4) return fail(errc::truncated, pos_, error_place::markers);
    const std::byte* p = bytes_.data() + pos_;
    if (const detail::fault f = detail::check_marker_count(p, options_.limits)) {
        return fail(f.code, pos_ + f.offset, error_place::markers, -1, f.limit);
    }
    has_markers_ = true;
    marker_count_ = static_cast<std::uint32_t>(detail::load_i32_le(p));
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
    const auto r = detail::read_marker(bytes_, pos_, options_.limits, marker_);
    if (r.error)
        return fail(r.error.code, r.error_offset, error_place::markers, next_marker_,
                    r.error.limit);
    pos_ = r.end;
    ++next_marker_;
    return item::marker;
}

}  // namespace inputanim
