#include "inputanim/stream.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <new>
#include <type_traits>

#include "detail/layout_walk.hpp"
#include "detail/load.hpp"
#include "detail/rules.hpp"

namespace inputanim {

namespace detail {

header_check gather_header(std::byte* gathered, std::uint8_t& size, const std::byte*& p,
                           std::size_t& n) noexcept {
    for (;;) {
        const header_check h = check_header(gathered, size);
        if (h.error || h.whole() || n == 0) return h;
        const std::size_t take = std::min(h.need - size, n);
        std::memcpy(gathered + size, p, take);
        size = static_cast<std::uint8_t>(size + take);
        p += take;
        n -= take;
    }
}

void layout_walk::start(const file_header& h, std::uint64_t offset, walk_checks checks,
                        const limits& lim, bool defer_limits, walk_visitor* visitor) {
    *this = layout_walk{};
    header_ = h;
    checks_ = checks;
    limits_ = checks == walk_checks::framing ? limits{} : lim;
    defer_limits_ = defer_limits;
    visitor_ = visitor;
    field_offset_ = offset;
    curve_count_ = h.curve_count;
    begin_curve();
}

bool layout_walk::stop_at_limit(errc code, std::uint64_t offset, error_place place,
                                std::int64_t index, limit_kind limit) noexcept {
    if (!defer_limits_) {
        fail(code, offset, place, index, limit);
        return true;
    }
    if (limit_.code == errc::ok) {
        limit_ = error{code,  offset, place, place == error_place::curve ? curve_ : curve_id{},
                       index, limit};
        at_limit_ = totals_;
    }
    return false;
}

std::size_t layout_walk::field_size() const noexcept {
    switch (state_) {
        case state::curve_header:
            return curve_header_size;
        case state::keyframe:
            return stride_;
        case state::marker_list:
            return 4;
        case state::marker_time:
            return 4;
        default:
            return 0;
    }
}

void layout_walk::feed(const std::byte* p, std::size_t n) {
    while (n > 0) {
        switch (state_) {
            case state::keyframe:
                // Whole keys go as a run; a key that straddles chunks is gathered in the carry.
                if (carry_size_ == 0 && n >= stride_) {
                    // The run's bytes, before its last key ends the curve and the next curve's
                    // stride takes over.
                    const std::size_t bytes =
                        std::min<std::size_t>(key_count_ - keys_read_, n / stride_) * stride_;
                    on_keys(p, bytes / stride_);
                    p += bytes;
                    n -= bytes;
                    break;
                }
                gather(p, n);
                break;
            case state::name_length:
                on_length_byte(std::to_integer<std::uint8_t>(*p));
                ++p;
                --n;
                break;
            case state::name: {
                const std::size_t take = name_left_ < n ? static_cast<std::size_t>(name_left_) : n;
                on_name(p, take);
                p += take;
                n -= take;
                break;
            }
            case state::trailer:
                on_trailer(p, n);
                return;
            case state::end:
                // After the marker list the file must end.
                fail(errc::trailing_bytes, field_offset_, error_place::trailer);
                return;
            case state::failed:
                return;
            default: {
                const std::size_t need = field_size();
                if (carry_size_ == 0 && n >= need) {
                    on_field(p);
                    p += need;
                    n -= need;
                    break;
                }
                gather(p, n);
                break;
            }
        }
    }
}

// A field that straddles chunks: its bytes gathered in the carry until it is whole.
void layout_walk::gather(const std::byte*& p, std::size_t& n) {
    const std::size_t need = field_size();
    const std::size_t take = std::min(need - carry_size_, n);
    std::memcpy(carry_.data() + carry_size_, p, take);
    carry_size_ = static_cast<std::uint8_t>(carry_size_ + take);
    p += take;
    n -= take;
    if (carry_size_ == need) {
        carry_size_ = 0;
        on_field(carry_.data());
    }
}

void layout_walk::on_field(const std::byte* f) {
    switch (state_) {
        case state::curve_header:
            on_curve_header(f);
            break;
        case state::keyframe:
            on_keys(f, 1);
            break;
        case state::marker_list:
            on_marker_list(f);
            break;
        case state::marker_time:
            on_marker_time(f);
            break;
        default:
            break;
    }
}

void layout_walk::begin_curve() {
    if (curves_read()) {
        state_ = ends_with_trailer(header_) ? state::trailer : state::marker_list;
        trailer_offset_ = field_offset_;
        if (visitor_ != nullptr) visitor_->curves_end();
        return;
    }
    const walk_curve c = curve_of_walk(header_, totals_.curves);
    curve_ = c.id;
    kind_ = c.kind;
    stride_ = c.stride;
    curve_offset_ = field_offset_;
    state_ = state::curve_header;
}

// The keyframes' fit is known only when they have all arrived (or at finish, as `truncated`).
void layout_walk::on_curve_header(const std::byte* f) {
    const fault e = checks_ == walk_checks::framing ? check_curve_count(f, limits_, totals_.keys)
                                                    : check_curve_header(f, limits_, totals_.keys);
    if (e) {
        if (!is_limit(e)) {
            return fail(e.code, curve_offset_ + e.offset, error_place::curve, -1, e.limit);
        }
        if (stop_at_limit(e.code, curve_offset_ + e.offset, error_place::curve, -1, e.limit))
            return;
    }
    key_count_ = curve_key_count(f);
    keys_read_ = 0;
    if (visitor_ != nullptr) {
        visitor_->curve({{curve_, kind_, stride_},
                         static_cast<std::uint16_t>(totals_.curves),
                         curve_offset_,
                         load_i32_le(f),
                         load_i32_le(f + 4),
                         key_count_});
    }
    field_offset_ += curve_header_size;
    if (key_count_ == 0) {
        end_curve();
    } else {
        state_ = state::keyframe;
    }
}

// Without content checks only the run's first and last key times are read.
void layout_walk::on_keys(const std::byte* p, std::size_t n) {
    if (checks_ == walk_checks::content) {
        for (std::size_t i = 0; i < n; ++i) check_key(p + i * stride_);
    } else {
        if (keys_read_ == 0) first_time_ = load_f32_le(p);
        last_time_ = load_f32_le(p + (n - 1) * stride_);
        keys_read_ += static_cast<std::uint32_t>(n);
        field_offset_ += std::uint64_t{n} * stride_;
    }
    if (visitor_ != nullptr) visitor_->keys(p, n);
    if (keys_read_ == key_count_) end_curve();
}

void layout_walk::check_key(const std::byte* f) noexcept {
    const float t = load_f32_le(f);
    if (keys_read_ == 0) first_time_ = t;
    if (content_.code == errc::ok) {
        const keyframe_fault fault =
            check_keyframe(f, stride_ == full_keyframe_size, kind_ == curve_kind::bool_curve,
                           keys_read_ == 0, last_time_);
        if (fault.code != errc::ok) {
            content_fault(fault.code, field_offset_ + fault.field, error_place::curve, keys_read_);
        }
    }
    last_time_ = t;
    field_offset_ += stride_;
    ++keys_read_;
}

void layout_walk::skip_keys() noexcept {
    if (state_ != state::keyframe || carry_size_ != 0 || keys_read_ == 0) return;
    const std::uint32_t skipped = key_count_ - 1 - keys_read_;
    keys_read_ += skipped;
    field_offset_ += std::uint64_t{skipped} * stride_;
}

// The curve is whole: what recording::open takes from a yielded curve.
void layout_walk::end_curve() {
    if (visitor_ != nullptr) visitor_->curve_end(key_count_ > 0 ? first_time_ : 0.0f);
    tallies_[to_index(curve_)] = tally{key_count_, first_time_};
    if (key_count_ > 0) {
        totals_.first_key(first_time_);
        totals_.last_key(last_time_);
    }
    totals_.keys += key_count_;
    ++totals_.curves;
    begin_curve();
}

void layout_walk::on_marker_list(const std::byte* f) {
    if (const fault e = check_marker_count(f, limits_)) {
        if (!is_limit(e)) {
            return fail(e.code, field_offset_ + e.offset, error_place::markers, -1, e.limit);
        }
        if (stop_at_limit(e.code, field_offset_ + e.offset, error_place::markers, -1, e.limit)) {
            return;
        }
    }
    totals_.has_markers = true;
    totals_.markers = static_cast<std::uint32_t>(load_i32_le(f));
    if (visitor_ != nullptr) visitor_->marker_list(field_offset_, totals_.markers);
    field_offset_ += 4;
    begin_marker();
}

void layout_walk::begin_marker() noexcept {
    if (marker_index_ == totals_.markers) {
        state_ = state::end;
        return;
    }
    marker_offset_ = field_offset_;
    state_ = state::marker_time;
}

void layout_walk::on_marker_time(const std::byte* f) noexcept {
    marker_time_ = load_f32_le(f);
    if (checks_ == walk_checks::content) {
        if (const errc e = check_marker_time(marker_time_); e != errc::ok) {
            content_fault(e, marker_offset_, error_place::markers, marker_index_);
        }
    }
    field_offset_ += 4;
    length_offset_ = field_offset_;
    length_ = length_decoder{};
    state_ = state::name_length;
}

void layout_walk::on_length_byte(std::uint8_t b) {
    ++field_offset_;
    switch (length_.add(b)) {
        case length_decoder::step::more:
            return;
        case length_decoder::step::too_long:
            return fail(overlong_name_length.code, length_offset_ + overlong_name_length.offset,
                        error_place::markers, marker_index_);
        case length_decoder::step::done:
            break;
    }
    if (const fault e = check_name_length(length_.value(), limits_)) {
        if (!is_limit(e)) {
            return fail(e.code, length_offset_ + e.offset, error_place::markers, marker_index_,
                        e.limit);
        }
        if (stop_at_limit(e.code, length_offset_ + e.offset, error_place::markers, marker_index_,
                          e.limit)) {
            return;
        }
    }
    name_offset_ = field_offset_;
    name_left_ = length_.value();
    utf8_ = utf8_decoder{};
    name_valid_ = true;
    if (visitor_ != nullptr) visitor_->marker(marker_time_, name_left_);
    if (name_left_ == 0) {
        end_marker();
    } else {
        state_ = state::name;
    }
}

void layout_walk::on_name(const std::byte* p, std::size_t n) {
    if (checks_ == walk_checks::content) {
        for (std::size_t i = 0; i < n && name_valid_; ++i) {
            name_valid_ = utf8_.add(std::to_integer<std::uint8_t>(p[i]));
        }
    }
    if (visitor_ != nullptr) visitor_->name(p, n);
    name_left_ -= n;
    field_offset_ += n;
    if (name_left_ == 0) end_marker();
}

// The trailer's first bytes are compared as they come; of the rest only the last matters.
void layout_walk::on_trailer(const std::byte* p, std::size_t n) noexcept {
    std::size_t i = 0;
    for (; i < n && trailer_seen_ < formatter_prefix.size(); ++i, ++trailer_seen_) {
        const std::uint64_t k = trailer_seen_;
        if (const fault e = check_formatter_byte(k, std::to_integer<std::uint8_t>(p[i]))) {
            return fail(e.code, trailer_offset_ + e.offset, error_place::markers);
        }
    }
    trailer_seen_ += n - i;
    trailer_last_ = std::to_integer<std::uint8_t>(p[n - 1]);
}

void layout_walk::end_marker() {
    if (visitor_ != nullptr) visitor_->marker_end();
    if (checks_ == walk_checks::content) {
        if (const errc e = check_marker_name(name_valid_ && utf8_.at_boundary()); e != errc::ok) {
            content_fault(e, name_offset_, error_place::markers, marker_index_);
        }
    }
    ++marker_index_;
    begin_marker();
}

// The end of the input inside a field: `truncated` where validate's walk would have found too few
// bytes left for it.
void layout_walk::finish() {
    switch (state_) {
        case state::curve_header:
            fail(errc::truncated, curve_offset_, error_place::curve);
            break;
        case state::keyframe:
            fail(errc::truncated, curve_offset_ + curve_header_size, error_place::curve, 0);
            break;
        case state::marker_list:
            if (ends_after_curves(header_, carry_size_)) {
                state_ = state::end;
            } else {
                fail(errc::truncated, field_offset_, error_place::markers);
            }
            break;
        case state::marker_time:
            fail(errc::truncated, marker_offset_, error_place::markers, marker_index_);
            break;
        case state::name_length:
            fail(errc::truncated, length_offset_, error_place::markers, marker_index_);
            break;
        case state::name:
            fail(errc::truncated, name_offset_, error_place::markers, marker_index_);
            break;
        case state::trailer:
            if (const fault e = check_formatter_end(trailer_seen_, trailer_last_)) {
                fail(e.code, trailer_offset_ + e.offset, error_place::markers);
            } else {
                state_ = state::end;
            }
            break;
        case state::end:
        case state::failed:
            break;
    }
}

void layout_walk::fail(errc code, std::uint64_t offset, error_place place, std::int64_t index,
                       limit_kind limit) noexcept {
    structural_ =
        error{code, offset, place, place == error_place::curve ? curve_ : curve_id{}, index, limit};
    state_ = state::failed;
}

void layout_walk::content_fault(errc code, std::uint64_t offset, error_place place,
                                std::int64_t index) noexcept {
    if (content_.code != errc::ok) return;
    content_ = error{code, offset, place, place == error_place::curve ? curve_ : curve_id{}, index};
}

void layout_walk::fill(summary& s) const noexcept {
    (limit_ ? at_limit_ : totals_).fill(s, header_);
}

void layout_walk::add_warnings(report& r) const noexcept {
    add_count_warnings(
        header_,
        [&](curve_id id) {
            const tally& t = tallies_[to_index(id)];
            return curve_tally{has_curve(header_.blocks, id), t.keys, t.first_time};
        },
        [](curve_id) -> const warning* { return nullptr; }, r);
}

}  // namespace detail

template <typename Self>
auto& stream_validator::walk(Self& v, std::size_t i) noexcept {
    auto* slot = v.bytes.data() + i * walk_bytes;
    using walk_type =
        std::conditional_t<std::is_const_v<Self>, const detail::layout_walk, detail::layout_walk>;
    return *std::launder(reinterpret_cast<walk_type*>(slot));
}

// Each slot holds a walk from the validator's construction on, placed at its own offset.
stream_validator::walk_slots::walk_slots() noexcept {
    static_assert(sizeof(detail::layout_walk) <= walk_bytes && alignof(detail::layout_walk) <= 8,
                  "walk_bytes must hold a detail::layout_walk");
    static_assert(std::is_trivially_destructible_v<detail::layout_walk>,
                  "walk_slots destroys no walk");
    for (std::size_t i = 0; i < max_walks; ++i)
        new (bytes.data() + i * walk_bytes) detail::layout_walk;
}

stream_validator::walk_slots::walk_slots(const walk_slots& other) noexcept {
    for (std::size_t i = 0; i < max_walks; ++i) {
        new (bytes.data() + i * walk_bytes) detail::layout_walk(walk(other, i));
    }
}

stream_validator::walk_slots& stream_validator::walk_slots::operator=(
    const walk_slots& other) noexcept {
    for (std::size_t i = 0; i < max_walks; ++i) walk(*this, i) = walk(other, i);
    return *this;
}

stream_validator::stream_validator(const validate_options& options) noexcept : options_(options) {}

stream_status stream_validator::feed(std::span<const std::byte> chunk) noexcept {
    if (status_ == stream_status::error || finished_ || chunk.empty()) return status_;
    // A server's byte ceiling comes before anything else, as in validate.
    consumed_ = chunk.size() > UINT64_MAX - consumed_ ? UINT64_MAX : consumed_ + chunk.size();
    if (const detail::fault f = detail::check_size(consumed_, options_.limits)) {
        report_ = report{};
        report_.summary.bytes = consumed_;
        report_.error = error{f.code, f.offset, error_place::none, {}, -1, f.limit};
        status_ = stream_status::error;
        return status_;
    }
    const std::byte* p = chunk.data();
    std::size_t n = chunk.size();
    if (!header_done_) {
        feed_header(p, n);
        if (!header_done_) return status_;
    }
    for (std::size_t i = 0; i < walk_count_; ++i) walk(walks_, i).feed(p, n);
    update_status();
    return status_;
}

// The header is gathered across chunks only as far as its rule asks for, so that a short file is
// `truncated` rather than judged on a part, and no byte of the first curve is taken.
void stream_validator::feed_header(const std::byte*& p, std::size_t& n) noexcept {
    if (start_named_2019()) return;
    const detail::header_check h = detail::gather_header(header_.data(), header_size_, p, n);
    if (!h.error && !h.whole()) return;
    const detail::layout_candidates c =
        detail::header_candidates(h, header_.data(), options_.layout);
    if (c.count == 0) return fail_header(h.error.code, h.error.offset);
    start_walks(c);
    // When detecting, those first bytes belong to the first curve of a 2019 layout, if it is one.
    if (c.detecting) {
        for (std::size_t i = 0; i < walk_count_; ++i)
            walk(walks_, i).feed(header_.data(), header_size_);
    }
}

// One walk per candidate, side by side: FORMAT.md's choice between them is made at the end
// (detail::choose_walk), or as soon as it is known (detail::walk_decided). Detecting walks defer
// their limits (detail::layout_walk::start).
template <typename Candidates>
void stream_validator::start_walks(const Candidates& c) noexcept {
    header_done_ = true;
    detecting_ = c.detecting;
    walk_count_ = c.count;
    for (std::size_t i = 0; i < c.count; ++i) {
        walk(walks_, i).start(c.starts[i].header, c.starts[i].first_curve,
                              options_.level == level::full ? detail::walk_checks::content
                                                            : detail::walk_checks::structure,
                              options_.limits, c.detecting);
    }
}

// A 2019 layout asked for by name: its walks start at byte 0, with no header to gather.
bool stream_validator::start_named_2019() noexcept {
    const detail::layout_candidates c = detail::named_2019_candidates(options_.layout);
    if (c.count == 0) return false;
    start_walks(c);
    return true;
}

void stream_validator::fail_header(errc code, std::uint64_t offset) noexcept {
    report_ = report{};
    report_.summary.bytes = consumed_;
    report_.error = error{code, offset, error_place::header};
    status_ = stream_status::error;
}

// Final only when no walk can change the outcome (detail::walk_decided). A content error is never
// final: a structural error further on would win.
void stream_validator::update_status() noexcept {
    if (detail::walk_decided(
            walk_count_, [&](std::size_t i) { return walk(walks_, i).failed(); },
            [&](std::size_t i) { return walk(walks_, i).structural_error(); })) {
        conclude();
        status_ = stream_status::error;
        return;
    }
    bool all_ended = true;
    for (std::size_t i = 0; i < walk_count_; ++i) {
        if (!walk(walks_, i).failed() && !walk(walks_, i).complete()) all_ended = false;
    }
    status_ = all_ended ? stream_status::done : stream_status::more;
}

// FORMAT.md's choice is the first candidate whose walk stays sound: a walk under way is the choice
// for a valid file only when it is the last one left.
std::optional<file_header> stream_validator::layout_known() const noexcept {
    if (detecting_ || status_ == stream_status::error) return std::nullopt;
    const detail::layout_walk* left = nullptr;
    for (std::size_t i = 0; i < walk_count_; ++i) {
        if (walk(walks_, i).failed()) continue;
        if (left != nullptr) return std::nullopt;
        left = &walk(walks_, i);
    }
    if (left == nullptr) return std::nullopt;
    return left->header();
}

std::size_t stream_validator::chosen() const noexcept {
    return detail::choose_walk(walk_count_, detecting_,
                               [&](std::size_t k) { return walk(walks_, k).structural_error(); });
}

void stream_validator::conclude() noexcept {
    const std::size_t i = chosen();
    report_ = report{};
    report_.summary.bytes = consumed_;
    if (i >= walk_count_) {
        report_.error = error{detail::not_2019.code, detail::not_2019.offset, error_place::header};
        return;
    }
    const detail::layout_walk& w = walk(walks_, i);
    w.fill(report_.summary);
    if (w.failed()) {
        report_.error = w.structural_error();
    } else if (w.limit_error()) {
        report_.error = w.limit_error();
    } else if (w.content_error()) {
        report_.error = w.content_error();
    } else {
        w.add_warnings(report_);
    }
}

const report& stream_validator::finish() noexcept {
    if (finished_) return report_;
    finished_ = true;
    if (status_ == stream_status::error) return report_;
    if (!header_done_) {
        // Nothing was fed: a 2019 layout asked for has no header to miss, only its first curve.
        if (!start_named_2019()) {
            fail_header(errc::truncated,
                        detail::check_header(header_.data(), header_size_).missing);
            return report_;
        }
    }
    for (std::size_t i = 0; i < walk_count_; ++i) walk(walks_, i).finish();
    conclude();
    status_ = report_.valid() ? stream_status::done : stream_status::error;
    return report_;
}

}  // namespace inputanim
