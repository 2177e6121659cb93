// The exporters behind inputanim::exporter (export.hpp): each format a stream of pieces made in
// one buffer, planned first (lib/export_gltf.cpp, lib/export_unity.cpp).
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <span>
#include <system_error>

#include "inputanim/export.hpp"

namespace inputanim::detail {

// The size of a piece of an export: the one buffer its output is made in.
inline constexpr std::size_t export_piece_bytes = std::size_t{256} << 10;

// One format's export, in exporter's three steps (plan, prepare, next) with their promises:
// plan and next read the recording and never allocate; prepare allocates and reads nothing of the
// keys or markers.
class export_stream {
  public:
    virtual ~export_stream() = default;
    virtual export_result plan() noexcept = 0;
    virtual std::error_code prepare() noexcept = 0;
    virtual std::span<const std::byte> next() noexcept = 0;
};

std::unique_ptr<export_stream> make_gltf_stream(const recording& rec, const export_options& o);
std::unique_ptr<export_stream> make_unity_stream(const recording& rec, const export_options& o);

// The intervals in which a bool curve is on (value > 0.5, a step at each key), one at a time, each
// as [start, end]; an interval still on at the last key ends at max(its start, `last`). No curve:
// no interval.
class on_intervals {
  public:
    on_intervals(const curve_view* c, float last) noexcept : curve_(c), last_(last) {}
    // The next interval into `out`; false when there is none.
    bool next(std::array<float, 2>& out) noexcept;

  private:
    const curve_view* curve_;
    float last_;
    std::size_t key_ = 0;
    bool on_ = false;
    bool ended_ = false;
    float since_ = 0.0f;
};

}  // namespace inputanim::detail
