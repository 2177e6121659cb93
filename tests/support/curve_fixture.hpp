// A written and reopened file that holds one curve with given keys, for evaluation tests.
#pragma once

#include <utility>
#include <vector>

#include "support/builders.hpp"

namespace inputanim::testing {

class curve_fixture {
  public:
    // Every curve of `s` is present and empty except `id`, which gets `keys` and the wrap modes.
    explicit curve_fixture(std::vector<keyframe> keys, shape s = shape::v11_full,
                           std::int32_t pre_wrap = 8, std::int32_t post_wrap = 8,
                           curve_id id = camera_curve(pose_channel::position_x))
        : id_(id) {
        model m = empty_model(s);
        m[id].pre_wrap = pre_wrap;
        m[id].post_wrap = post_wrap;
        m[id].keys = std::move(keys);
        bytes_ = write(m);
        open_error_ = rec_.open(view(bytes_));
    }
    // The recording points into bytes_.
    curve_fixture(const curve_fixture&) = delete;
    curve_fixture& operator=(const curve_fixture&) = delete;

    const error& open_error() const { return open_error_; }
    const curve_view& curve() const { return *rec_.find(id_); }
    const recording& rec() const { return rec_; }
    float operator()(float t) const { return evaluate(curve(), t); }

  private:
    curve_id id_;
    bytes bytes_;
    recording rec_;
    error open_error_;
};

}  // namespace inputanim::testing
