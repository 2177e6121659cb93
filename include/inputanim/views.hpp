// Non-owning views of curves, keyframes and markers inside a file's bytes. Every getter is one
// unaligned little-endian load; nothing here allocates or reads outside the bytes it was given.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string_view>

#include "inputanim/format.hpp"

namespace inputanim {

namespace detail {
float load_f32(const std::byte* p) noexcept;
std::int32_t load_i32(const std::byte* p) noexcept;
}  // namespace detail

// Unity WeightedMode.
enum class weighted_mode : std::int32_t { none = 0, in = 1, out = 2, both = 3 };

// One keyframe. Compact and bool keyframes carry no tangents; they read as MRTK reads them:
// tangents 0, weights 0, weighted mode both (which is exactly linear interpolation).
class keyframe_view {
  public:
    constexpr keyframe_view() noexcept = default;
    constexpr keyframe_view(const std::byte* p, bool full) noexcept : p_(p), full_(full) {}

    float time() const noexcept { return detail::load_f32(p_); }
    float value() const noexcept { return detail::load_f32(p_ + 4); }
    float in_tangent() const noexcept { return full_ ? detail::load_f32(p_ + 8) : 0.0f; }
    float out_tangent() const noexcept { return full_ ? detail::load_f32(p_ + 12) : 0.0f; }
    float in_weight() const noexcept { return full_ ? detail::load_f32(p_ + 16) : 0.0f; }
    float out_weight() const noexcept { return full_ ? detail::load_f32(p_ + 20) : 0.0f; }
    // The raw Int32 as stored (a valid file holds 0-3); 3 for keyframes without the field.
    std::int32_t weighted_mode_raw() const noexcept {
        return full_ ? detail::load_i32(p_ + 24) : 3;
    }
    inputanim::weighted_mode weighted_mode() const noexcept {
        return static_cast<inputanim::weighted_mode>(weighted_mode_raw());
    }
    bool has_tangents() const noexcept { return full_; }
    const std::byte* data() const noexcept { return p_; }

  private:
    const std::byte* p_ = nullptr;
    bool full_ = false;
};

// The keyframes of one curve: random access, usable with range-for and <algorithm>.
class keyframes_view {
  public:
    class iterator {
      public:
        // Like std::vector<bool>, the reference is a proxy value.
        using iterator_category = std::random_access_iterator_tag;
        using iterator_concept = std::random_access_iterator_tag;
        using value_type = keyframe_view;
        using difference_type = std::ptrdiff_t;
        using reference = keyframe_view;
        using pointer = void;

        constexpr iterator() noexcept = default;
        constexpr iterator(const std::byte* p, std::uint8_t stride) noexcept
            : p_(p), stride_(stride) {}

        keyframe_view operator*() const noexcept { return {p_, stride_ == full_keyframe_size}; }
        keyframe_view operator[](difference_type n) const noexcept { return *(*this + n); }
        iterator& operator++() noexcept { return *this += 1; }
        iterator operator++(int) noexcept {
            iterator old = *this;
            ++*this;
            return old;
        }
        iterator& operator--() noexcept { return *this -= 1; }
        iterator operator--(int) noexcept {
            iterator old = *this;
            --*this;
            return old;
        }
        iterator& operator+=(difference_type n) noexcept {
            p_ += n * stride_;
            return *this;
        }
        iterator& operator-=(difference_type n) noexcept {
            p_ -= n * stride_;
            return *this;
        }
        friend iterator operator+(iterator it, difference_type n) noexcept { return it += n; }
        friend iterator operator+(difference_type n, iterator it) noexcept { return it += n; }
        friend iterator operator-(iterator it, difference_type n) noexcept { return it -= n; }
        friend difference_type operator-(const iterator& a, const iterator& b) noexcept {
            return a.stride_ == 0 ? 0 : (a.p_ - b.p_) / a.stride_;
        }
        friend bool operator==(const iterator& a, const iterator& b) noexcept {
            return a.p_ == b.p_;
        }
        friend auto operator<=>(const iterator& a, const iterator& b) noexcept {
            return a.p_ <=> b.p_;
        }

      private:
        const std::byte* p_ = nullptr;
        std::uint8_t stride_ = 0;
    };

    constexpr keyframes_view() noexcept = default;
    constexpr keyframes_view(const std::byte* first, std::uint32_t count,
                             std::uint8_t stride) noexcept
        : first_(first), count_(count), stride_(stride) {}

    std::size_t size() const noexcept { return count_; }
    bool empty() const noexcept { return count_ == 0; }
    // Bytes per keyframe: 8 or 28.
    std::size_t stride() const noexcept { return stride_; }
    keyframe_view operator[](std::size_t i) const noexcept {
        return {first_ + i * stride_, stride_ == full_keyframe_size};
    }
    keyframe_view front() const noexcept { return (*this)[0]; }
    keyframe_view back() const noexcept { return (*this)[count_ - 1]; }
    iterator begin() const noexcept { return {first_, stride_}; }
    iterator end() const noexcept { return {first_ + std::size_t{count_} * stride_, stride_}; }
    const std::byte* data() const noexcept { return first_; }

  private:
    const std::byte* first_ = nullptr;
    std::uint32_t count_ = 0;
    std::uint8_t stride_ = 0;
};

struct curve_view {
    curve_id id{};
    // Position in the file's curve order (differs from the id when a v1.1 block is absent).
    std::uint16_t index = 0;
    curve_kind kind = curve_kind::float_curve;
    std::int32_t pre_wrap = 0;
    std::int32_t post_wrap = 0;
    // Offset of the curve's 12-byte header.
    std::uint64_t offset = 0;
    keyframes_view keys;

    std::string_view path() const noexcept { return curve_path(id); }
    std::size_t size() const noexcept { return keys.size(); }
    // Offset of keyframe i.
    std::uint64_t keyframe_offset(std::size_t i) const noexcept {
        return offset + curve_header_size + i * keys.stride();
    }
};

struct marker_view {
    std::uint32_t index = 0;
    // Offset of the marker's time field.
    std::uint64_t offset = 0;
    float time = 0.0f;
    // The name's bytes as stored (valid UTF-8 in a file that passed level full).
    std::string_view name;
};

}  // namespace inputanim
