// The only place that includes Boost.Endian: every load from and store into file bytes goes
// through these memcpy-based little-endian accesses, so unaligned fields and big-endian hosts
// are both safe.
#pragma once

#include <bit>
#include <boost/endian/conversion.hpp>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace inputanim::detail {

inline std::uint16_t load_u16_le(const std::byte* p) noexcept {
    return boost::endian::endian_load<std::uint16_t, 2, boost::endian::order::little>(
        reinterpret_cast<const unsigned char*>(p));
}
inline std::uint32_t load_u32_le(const std::byte* p) noexcept {
    return boost::endian::endian_load<std::uint32_t, 4, boost::endian::order::little>(
        reinterpret_cast<const unsigned char*>(p));
}
inline std::int32_t load_i32_le(const std::byte* p) noexcept {
    return boost::endian::endian_load<std::int32_t, 4, boost::endian::order::little>(
        reinterpret_cast<const unsigned char*>(p));
}
inline std::uint64_t load_u64_le(const std::byte* p) noexcept {
    return boost::endian::endian_load<std::uint64_t, 8, boost::endian::order::little>(
        reinterpret_cast<const unsigned char*>(p));
}
inline float load_f32_le(const std::byte* p) noexcept {
    return std::bit_cast<float>(load_u32_le(p));
}

// Consecutive little-endian 32-bit fields as the lanes of `out`, a GCC/Clang vector of 32-bit
// integers: one memcpy, which only a little-endian host may do (big-endian hosts use the scalar
// loads above). An output parameter: returning a wide vector is an ABI change to the compiler.
template <class V>
inline void load_lanes_le(const std::byte* p, V& out) noexcept
    requires(std::endian::native == std::endian::little) {
    std::memcpy(&out, p, sizeof out);
}

// The bytes of consecutive 32-bit fields as the lanes of `out`, and back, without reading them
// as numbers: for moving whole fields from one place in a file's layout to another, which is
// the same on either byte order.
template <class V>
inline void load_lanes_raw(const std::byte* p, V& out) noexcept {
    std::memcpy(&out, p, sizeof out);
}
template <class V>
inline void store_lanes_raw(std::byte* p, const V& v) noexcept {
    std::memcpy(p, &v, sizeof v);
}

inline void store_u16_le(std::byte* p, std::uint16_t v) noexcept {
    boost::endian::endian_store<std::uint16_t, 2, boost::endian::order::little>(
        reinterpret_cast<unsigned char*>(p), v);
}
inline void store_u32_le(std::byte* p, std::uint32_t v) noexcept {
    boost::endian::endian_store<std::uint32_t, 4, boost::endian::order::little>(
        reinterpret_cast<unsigned char*>(p), v);
}
inline void store_i32_le(std::byte* p, std::int32_t v) noexcept {
    boost::endian::endian_store<std::int32_t, 4, boost::endian::order::little>(
        reinterpret_cast<unsigned char*>(p), v);
}
inline void store_u64_le(std::byte* p, std::uint64_t v) noexcept {
    boost::endian::endian_store<std::uint64_t, 8, boost::endian::order::little>(
        reinterpret_cast<unsigned char*>(p), v);
}
inline void store_f32_le(std::byte* p, float v) noexcept {
    store_u32_le(p, std::bit_cast<std::uint32_t>(v));
}

}  // namespace inputanim::detail
