#include "inputanim/recording.hpp"

#include <algorithm>
#include <array>

#include "detail/load.hpp"
#include "detail/marker.hpp"
#include "detail/rules.hpp"

namespace inputanim {

marker_range::iterator::iterator(std::span<const std::byte> bytes, std::uint64_t offset,
                                 std::uint32_t index, std::uint32_t count) noexcept
    : bytes_(bytes), count_(count) {
    m_.index = index;
    m_.offset = offset;
    load();
}

void marker_range::iterator::load() noexcept {
    if (m_.index >= count_) return;
    // The range is built over a walked file, so this cannot fail there; on other bytes it ends.
    const auto r = detail::read_marker(bytes_, m_.offset, limits{}, m_);
    if (r.error) m_.index = count_;
}

marker_range::iterator& marker_range::iterator::operator++() noexcept {
    const std::uint64_t next = static_cast<std::uint64_t>(
        m_.name.data() + m_.name.size() - reinterpret_cast<const char*>(bytes_.data()));
    ++m_.index;
    m_.offset = next;
    load();
    return *this;
}

void recording::reset(std::span<const std::byte> bytes) noexcept {
    bytes_ = bytes;
    header_ = {};
    summary_ = {};
    summary_.bytes = bytes.size();
    by_id_.fill(absent);
    count_ = 0;
    markers_ = {};
}

error recording::open(std::span<const std::byte> bytes, const read_options& options) noexcept {
    reset(bytes);

    reader r(bytes, options);
    if (const error& e = r.open()) return e;
    header_ = r.header();
    detail::walk_totals totals;
    std::uint64_t first_marker = 0;
    for (;;) {
        const item it = r.next();
        if (it == item::curve) {
            const curve_view& c = r.curve();
            by_id_[to_index(c.id)] = static_cast<std::uint16_t>(count_);
            first_times_[count_] = c.keys.empty() ? 0.0f : c.keys.front().time();
            table_[count_++] = c;
            ++totals.curves;
            if (!c.keys.empty()) {
                totals.first_key(first_times_[count_ - 1]);
                totals.last_key(c.keys.back().time());
            }
        } else if (it == item::marker) {
            if (r.marker().index == 0) first_marker = r.marker().offset;
        } else {
            totals.keys = r.total_keyframes();
            totals.has_markers = r.has_marker_list();
            totals.markers = r.marker_count();
            totals.fill(summary_, header_);
            if (it == item::error) return r.error();
            markers_ = marker_range(bytes, first_marker, r.marker_count());
            return {};
        }
    }
}

namespace {

// All of `out` from `offset` of the file; false when the file ends before or the read fails.
bool read_exactly(const offset_source& file, std::uint64_t offset,
                  std::span<std::byte> out) noexcept {
    std::error_code ec;
    return file.read_at(offset, out, ec) == out.size() && !ec;
}

}  // namespace

bool recording::open_by_reads(std::span<const std::byte> bytes, const offset_source& file,
                              const read_options& options) noexcept {
    reset(bytes);
    if (detail::check_size(bytes.size(), options.limits)) return false;
    std::array<std::byte, 64> head{};
    const std::size_t head_size = std::min<std::size_t>(bytes.size(), head.size());
    if (!read_exactly(file, 0, {head.data(), head_size})) return false;
    const detail::layout_candidates c = detail::candidates(head.data(), head_size, options.layout);
    // The 2019 layouts are left to open(): they are small, and only the reader detects them.
    if (c.count == 0 || c.starts[0].header.edition != edition::v1) return false;
    // A walk this cannot finish by reads (a limit, a failed read) leaves the file to open().
    bool by_reads = true;
    const std::size_t chosen = detail::first_sound(c, [&](std::size_t i) {
        if (!by_reads) return false;
        const walk w =
            walk_by_reads(file, c.starts[i].header, c.starts[i].first_curve, options.limits);
        if (w == walk::sound) return true;
        reset(bytes);
        by_reads = w != walk::not_by_reads;
        return false;
    });
    return chosen < c.count;
}

// reader's structural walk (next_curve, next_marker_list, next_marker) under header.layout,
// through reads of the file: `unsound` where the reader would stop with a structural error,
// `not_by_reads` for what this walk leaves to open() (a limit, a failed read, a long marker
// list).
recording::walk recording::walk_by_reads(const offset_source& file, file_header header,
                                         std::uint64_t first_curve, const limits& lim) noexcept {
    const std::uint64_t size = bytes_.size();
    std::uint64_t pos = first_curve;
    detail::walk_totals totals;
    // Each read takes the previous curve's last key (its time), this curve's header and its
    // first key's time: one read per boundary.
    std::array<std::byte, full_keyframe_size + curve_header_size + 4> buffer{};
    std::uint64_t previous_last = 0;
    bool previous_keys = false;
    for (std::uint16_t i = 0; i < header.curve_count; ++i) {
        if (size - pos < curve_header_size) return walk::unsound;
        const std::uint64_t from = previous_keys ? previous_last : pos;
        const std::uint64_t to = std::min(size, pos + curve_header_size + 4);
        if (!read_exactly(file, from, {buffer.data(), static_cast<std::size_t>(to - from)})) {
            return walk::not_by_reads;
        }
        if (previous_keys) totals.last_key(detail::load_f32_le(buffer.data()));
        const std::byte* p = buffer.data() + (pos - from);
        const detail::walk_curve wc = detail::curve_of_walk(header, i);
        const detail::curve_step s = detail::step_curve(p, size - pos, wc.stride, lim, totals.keys);
        if (s.error) {
            return detail::is_limit(s.error) ? walk::not_by_reads : walk::unsound;
        }
        const std::uint32_t n = s.keys;
        curve_view& c = table_[count_];
        c.id = wc.id;
        c.index = i;
        c.kind = wc.kind;
        c.pre_wrap = detail::load_i32_le(p);
        c.post_wrap = detail::load_i32_le(p + 4);
        c.offset = pos;
        c.keys = keyframes_view(bytes_.data() + pos + curve_header_size, n, wc.stride);
        // The keys fit, so the first key's time is within the read.
        first_times_[count_] = n > 0 ? detail::load_f32_le(p + curve_header_size) : 0.0f;
        if (n > 0) totals.first_key(first_times_[count_]);
        by_id_[to_index(c.id)] = static_cast<std::uint16_t>(count_++);
        previous_keys = n > 0;
        if (n > 0) previous_last = pos + curve_header_size + std::uint64_t{n - 1} * wc.stride;
        pos += s.size;
        ++totals.curves;
        totals.keys += n;
    }
    if (previous_keys) {
        if (!read_exactly(file, previous_last, {buffer.data(), 4})) return walk::not_by_reads;
        totals.last_key(detail::load_f32_le(buffer.data()));
    }
    std::uint64_t first_marker = 0;
    if (pos != size) {
        // The marker list and the markers, read whole.
        std::array<std::byte, 4096> tail{};
        if (size - pos > tail.size()) return walk::not_by_reads;
        const std::span<std::byte> list(tail.data(), static_cast<std::size_t>(size - pos));
        if (!read_exactly(file, pos, list)) return walk::not_by_reads;
        if (list.size() < 4) return walk::unsound;
        if (const detail::fault f = detail::check_marker_count(list.data(), lim)) {
            return detail::is_limit(f) ? walk::not_by_reads : walk::unsound;
        }
        const auto count = static_cast<std::uint32_t>(detail::load_i32_le(list.data()));
        std::uint64_t at = 4;
        marker_view m{};
        for (std::uint32_t k = 0; k < count; ++k) {
            const detail::marker_result r = detail::read_marker(list, at, lim, m);
            if (r.error) {
                return detail::is_limit(r.error) ? walk::not_by_reads : walk::unsound;
            }
            at = r.end;
        }
        if (at != list.size()) return walk::unsound;
        totals.has_markers = true;
        totals.markers = count;
        if (count > 0) first_marker = pos + 4;
    }
    header_ = header;
    totals.fill(summary_, header);
    if (totals.has_markers) markers_ = marker_range(bytes_, first_marker, totals.markers);
    return walk::sound;
}

const curve_view* recording::find(curve_id id) const noexcept {
    const std::size_t i = to_index(id);
    if (i >= curve_id_count || by_id_[i] == absent) return nullptr;
    return &table_[by_id_[i]];
}

const curve_view* recording::find(std::string_view path) const noexcept {
    const auto id = find_curve(path);
    return id ? find(*id) : nullptr;
}

}  // namespace inputanim
