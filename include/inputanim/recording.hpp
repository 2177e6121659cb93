// The fixed table of every curve of one file, built by one structural walk without allocation,
// and the summary a dataset index stores.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string_view>

#include "inputanim/offset_source.hpp"
#include "inputanim/reader.hpp"

namespace inputanim {

struct summary {
    std::uint64_t bytes = 0;
    inputanim::edition edition = edition::v1;
    // version_name(edition, major, minor) is the version reports give.
    int major = 0;
    int minor = 0;
    inputanim::layout layout = layout::full;
    block_flags blocks{};
    std::uint32_t curves = 0;
    std::uint64_t keyframes = 0;
    // Absent when the file has no marker list.
    std::optional<std::uint32_t> markers;
    // The smallest first-key time and the largest last-key time over all curves (MRTK's
    // duration); absent when no curve has keys.
    std::optional<float> start;
    std::optional<float> duration;
};

namespace detail {

// What a summary takes from a structural walk, kept as the walk goes: by recording::open's pull
// walk, recording's walk by reads and the push walker (which keeps it by value, hence a public
// header). Internal: not part of the API.
struct walk_totals {
    // The curves read whole and their keys.
    std::uint32_t curves = 0;
    std::uint64_t keys = 0;
    bool any_keys = false;
    float start = std::numeric_limits<float>::infinity();
    float end = -std::numeric_limits<float>::infinity();
    bool has_markers = false;
    std::uint32_t markers = 0;

    // The first key time of a curve with keys, and the last.
    void first_key(float t) noexcept {
        any_keys = true;
        if (t < start) start = t;
    }
    void last_key(float t) noexcept {
        if (t > end) end = t;
    }
    // The summary of a walk under `h` that got this far (bytes aside).
    void fill(summary& s, const file_header& h) const noexcept {
        s.edition = h.edition;
        s.major = h.major;
        s.minor = h.minor;
        s.layout = h.layout;
        s.blocks = h.blocks;
        s.curves = curves;
        s.keyframes = keys;
        if (any_keys) {
            s.start = start;
            s.duration = end;
        }
        if (has_markers) s.markers = markers;
    }
};

}  // namespace detail

// Forward range over the markers of a structurally sound file.
class marker_range {
  public:
    class iterator {
      public:
        using iterator_category = std::input_iterator_tag;
        using value_type = marker_view;
        using difference_type = std::ptrdiff_t;
        using reference = const marker_view&;

        iterator() noexcept = default;
        iterator(std::span<const std::byte> bytes, std::uint64_t offset, std::uint32_t index,
                 std::uint32_t count) noexcept;
        const marker_view& operator*() const noexcept { return m_; }
        const marker_view* operator->() const noexcept { return &m_; }
        iterator& operator++() noexcept;
        iterator operator++(int) noexcept {
            iterator old = *this;
            ++*this;
            return old;
        }
        friend bool operator==(const iterator& a, const iterator& b) noexcept {
            return a.m_.index == b.m_.index;
        }

      private:
        void load() noexcept;
        std::span<const std::byte> bytes_;
        std::uint32_t count_ = 0;
        marker_view m_{};
    };

    marker_range() noexcept = default;
    marker_range(std::span<const std::byte> bytes, std::uint64_t first,
                 std::uint32_t count) noexcept
        : bytes_(bytes), first_(first), count_(count) {}
    iterator begin() const noexcept { return {bytes_, first_, 0, count_}; }
    iterator end() const noexcept { return {bytes_, first_, count_, count_}; }
    std::size_t size() const noexcept { return count_; }
    bool empty() const noexcept { return count_ == 0; }

  private:
    std::span<const std::byte> bytes_;
    std::uint64_t first_ = 0;
    std::uint32_t count_ = 0;
};

class recording {
  public:
    recording() noexcept { by_id_.fill(absent); }

    // Walks the structure of `bytes` (which must outlive the recording). Returns the first
    // structural error; on error the table holds the curves read before it.
    error open(std::span<const std::byte> bytes, const read_options& options = {}) noexcept;
    // The same table and summary for `bytes`, a mapping of the whole file that `file` reads, but
    // the structure read from `file` (a curve boundary per read): no page of the mapping is
    // touched, and on a large file each first touch is a page fault that costs far more than a
    // read of a few bytes (docs/PERFORMANCE.md, "Python"). An accelerator, not a verdict:
    // false, leaving the recording empty, for anything but a structurally sound v1.x file (and for
    // a marker list over 4 KiB, a configured limit reached, a failed read, a 2019 layout); open()
    // then reads it or says why.
    bool open_by_reads(std::span<const std::byte> bytes, const offset_source& file,
                       const read_options& options = {}) noexcept;

    const inputanim::summary& summary() const noexcept { return summary_; }
    const file_header& header() const noexcept { return header_; }

    // The curves in file order.
    std::span<const curve_view> curves() const noexcept { return {table_.data(), count_}; }
    // The time of the first keyframe of curves()[i] (0 when it has none), as the walk read it: a
    // summary needs no page of the keys (open_by_reads touches none).
    float first_key_time(std::size_t i) const noexcept { return first_times_[i]; }
    // nullptr when the file does not hold that curve.
    const curve_view* find(curve_id id) const noexcept;
    const curve_view* find(std::string_view path) const noexcept;
    const curve_view* camera(pose_channel c) const noexcept { return find(camera_curve(c)); }
    const curve_view* hand(hand_state s) const noexcept { return find(hand_state_curve(s)); }
    const curve_view* joint(side s, inputanim::joint j, pose_channel c) const noexcept {
        return find(joint_curve(s, j, c));
    }
    const curve_view* gaze(ray_channel c) const noexcept { return find(gaze_curve(c)); }

    inputanim::marker_range markers() const noexcept { return markers_; }
    std::span<const std::byte> bytes() const noexcept { return bytes_; }

  private:
    enum class walk : std::uint8_t { sound, unsound, not_by_reads };
    void reset(std::span<const std::byte> bytes) noexcept;
    // The table and summary of the pull walk of `r` (a reader over bytes_, not opened yet); its
    // first structural error.
    error walk_into_table(reader& r) noexcept;
    walk walk_by_reads(const offset_source& file, file_header header, std::uint64_t first_curve,
                       const limits& lim) noexcept;

    static constexpr std::uint16_t absent = 0xffff;
    std::span<const std::byte> bytes_;
    file_header header_{};
    inputanim::summary summary_{};
    std::array<curve_view, curve_id_count> table_{};
    std::array<float, curve_id_count> first_times_{};
    std::array<std::uint16_t, curve_id_count> by_id_{};
    std::size_t count_ = 0;
    inputanim::marker_range markers_;
};

}  // namespace inputanim
