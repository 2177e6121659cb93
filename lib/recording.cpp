#include "inputanim/recording.hpp"

#include <algorithm>
#include <array>

#include "detail/layout_walk.hpp"
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
    const detail::layout_candidates c =
        detail::candidates(bytes.data(), bytes.size(), options.layout);
    const bool v1_choice =
        c.count >= 2 && !c.detecting &&
        std::all_of(c.starts.begin(), c.starts.begin() + c.count,
                    [](const detail::walk_start& s) { return s.header.edition == edition::v1; });
    if (!v1_choice) {
        // One layout to read, a 2019 layout to detect (whose walks ignore the limits) or a May
        // 2019 bool key size to find: the reader chooses.
        reset(bytes);
        reader r(bytes, options);
        return walk_into_table(r);
    }
    // A v1.1 file under `automatic`: the reader would walk the candidates to choose one
    // (detail::choose_walk) and then walk the chosen one again. Each is walked here as that
    // choice asks, into the table, under the lone choice that reads it (choice_of): when the last
    // walk is the chosen one (a sound first candidate, nearly every file), the table holds it and
    // the file was walked once.
    std::size_t last = c.count;
    error last_end;
    const auto walk_candidate = [&](std::size_t i) {
        reset(bytes);
        reader r(bytes, read_options{choice_of(c.starts[i].header), options.limits});
        last = i;
        last_end = walk_into_table(r);
        return last_end;
    };
    const std::size_t chosen = detail::choose_walk(c, walk_candidate);
    return chosen == last ? last_end : walk_candidate(chosen);
}

error recording::walk_into_table(reader& r) noexcept {
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
            markers_ = marker_range(bytes_, first_marker, r.marker_count());
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

// reader's structural walk under `header`, as the push walk of a validator at level structure
// (detail::layout_walk) takes it, fed by reads of the file: `unsound` where the reader would
// stop with a structural error, `not_by_reads` for what this walk leaves to open() (a limit, a
// failed read, a long marker list). Of each curve's keys the walk is fed the first and the last
// (their times are the summary's), and skips the rest.
recording::walk recording::walk_by_reads(const offset_source& file, file_header header,
                                         std::uint64_t first_curve, const limits& lim) noexcept {
    // The curves into the table, and where the markers start.
    struct table_visitor final : detail::walk_visitor {
        explicit table_visitor(recording& r) noexcept : rec(r) {}
        void curve(const detail::curve_start& c) override {
            curve_view& v = rec.table_[rec.count_];
            v.id = c.curve.id;
            v.index = c.index;
            v.kind = c.curve.kind;
            v.pre_wrap = c.pre_wrap;
            v.post_wrap = c.post_wrap;
            v.offset = c.offset;
            v.keys = keyframes_view(rec.bytes_.data() + c.offset + curve_header_size, c.keys,
                                    c.curve.stride);
            rec.by_id_[to_index(v.id)] = static_cast<std::uint16_t>(rec.count_);
        }
        void curve_end(float first_time) override { rec.first_times_[rec.count_++] = first_time; }
        void marker_list(std::uint64_t offset, std::uint32_t count) override {
            if (count > 0) first_marker = offset + 4;
        }
        recording& rec;
        std::uint64_t first_marker = 0;
    } table(*this);
    detail::layout_walk w;
    w.start(header, first_curve, detail::walk_checks::structure, lim, false, &table);
    const std::uint64_t size = bytes_.size();
    // Each read takes a curve's last key, the next curve's header and its first key: one read
    // per boundary.
    std::array<std::byte, 2 * full_keyframe_size + curve_header_size> buffer{};
    // Past the end of a complete walk, what is left of the file is trailing_bytes.
    while (!w.failed()) {
        w.skip_keys();
        const std::uint64_t at = w.next_offset();
        if (at >= size) break;
        if (w.curves_read()) {
            // The marker list and the markers, read whole.
            std::array<std::byte, 4096> tail{};
            if (size - at > tail.size()) return walk::not_by_reads;
            const std::span<std::byte> list(tail.data(), static_cast<std::size_t>(size - at));
            if (!read_exactly(file, at, list)) return walk::not_by_reads;
            w.feed(list.data(), list.size());
            break;
        }
        const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), size - at));
        if (!read_exactly(file, at, {buffer.data(), n})) return walk::not_by_reads;
        w.feed(buffer.data(), n);
    }
    w.finish();
    if (w.failed()) {
        return detail::is_limit(w.structural_error()) ? walk::not_by_reads : walk::unsound;
    }
    header_ = header;
    w.fill(summary_);
    if (summary_.markers) markers_ = marker_range(bytes_, table.first_marker, *summary_.markers);
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
