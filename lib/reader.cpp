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

layout_choice choice_of(const file_header& h) noexcept {
    return detail::choice_reading(h);
}

error size_error(std::uint64_t size, const limits& lim) noexcept {
    const detail::fault f = detail::check_size(size, lim);
    if (!f) return {};
    return error{f.code, f.offset, error_place::none, {}, -1, f.limit};
}

bool may_be_2019(std::span<const std::byte> head) noexcept {
    return detail::may_be_2019(head.data(), head.size());
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
    const detail::layout_candidates c =
        detail::candidates(bytes_.data(), bytes_.size(), options_.layout);
    // Detection walks without limits: a limit stops a walk before it can tell whether the whole
    // file is of the layout. Those walks touch only headers, and the limits apply to the real
    // walk that follows.
    const inputanim::limits lim = c.detecting ? inputanim::limits{} : options_.limits;
    const std::size_t chosen = detail::choose_walk(c, [&](std::size_t i) {
        return walk_as(c.starts[i].header, c.starts[i].first_curve, lim);
    });
    if (chosen < c.count) {
        header_ = c.starts[chosen].header;
        pos_ = c.starts[chosen].first_curve;
        return true;
    }
    const detail::header_check h = detail::check_header(bytes_.data(), bytes_.size());
    if (h.error) return fail_header(h.error.code, h.error.offset);
    return fail_header(errc::truncated, h.missing);
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
    const detail::walk_curve c = detail::curve_of_walk(header_, next_curve_);
    curve_.id = c.id;
    curve_.index = next_curve_;
    curve_.kind = c.kind;
    curve_.offset = pos_;
    curve_.keys = {};
    const std::byte* p = bytes_.data() + pos_;
    const detail::curve_step s =
        detail::step_curve(p, remaining(), c.stride, options_.limits, total_keys_);
    if (s.error) {
        return fail(s.error.code, pos_ + s.error.offset, error_place::curve, s.index,
                    s.error.limit);
    }
    curve_.pre_wrap = detail::load_i32_le(p);
    curve_.post_wrap = detail::load_i32_le(p + 4);
    curve_.keys = keyframes_view(p + curve_header_size, s.keys, c.stride);
    pos_ += s.size;
    total_keys_ += s.keys;
    ++next_curve_;
    return item::curve;
}

item reader::next_marker_list() noexcept {
    if (detail::ends_with_trailer(header_)) {
        // No marker list: the trailer holds one .NET would have to read, so markers are unknown.
        const std::byte* p = bytes_.data() + pos_;
        if (const detail::fault f = detail::check_formatter_trailer(p, remaining())) {
            return fail(f.code, pos_ + f.offset, error_place::markers);
        }
        pos_ = bytes_.size();
        state_ = state::done;
        return item::end;
    }
    if (detail::ends_after_curves(header_, remaining())) {
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
