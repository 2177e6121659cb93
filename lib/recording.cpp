#include "inputanim/recording.hpp"

#include <limits>

#include "detail/marker.hpp"

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

error recording::open(std::span<const std::byte> bytes, const read_options& options) noexcept {
    bytes_ = bytes;
    header_ = {};
    summary_ = {};
    summary_.bytes = bytes.size();
    by_id_.fill(absent);
    count_ = 0;
    markers_ = {};

    reader r(bytes, options);
    if (const error& e = r.open()) return e;
    header_ = r.header();
    summary_.major = header_.major;
    summary_.minor = header_.minor;
    summary_.layout = header_.layout;
    summary_.blocks = header_.blocks;

    float first = std::numeric_limits<float>::infinity();
    float last = -std::numeric_limits<float>::infinity();
    bool any_keys = false;
    std::uint64_t first_marker = 0;
    for (;;) {
        const item it = r.next();
        if (it == item::curve) {
            const curve_view& c = r.curve();
            by_id_[to_index(c.id)] = static_cast<std::uint16_t>(count_);
            table_[count_++] = c;
            if (!c.keys.empty()) {
                any_keys = true;
                const float t0 = c.keys.front().time();
                const float t1 = c.keys.back().time();
                if (t0 < first) first = t0;
                if (t1 > last) last = t1;
            }
        } else if (it == item::marker) {
            if (r.marker().index == 0) first_marker = r.marker().offset;
        } else {
            summary_.curves = static_cast<std::uint32_t>(count_);
            summary_.keyframes = r.total_keyframes();
            if (any_keys) {
                summary_.start = first;
                summary_.duration = last;
            }
            if (r.has_marker_list()) summary_.markers = r.marker_count();
            if (it == item::error) return r.error();
            markers_ = marker_range(bytes, first_marker, r.marker_count());
            return {};
        }
    }
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
