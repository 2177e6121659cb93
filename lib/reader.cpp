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
    if (const detail::fault f = detail::check_size(bytes_.size(), options_.limits)) {
        fail(f.code, f.offset, error_place::none, -1, f.limit);
        return false;
    }
    const detail::header_check h = detail::check_header(bytes_.data(), bytes_.size());
    if (h.error) return fail_header(h.error.code, h.error.offset);
    if (!h.whole()) return fail_header(errc::truncated, h.missing);
    header_.major = 1;
    header_.minor = h.minor;
    header_.blocks = h.blocks;
    pos_ = h.size;
    header_.layout = h.minor == 0 ? layout::full : layout_of_v11();
    header_.curve_count = static_cast<std::uint16_t>(curve_count(header_.blocks));
    return true;
}

layout reader::layout_of_v11() const noexcept {
    switch (options_.layout) {
        case layout_choice::compact:
            return layout::compact;
        case layout_choice::full:
            return layout::full;
        case layout_choice::automatic:
            break;
    }
    const inputanim::error compact = walk_under(bytes_, layout_choice::compact, options_.limits);
    if (detail::sound_walk(compact)) return layout::compact;
    return detail::choose_layout(compact, walk_under(bytes_, layout_choice::full, options_.limits));
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
    if (const detail::fault f = detail::check_curve_header(p, options_.limits, total_keys_)) {
        return fail(f.code, pos_ + f.offset, error_place::curve, -1, f.limit);
    }
    const std::uint32_t n = detail::curve_key_count(p);
    const std::uint8_t stride = detail::keyframe_stride(curve_.kind, header_.layout);
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
