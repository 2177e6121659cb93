// glTF 2.0 on the resampler's grid (docs/EXPORT.md): a scene of the head, the gaze and both
// hands' joints, one animation whose keyframes are the rows `inputanim sample` prints, converted
// to glTF's right-handed coordinates. Planned whole before the first byte (the exact size, every
// number finite, times that stay floats once shifted to 0), then made in pieces: the JSON, then
// the buffer channel by channel, each channel's curves resampled on their own, so that nothing
// the size of the output is held.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <new>
#include <string>
#include <vector>

#include "detail/export_stream.hpp"
#include "detail/export_text.hpp"
#include "detail/load.hpp"

namespace inputanim::detail {

namespace {

enum class node_kind : std::uint8_t { root, head, head_camera, gaze, hand, joint };

struct gltf_node {
    node_kind kind = node_kind::root;
    std::string_view name;
    side hand_side = side::left;
    joint j = joint::none;
    std::vector<std::size_t> children;
};

// What a channel of the animation holds, each a run of `rows` values in the buffer.
enum class channel_kind : std::uint8_t {
    // A pose's position, mirrored in x (VEC3).
    translation,
    // A pose's rotation, normalised and mirrored (VEC4).
    rotation,
    // The gaze ray's origin, mirrored in x (VEC3).
    gaze_translation,
    // The rotation that turns +z into the gaze direction, mirrored (VEC4).
    gaze_rotation,
    // A hand's scale: 1 while tracked, 0 while not (VEC3, STEP).
    scale,
};

struct channel {
    std::size_t node = 0;
    channel_kind kind = channel_kind::translation;
    // The curves it is made of, in the order its values use them.
    std::array<curve_id, 4> curves{};
    std::size_t count = 0;
    // Where its values start in the buffer.
    std::uint64_t at = 0;

    std::size_t unit() const noexcept {
        return kind == channel_kind::rotation || kind == channel_kind::gaze_rotation ? 16 : 12;
    }
    // Its values are the curves' values themselves, which glTF must hold finite.
    bool carries_values() const noexcept {
        return kind == channel_kind::translation || kind == channel_kind::gaze_translation;
    }
};

// Fixed geometry at the start of the buffer: a cube of 8 mm (8 corners, 12 triangles) the joints
// share, and the gaze ray (a line 1 m along +z).
constexpr float half = 0.004f;
constexpr std::array<float, 24> cube_positions = {
    -half, -half, -half, half, -half, -half, half, half, -half, -half, half, -half,
    -half, -half, half,  half, -half, half,  half, half, half,  -half, half, half};
constexpr std::array<std::uint16_t, 36> cube_indices = {0, 2, 1, 0, 3, 2, 4, 5, 6, 4, 6, 7,
                                                        0, 1, 5, 0, 5, 4, 3, 7, 6, 3, 6, 2,
                                                        0, 4, 7, 0, 7, 3, 1, 2, 6, 1, 6, 5};
constexpr std::array<float, 6> ray_positions = {0, 0, 0, 0, 0, 1};
constexpr std::uint64_t cube_positions_at = 0;
constexpr std::uint64_t ray_positions_at = cube_positions_at + sizeof cube_positions;
constexpr std::uint64_t cube_indices_at = ray_positions_at + sizeof ray_positions;
constexpr std::uint64_t geometry_bytes = cube_indices_at + sizeof cube_indices;  // 4-aligned
static_assert(geometry_bytes % 4 == 0);

// The geometry as the buffer holds it: little-endian on every host.
std::array<std::byte, geometry_bytes> geometry() noexcept {
    std::array<std::byte, geometry_bytes> g{};
    for (std::size_t i = 0; i < cube_positions.size(); ++i) {
        store_f32_le(g.data() + cube_positions_at + 4 * i, cube_positions[i]);
    }
    for (std::size_t i = 0; i < ray_positions.size(); ++i) {
        store_f32_le(g.data() + ray_positions_at + 4 * i, ray_positions[i]);
    }
    for (std::size_t i = 0; i < cube_indices.size(); ++i) {
        store_u16_le(g.data() + cube_indices_at + 2 * i, cube_indices[i]);
    }
    return g;
}

std::uint64_t padded4(std::uint64_t n) noexcept {
    return (n + 3) / 4 * 4;
}

std::uint64_t base64_length(std::uint64_t n) noexcept {
    return (n + 2) / 3 * 4;
}

quat gltf_rotation(quat q) noexcept {
    q = normalized(q);
    return {q.x, -q.y, -q.z, q.w};
}

// The rotation that turns +z into `d` (glTF coordinates), shortest arc; the identity for a zero
// or non-finite direction.
quat look_rotation(double dx, double dy, double dz) noexcept {
    const double n = std::sqrt(dx * dx + dy * dy + dz * dz);
    if (!(n > 0.0) || !std::isfinite(n)) return {};
    dx /= n;
    dy /= n;
    dz /= n;
    if (dz < -1.0 + 1e-12) return {0.0f, 1.0f, 0.0f, 0.0f};
    // cross(+z, d) = (-dy, dx, 0), w = 1 + dot(+z, d), then normalised.
    const double x = -dy, y = dx, w = 1.0 + dz;
    const double m = std::sqrt(x * x + y * y + w * w);
    return {static_cast<float>(x / m), static_cast<float>(y / m), 0.0f, static_cast<float>(w / m)};
}

// Whether evaluating `c` anywhere gives finite values, as far as its keys tell: finite times and
// values, tangents that are not NaN (an infinite one is a step), and weights in [0, 1] where a
// key is weighted. Evaluation saturates every value it computes to the float range, so such a
// curve cannot give NaN or infinity; any other curve is resampled once to find out.
bool keys_give_finite_values(const curve_view& c) noexcept {
    const std::byte* p = c.keys.data();
    const std::size_t stride = c.keys.stride();
    const bool full = stride == full_keyframe_size;
    for (std::size_t i = 0; i < c.keys.size(); ++i, p += stride) {
        if (!std::isfinite(load_f32_le(p)) || !std::isfinite(load_f32_le(p + 4))) return false;
        if (!full) continue;
        if (std::isnan(load_f32_le(p + 8)) || std::isnan(load_f32_le(p + 12))) return false;
        const std::int32_t mode = load_i32_le(p + 24);
        for (const int side_bit : {1, 2}) {
            if ((mode & side_bit) == 0) continue;
            const float w = load_f32_le(p + (side_bit == 1 ? 16 : 20));
            if (!(w >= 0.0f && w <= 1.0f)) return false;
        }
    }
    return true;
}

class gltf_stream final : public export_stream {
  public:
    gltf_stream(const recording& rec, const export_options& o)
        : rec_(rec), o_(o), times_(rec), pass_(rec), geometry_(geometry()) {
        build_nodes();
    }

    export_result plan() noexcept override;
    std::error_code prepare() noexcept override;
    std::span<const std::byte> next() noexcept override;

  private:
    // Accessor 0 is the times, then one per channel, then the geometry's.
    static constexpr std::size_t first_channel_accessor = 1;

    std::size_t add_node(node_kind kind, std::string_view name, std::size_t parent,
                         side s = side::left, joint j = joint::none);
    void add_pose_channels(std::size_t node, auto curve_of);
    void build_nodes();

    // The grid's rows into result_ (and, past the ceiling, the size refused); false when
    // refused.
    bool plan_grid();
    // The times' shift, first and last; false when a shifted time is not a float.
    bool plan_times();
    // The JSON's size, with the markers and pinch intervals counted; false when one of their
    // times is not finite.
    bool plan_json();
    bool find_values_not_finite();
    void lay_out() noexcept;
    std::uint64_t file_size() const noexcept;

    // The JSON's parts around the markers and the pinch intervals (all of it without an
    // animation): 0 up to the markers, 1 between them and the left hand's pinches, 2 between the
    // hands, 3 after.
    void json_part(text_target& t, int part) const;
    void json_head(text_target& t) const;
    void json_tail(text_target& t) const;
    bool animated() const noexcept { return !channels_.empty(); }
    // The text of one marker or pinch interval, as it is counted and written.
    std::size_t marker_head(const marker_view& m, bool first, char* out) const noexcept;
    std::size_t interval_text(const std::array<float, 2>& v, bool first, char* out) const noexcept;

    // Starts channel k's resampling.
    void start_channel(std::size_t k) noexcept;
    // The next binary bytes into `out` (whole values, as many as fit); 0 once all are out.
    std::size_t fill_binary(std::byte* out, std::size_t room) noexcept;
    float next_shifted_time() noexcept;
    bool next_json() noexcept;
    bool next_base64() noexcept;

    const recording& rec_;
    const export_options o_;
    std::vector<gltf_node> nodes_;
    std::vector<channel> channels_;
    // The grid with no curve selected: its times only. Then one channel's curves at a time.
    resampler times_;
    resampler pass_;
    const std::array<std::byte, geometry_bytes> geometry_;

    export_result result_;
    std::uint64_t rows_ = 0;
    std::uint64_t bin_size_ = 0;
    std::uint64_t json_size_ = 0;
    std::array<std::uint64_t, 3> streamed_sizes_{};  // markers, left pinches, right pinches
    float min_time_ = 0.0f;
    float max_time_ = 0.0f;

    // prepare()
    std::vector<std::byte> buffer_;
    std::vector<std::byte> raw_;
    std::array<std::string, 4> json_;
    bool prepared_ = false;

    // next()
    enum class stage : std::uint8_t {
        glb_header,
        json,
        json_padding,
        bin_header,
        binary,
        tail,
        done
    };
    piece_buffer piece_;
    stage stage_ = stage::done;
    int json_step_ = 0;
    std::size_t text_at_ = 0;
    marker_range::iterator marker_;
    bool marker_open_ = false;
    std::size_t name_at_ = 0;
    std::uint32_t markers_done_ = 0;
    on_intervals pinch_{nullptr, 0.0f};
    bool first_interval_ = true;
    std::uint64_t padding_left_ = 0;
    std::size_t bin_step_ = 0;
    std::uint64_t bin_at_ = 0;
    float previous_time_ = 0.0f;
    float grid_time_ = 0.0f;
    std::array<std::size_t, 4> columns_{};
    std::size_t raw_used_ = 0;
};

std::size_t gltf_stream::add_node(node_kind kind, std::string_view name, std::size_t parent, side s,
                                  joint j) {
    gltf_node n;
    n.kind = kind;
    n.name = name;
    n.hand_side = s;
    n.j = j;
    nodes_.push_back(std::move(n));
    if (kind != node_kind::root) nodes_[parent].children.push_back(nodes_.size() - 1);
    return nodes_.size() - 1;
}

void gltf_stream::add_pose_channels(std::size_t node, auto curve_of) {
    channel t{node, channel_kind::translation};
    for (const pose_channel c :
         {pose_channel::position_x, pose_channel::position_y, pose_channel::position_z}) {
        t.curves[t.count++] = curve_of(c);
    }
    channel r{node, channel_kind::rotation};
    for (const pose_channel c : {pose_channel::rotation_x, pose_channel::rotation_y,
                                 pose_channel::rotation_z, pose_channel::rotation_w}) {
        r.curves[r.count++] = curve_of(c);
    }
    channels_.push_back(t);
    channels_.push_back(r);
}

void gltf_stream::build_nodes() {
    const block_flags b = rec_.header().blocks;
    const std::size_t root = add_node(node_kind::root, "recording", 0);
    if (b.camera) {
        const std::size_t head = add_node(node_kind::head, "head", root);
        add_node(node_kind::head_camera, "head.camera", head);
        add_pose_channels(head, [](pose_channel c) { return camera_curve(c); });
    }
    if (b.gaze) {
        const std::size_t gaze = add_node(node_kind::gaze, "gaze", root);
        channel t{gaze, channel_kind::gaze_translation};
        channel r{gaze, channel_kind::gaze_rotation};
        for (const ray_channel c :
             {ray_channel::origin_x, ray_channel::origin_y, ray_channel::origin_z}) {
            t.curves[t.count++] = gaze_curve(c);
        }
        for (const ray_channel c :
             {ray_channel::direction_x, ray_channel::direction_y, ray_channel::direction_z}) {
            r.curves[r.count++] = gaze_curve(c);
        }
        channels_.push_back(t);
        channels_.push_back(r);
    }
    if (b.hands) {
        for (const side s : {side::left, side::right}) {
            const std::size_t hand =
                add_node(node_kind::hand, s == side::left ? "hand.left" : "hand.right", root, s);
            channel scale{hand, channel_kind::scale};
            scale.curves[scale.count++] = hand_state_curve(
                s == side::left ? hand_state::left_tracked : hand_state::right_tracked);
            channels_.push_back(scale);
            for (std::size_t j = 1; j < joint_count; ++j) {
                const std::size_t n =
                    add_node(node_kind::joint, joint_names[j], hand, s, static_cast<joint>(j));
                add_pose_channels(
                    n, [s, j](pose_channel c) { return joint_curve(s, static_cast<joint>(j), c); });
            }
        }
    }
}

export_result gltf_stream::plan() noexcept {
    result_ = {};
    if (!plan_grid()) return result_;
    lay_out();
    if (!plan_times() || !plan_json()) return result_;
    result_.size = file_size();
    if (result_.size > o_.max_bytes) {
        result_.error = make_error_code(export_error::too_large);
        return result_;
    }
    if (o_.format == export_format::glb && result_.size > max_glb_bytes) {
        result_.error = make_error_code(export_error::glb_too_large);
        return result_;
    }
    find_values_not_finite();
    result_.buffer_bytes =
        export_piece_bytes + (o_.format == export_format::gltf ? export_piece_bytes / 4 * 3 : 0) +
        json_size_ - streamed_sizes_[0] - streamed_sizes_[1] - streamed_sizes_[2];
    return result_;
}

bool gltf_stream::plan_grid() {
    std::uint64_t per_row = 4;
    for (const channel& c : channels_) per_row += c.unit();
    // The rows the ceiling allows, counting the buffer alone (base64 for .gltf; a .glb's 4 GiB):
    // the grid's count stops past them, so a refusal costs no more whatever the key times.
    std::uint64_t room = o_.max_bytes > geometry_bytes ? o_.max_bytes - geometry_bytes : 0;
    if (o_.format == export_format::glb) room = std::min(room, max_glb_bytes - geometry_bytes);
    const std::uint64_t max_rows =
        o_.format == export_format::gltf ? room / 4 * 3 / per_row : room / per_row;
    const grid_error g =
        times_.set_grid(o_.rate, o_.from, o_.to, std::min(max_rows, unlimited_rows));
    if (g == grid_error::too_many_rows && times_.point_count() > 0) {
        // Over the ceiling: the size the whole grid would take, exact when its rows are known.
        const std::uint64_t counted = times_.refused_rows();
        rows_ = counted != 0 ? counted : max_rows + 1;
        result_.size_is_lower_bound = counted == 0;
        result_.rows = rows_;
        bin_size_ = geometry_bytes + per_row * rows_;
        // Every point is a row: the times are the grid points' (resampler.hpp), and no two meet
        // once shifted (consecutive points are two float spacings apart at the largest time).
        const float first = times_.point_time(0);
        const float last = times_.point_time(times_.point_count() - 1);
        result_.first_time = first;
        result_.last_time = last;
        result_.time_shift = first < 0.0f ? -static_cast<double>(first) : 0.0;
        min_time_ = static_cast<float>(first + result_.time_shift);
        max_time_ = static_cast<float>(last + result_.time_shift);
        if (!std::isfinite(max_time_)) {
            result_.error = make_error_code(export_error::time_overflow);
            return false;
        }
        lay_out();
        if (!plan_json()) return false;
        result_.size = file_size();
        result_.error =
            make_error_code(o_.format == export_format::glb && result_.size <= o_.max_bytes
                                ? export_error::glb_too_large
                                : export_error::too_large);
        return false;
    }
    if (g != grid_error::none) {
        result_.error = make_error_code(g);
        return false;
    }
    rows_ = times_.row_count();
    result_.rows = rows_;
    if (rows_ == 0) {
        result_.error = make_error_code(export_error::empty_window);
        return false;
    }
    bin_size_ = geometry_bytes + per_row * rows_;
    return true;
}

float gltf_stream::next_shifted_time() noexcept {
    const float t = *times_.next({});
    grid_time_ = t;
    // Shifted times are rounded to float again; two that meet are kept apart by the smallest
    // step, as glTF wants strictly increasing times.
    float shifted = static_cast<float>(static_cast<double>(t) + result_.time_shift);
    if (times_.position() > 1 && !(shifted > previous_time_)) {
        shifted = std::nextafter(previous_time_, std::numeric_limits<float>::infinity());
    }
    previous_time_ = shifted;
    return shifted;
}

bool gltf_stream::plan_times() {
    times_.rewind();
    result_.first_time = times_.row_time(0);
    result_.time_shift = result_.first_time < 0.0 ? -result_.first_time : 0.0;
    for (std::uint64_t i = 0; i < rows_; ++i) {
        const float shifted = next_shifted_time();
        if (i == 0) min_time_ = shifted;
        max_time_ = shifted;
    }
    result_.last_time = grid_time_;
    if (!std::isfinite(max_time_)) {
        result_.error = make_error_code(export_error::time_overflow);
        return false;
    }
    return true;
}

std::size_t gltf_stream::marker_head(const marker_view& m, bool first, char* out) const noexcept {
    std::size_t n = 0;
    const auto put = [&](std::string_view s) {
        std::memcpy(out + n, s.data(), s.size());
        n += s.size();
    };
    if (!first) put(",");
    put("{\"time\":");
    n += number_chars(static_cast<double>(m.time) + result_.time_shift, out + n);
    put(",\"name\":\"");
    return n;
}

std::size_t gltf_stream::interval_text(const std::array<float, 2>& v, bool first,
                                       char* out) const noexcept {
    std::size_t n = 0;
    if (!first) out[n++] = ',';
    out[n++] = '[';
    n += number_chars(static_cast<double>(v[0]) + result_.time_shift, out + n);
    out[n++] = ',';
    n += number_chars(static_cast<double>(v[1]) + result_.time_shift, out + n);
    out[n++] = ']';
    return n;
}

bool gltf_stream::plan_json() {
    const summary& sum = rec_.summary();
    for (const std::optional<float>& t : {sum.start, sum.duration}) {
        if (t && !std::isfinite(*t)) {
            result_.fault = {export_fault::place::summary_time, {}, 0, *t};
            result_.error = make_error_code(export_error::not_finite);
            return false;
        }
    }
    streamed_sizes_ = {};
    if (animated()) {
        char text[96];
        bool first = true;
        for (const marker_view& m : rec_.markers()) {
            if (!std::isfinite(static_cast<double>(m.time) + result_.time_shift)) {
                result_.fault = {export_fault::place::marker_time, {}, m.index, m.time};
                result_.error = make_error_code(export_error::not_finite);
                return false;
            }
            streamed_sizes_[0] += marker_head(m, first, text) + quoted_length(m.name) + 2;
            first = false;
        }
        const float last = sum.duration.value_or(0.0f);
        for (const side s : {side::left, side::right}) {
            const curve_id pinching = hand_state_curve(
                s == side::left ? hand_state::left_pinching : hand_state::right_pinching);
            on_intervals intervals(rec_.find(pinching), last);
            std::array<float, 2> v{};
            first = true;
            while (intervals.next(v)) {
                for (const float t : v) {
                    if (!std::isfinite(static_cast<double>(t) + result_.time_shift)) {
                        result_.fault = {export_fault::place::key_time, pinching, 0, t};
                        result_.error = make_error_code(export_error::not_finite);
                        return false;
                    }
                }
                streamed_sizes_[s == side::left ? 1 : 2] += interval_text(v, first, text);
                first = false;
            }
        }
    }
    json_size_ = streamed_sizes_[0] + streamed_sizes_[1] + streamed_sizes_[2];
    for (int part = 0; part < 4; ++part) {
        text_target counted;
        json_part(counted, part);
        json_size_ += counted.size();
    }
    return true;
}

std::uint64_t gltf_stream::file_size() const noexcept {
    if (o_.format == export_format::glb) return 12 + 8 + padded4(json_size_) + 8 + bin_size_;
    return json_size_ + base64_length(bin_size_) + 5;
}

void gltf_stream::lay_out() noexcept {
    std::uint64_t at = geometry_bytes + 4 * rows_;
    for (channel& c : channels_) {
        c.at = at;
        at += c.unit() * rows_;
    }
}

bool gltf_stream::find_values_not_finite() {
    for (const channel& c : channels_) {
        if (!c.carries_values()) continue;
        for (std::size_t i = 0; i < c.count; ++i) {
            const curve_view* curve = rec_.find(c.curves[i]);
            if (curve == nullptr || keys_give_finite_values(*curve)) continue;
            // The plan's grid, its rows counted once.
            resampler one = times_;
            one.select(std::span(&c.curves[i], 1));
            one.rewind();
            float v = 0.0f;
            while (const std::optional<float> t = one.next(std::span(&v, 1))) {
                if (std::isfinite(v)) continue;
                result_.fault = {export_fault::place::curve_value, c.curves[i], 0, *t, v};
                result_.error = make_error_code(export_error::not_finite);
                return true;
            }
        }
    }
    return false;
}

void gltf_stream::json_head(text_target& t) const {
    const summary& sum = rec_.summary();
    t << "{\"asset\":{\"version\":\"2.0\",\"generator\":\"inputanim\",\"extras\":{\"inputanim\":{"
      << "\"version\":\"" << version_name(sum.edition, sum.major, sum.minor) << "\"";
    t << ",\"layout\":\"" << layout_name(sum.layout) << "\"";
    t << ",\"start\":";
    sum.start ? t.number(*sum.start) : t << "null";
    t << ",\"duration\":";
    sum.duration ? t.number(*sum.duration) : t << "null";
    t << ",\"rate\":";
    t.number(o_.rate);
    t << ",\"timeShift\":";
    t.number(result_.time_shift);
    t << "}}}";
    t << ",\"scene\":0,\"scenes\":[{\"name\":\"recording\",\"nodes\":[0]}]";
    t << ",\"nodes\":[";
    const block_flags blocks = rec_.header().blocks;
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
        const gltf_node& n = nodes_[i];
        if (i != 0) t << ',';
        t << "{\"name\":";
        t.quoted(n.name);
        if (!n.children.empty()) {
            t << ",\"children\":[";
            for (std::size_t c = 0; c < n.children.size(); ++c) {
                if (c != 0) t << ',';
                t.integer(n.children[c]);
            }
            t << ']';
        }
        switch (n.kind) {
            case node_kind::head_camera:
                // glTF's camera looks along -z, Unity's (and the head's, converted) along +z.
                t << ",\"camera\":0,\"rotation\":[0,1,0,0]";
                break;
            case node_kind::gaze:
                t << (blocks.hands ? ",\"mesh\":2" : ",\"mesh\":0");
                break;
            case node_kind::joint:
                t << (n.hand_side == side::left ? ",\"mesh\":0" : ",\"mesh\":1");
                break;
            default:
                break;
        }
        t << '}';
    }
    t << ']';
    if (blocks.camera) {
        t << ",\"cameras\":[{\"name\":\"head\",\"type\":\"perspective\",\"perspective\":{"
             "\"yfov\":1.0471976,\"znear\":0.01,\"zfar\":1000}}]";
    }
    // Only what a node uses: a validator reports anything else as unused. The geometry's
    // accessors follow the channels'.
    const std::size_t geometry_accessor = first_channel_accessor + channels_.size();
    const std::size_t ray_accessor = geometry_accessor + (blocks.hands ? 2 : 0);
    if (blocks.hands || blocks.gaze) {
        t << ",\"materials\":[";
        if (blocks.hands) {
            t << "{\"name\":\"hand.left\",\"pbrMetallicRoughness\":{\"baseColorFactor\":"
                 "[0.2,0.5,1,1],\"metallicFactor\":0}},"
                 "{\"name\":\"hand.right\",\"pbrMetallicRoughness\":{\"baseColorFactor\":"
                 "[1,0.45,0.2,1],\"metallicFactor\":0}}";
        }
        if (blocks.gaze) {
            if (blocks.hands) t << ',';
            t << "{\"name\":\"gaze\",\"pbrMetallicRoughness\":{\"baseColorFactor\":"
                 "[1,0.9,0.1,1],\"metallicFactor\":0}}";
        }
        t << "],\"meshes\":[";
        if (blocks.hands) {
            for (const int material : {0, 1}) {
                if (material != 0) t << ',';
                t << (material == 0 ? "{\"name\":\"joint.left\"" : "{\"name\":\"joint.right\"")
                  << ",\"primitives\":[{\"attributes\":{\"POSITION\":";
                t.integer(geometry_accessor);
                t << "},\"indices\":";
                t.integer(geometry_accessor + 1);
                t << ",\"material\":";
                t.integer(static_cast<std::uint64_t>(material));
                t << "}]}";
            }
        }
        if (blocks.gaze) {
            if (blocks.hands) t << ',';
            t << "{\"name\":\"gaze.ray\",\"primitives\":[{\"attributes\":{\"POSITION\":";
            t.integer(ray_accessor);
            t << "},\"mode\":1,\"material\":" << (blocks.hands ? "2" : "0") << "}]}";
        }
        t << ']';
    }
    t << ",\"bufferViews\":[{\"buffer\":0,\"byteOffset\":";
    t.integer(geometry_bytes);
    t << ",\"byteLength\":";
    t.integer(bin_size_ - geometry_bytes);
    t << '}';
    if (blocks.hands || blocks.gaze) {
        t << ",{\"buffer\":0,\"byteOffset\":0,\"byteLength\":";
        t.integer(sizeof cube_positions + sizeof ray_positions);
        t << ",\"byteStride\":12,\"target\":34962}";
    }
    if (blocks.hands) {
        t << ",{\"buffer\":0,\"byteOffset\":";
        t.integer(cube_indices_at);
        t << ",\"byteLength\":";
        t.integer(sizeof cube_indices);
        t << ",\"target\":34963}";
    }
    t << "],\"accessors\":[{\"bufferView\":0,\"byteOffset\":0,\"componentType\":5126,\"count\":";
    t.integer(rows_);
    t << ",\"type\":\"SCALAR\",\"min\":[";
    t.number(min_time_);
    t << "],\"max\":[";
    t.number(max_time_);
    t << "]}";
    for (const channel& c : channels_) {
        t << ",{\"bufferView\":0,\"byteOffset\":";
        t.integer(c.at - geometry_bytes);
        t << ",\"componentType\":5126,\"count\":";
        t.integer(rows_);
        t << (c.unit() == 16 ? ",\"type\":\"VEC4\"}" : ",\"type\":\"VEC3\"}");
    }
    if (blocks.hands) {
        t << ",{\"bufferView\":1,\"byteOffset\":0,\"componentType\":5126,\"count\":8,"
             "\"type\":\"VEC3\",\"min\":[";
        for (int i = 0; i < 3; ++i) (i != 0 ? t << ',' : t).number(-half);
        t << "],\"max\":[";
        for (int i = 0; i < 3; ++i) (i != 0 ? t << ',' : t).number(half);
        t << "]},{\"bufferView\":2,\"byteOffset\":0,\"componentType\":5123,\"count\":36,"
             "\"type\":\"SCALAR\",\"min\":[0],\"max\":[7]}";
    }
    if (blocks.gaze) {
        t << ",{\"bufferView\":1,\"byteOffset\":";
        t.integer(ray_positions_at);
        t << ",\"componentType\":5126,\"count\":2,\"type\":\"VEC3\",\"min\":[0,0,0],"
             "\"max\":[0,0,1]}";
    }
    t << ']';
    if (!animated()) return;
    t << ",\"animations\":[{\"name\":\"recording\",\"samplers\":[";
    for (std::size_t k = 0; k < channels_.size(); ++k) {
        t << (k != 0 ? ",{\"input\":0,\"output\":" : "{\"input\":0,\"output\":");
        t.integer(first_channel_accessor + k);
        t << (channels_[k].kind == channel_kind::scale ? ",\"interpolation\":\"STEP\"}"
                                                       : ",\"interpolation\":\"LINEAR\"}");
    }
    t << "],\"channels\":[";
    for (std::size_t k = 0; k < channels_.size(); ++k) {
        t << (k != 0 ? ",{\"sampler\":" : "{\"sampler\":");
        t.integer(k);
        t << ",\"target\":{\"node\":";
        t.integer(channels_[k].node);
        switch (channels_[k].kind) {
            case channel_kind::translation:
            case channel_kind::gaze_translation:
                t << ",\"path\":\"translation\"}}";
                break;
            case channel_kind::rotation:
            case channel_kind::gaze_rotation:
                t << ",\"path\":\"rotation\"}}";
                break;
            case channel_kind::scale:
                t << ",\"path\":\"scale\"}}";
                break;
        }
    }
    t << "],\"extras\":{\"markers\":[";
}

void gltf_stream::json_tail(text_target& t) const {
    t << ",\"buffers\":[{\"byteLength\":";
    t.integer(bin_size_);
    t << (o_.format == export_format::glb ? "}]}"
                                          : ",\"uri\":\"data:application/octet-stream;base64,");
}

void gltf_stream::json_part(text_target& t, int part) const {
    if (!animated()) {
        if (part == 0) {
            json_head(t);
            json_tail(t);
        }
        return;
    }
    switch (part) {
        case 0:
            json_head(t);
            break;
        case 1:
            t << "],\"pinch\":{\"left\":[";
            break;
        case 2:
            t << "],\"right\":[";
            break;
        default:
            t << "]}}}]";
            json_tail(t);
            break;
    }
}

std::error_code gltf_stream::prepare() noexcept {
    try {
        buffer_.resize(export_piece_bytes);
        if (o_.format == export_format::gltf) raw_.resize(export_piece_bytes / 4 * 3);
        for (int part = 0; part < 4; ++part) {
            build_text(json_[part], [&](text_target& t) { json_part(t, part); });
        }
    } catch (const std::bad_alloc&) {
        return std::make_error_code(std::errc::not_enough_memory);
    }
    piece_.attach(buffer_);
    stage_ = o_.format == export_format::glb ? stage::glb_header : stage::json;
    json_step_ = 0;
    text_at_ = 0;
    bin_step_ = 0;
    bin_at_ = 0;
    raw_used_ = 0;
    prepared_ = true;
    return {};
}

// The JSON's steps: 0, 2, 4 and 6 its prepared parts, 1 the markers, 3 and 5 the left and right
// hands' pinch intervals. True once all of it is out.
bool gltf_stream::next_json() noexcept {
    const int last_step = animated() ? 6 : 0;
    while (json_step_ <= last_step) {
        if (json_step_ % 2 == 0) {
            const std::string& text = json_[json_step_ / 2];
            text_at_ = piece_.copy_from(text, text_at_);
            if (text_at_ < text.size()) return false;
            text_at_ = 0;
            ++json_step_;
            if (json_step_ == 1) {
                marker_ = rec_.markers().begin();
                markers_done_ = 0;
                marker_open_ = false;
            } else if (json_step_ == 3 || json_step_ == 5) {
                const curve_id pinching = hand_state_curve(
                    json_step_ == 3 ? hand_state::left_pinching : hand_state::right_pinching);
                pinch_ = on_intervals(rec_.find(pinching), rec_.summary().duration.value_or(0.0f));
                first_interval_ = true;
            }
            continue;
        }
        if (json_step_ == 1) {
            const std::uint32_t count = static_cast<std::uint32_t>(rec_.markers().size());
            while (markers_done_ < count) {
                const marker_view& m = *marker_;
                if (!marker_open_) {
                    if (!piece_.fits(96)) return false;
                    piece_.advance(marker_head(m, markers_done_ == 0, piece_.cursor()));
                    marker_open_ = true;
                    name_at_ = 0;
                }
                name_at_ = piece_.quote_from(m.name, name_at_);
                if (name_at_ < m.name.size() || !piece_.fits(2)) return false;
                piece_.put("\"}");
                marker_open_ = false;
                ++marker_;
                ++markers_done_;
            }
        } else {
            std::array<float, 2> v{};
            while (piece_.fits(96)) {
                if (!pinch_.next(v)) break;
                piece_.advance(interval_text(v, first_interval_, piece_.cursor()));
                first_interval_ = false;
            }
            if (!piece_.fits(96)) return false;
        }
        ++json_step_;
    }
    return true;
}

void gltf_stream::start_channel(std::size_t k) noexcept {
    const channel& c = channels_[k];
    // The plan's grid (its rows counted once, however far from 0 its times are), this channel's
    // curves.
    pass_ = times_;
    pass_.select(std::span(c.curves.data(), c.count));
    pass_.rewind();
    // A curve the file lacks is 0.
    const std::span<const curve_id> present = pass_.curves();
    for (std::size_t i = 0; i < c.count; ++i) {
        columns_[i] = present.size();
        for (std::size_t p = 0; p < present.size(); ++p) {
            if (present[p] == c.curves[i]) columns_[i] = p;
        }
    }
}

std::size_t gltf_stream::fill_binary(std::byte* out, std::size_t room) noexcept {
    std::size_t n = 0;
    const std::size_t end = 2 + channels_.size();
    while (bin_step_ < end) {
        if (bin_step_ == 0) {
            const std::size_t k = std::min<std::uint64_t>(room - n, geometry_bytes - bin_at_);
            std::memcpy(out + n, geometry_.data() + bin_at_, k);
            n += k;
            bin_at_ += k;
            if (bin_at_ < geometry_bytes) return n;
            times_.rewind();
        } else if (bin_step_ == 1) {
            for (; bin_at_ < rows_ && room - n >= 4; ++bin_at_, n += 4) {
                store_f32_le(out + n, next_shifted_time());
            }
            if (bin_at_ < rows_) return n;
        } else {
            const channel& c = channels_[bin_step_ - 2];
            const std::size_t unit = c.unit();
            std::array<float, 5> row{};
            const auto value = [&](std::size_t i) { return row[columns_[i]]; };
            for (; bin_at_ < rows_ && room - n >= unit; ++bin_at_, n += unit) {
                pass_.next(std::span(row.data(), pass_.curves().size()));
                std::array<float, 4> v{};
                switch (c.kind) {
                    case channel_kind::translation:
                    case channel_kind::gaze_translation:
                        v = {-value(0), value(1), value(2), 0.0f};
                        break;
                    case channel_kind::rotation: {
                        const quat q = gltf_rotation({value(0), value(1), value(2), value(3)});
                        v = {q.x, q.y, q.z, q.w};
                        break;
                    }
                    case channel_kind::gaze_rotation: {
                        const quat q =
                            look_rotation(-static_cast<double>(value(0)), value(1), value(2));
                        v = {q.x, q.y, q.z, q.w};
                        break;
                    }
                    case channel_kind::scale: {
                        const float s = value(0) > 0.5f ? 1.0f : 0.0f;
                        v = {s, s, s, 0.0f};
                        break;
                    }
                }
                for (std::size_t i = 0; i < unit / 4; ++i) store_f32_le(out + n + 4 * i, v[i]);
            }
            if (bin_at_ < rows_) return n;
        }
        ++bin_step_;
        bin_at_ = 0;
        if (bin_step_ >= 2 && bin_step_ < end) start_channel(bin_step_ - 2);
    }
    return n;
}

bool gltf_stream::next_base64() noexcept {
    static constexpr char alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const std::size_t end = 2 + channels_.size();
    for (;;) {
        if (bin_step_ < end)
            raw_used_ += fill_binary(raw_.data() + raw_used_, raw_.size() - raw_used_);
        const bool last = bin_step_ == end;
        const auto* p = reinterpret_cast<const unsigned char*>(raw_.data());
        const std::size_t groups = std::min(raw_used_ / 3, piece_.room() / 4);
        char* out = piece_.cursor();
        for (std::size_t g = 0; g < groups; ++g, p += 3, out += 4) {
            const std::uint32_t v = (p[0] << 16) | (p[1] << 8) | p[2];
            out[0] = alphabet[v >> 18];
            out[1] = alphabet[(v >> 12) & 63];
            out[2] = alphabet[(v >> 6) & 63];
            out[3] = alphabet[v & 63];
        }
        piece_.advance(4 * groups);
        std::size_t consumed = 3 * groups;
        const std::size_t left = raw_used_ - consumed;
        if (last && left > 0 && left < 3 && piece_.fits(4)) {
            const std::uint32_t v = (p[0] << 16) | (left > 1 ? p[1] << 8 : 0);
            out[0] = alphabet[v >> 18];
            out[1] = alphabet[(v >> 12) & 63];
            out[2] = left > 1 ? alphabet[(v >> 6) & 63] : '=';
            out[3] = '=';
            piece_.advance(4);
            consumed = raw_used_;
        }
        std::memmove(raw_.data(), raw_.data() + consumed, raw_used_ - consumed);
        raw_used_ -= consumed;
        if (last && raw_used_ == 0) return true;
        if (!piece_.fits(4)) return false;
    }
}

std::span<const std::byte> gltf_stream::next() noexcept {
    piece_.clear();
    if (!prepared_) return {};
    const auto u32 = [this](std::uint64_t v) {
        store_u32_le(piece_.byte_cursor(), static_cast<std::uint32_t>(v));
        piece_.advance(4);
    };
    while (stage_ != stage::done) {
        switch (stage_) {
            case stage::glb_header:
                piece_.put("glTF");
                u32(2);
                u32(result_.size);
                u32(padded4(json_size_));
                piece_.put("JSON");
                stage_ = stage::json;
                break;
            case stage::json:
                if (!next_json()) return piece_.taken();
                padding_left_ = padded4(json_size_) - json_size_;
                stage_ = o_.format == export_format::glb ? stage::json_padding : stage::binary;
                break;
            case stage::json_padding:
                for (; padding_left_ > 0 && piece_.fits(1); --padding_left_) piece_.put(' ');
                if (padding_left_ > 0) return piece_.taken();
                stage_ = stage::bin_header;
                break;
            case stage::bin_header:
                if (!piece_.fits(8)) return piece_.taken();
                u32(bin_size_);
                piece_.put(std::string_view("BIN\0", 4));
                stage_ = stage::binary;
                break;
            case stage::binary:
                if (o_.format == export_format::gltf) {
                    if (!next_base64()) return piece_.taken();
                    stage_ = stage::tail;
                    break;
                }
                piece_.advance(fill_binary(piece_.byte_cursor(), piece_.room()));
                if (bin_step_ < 2 + channels_.size()) return piece_.taken();
                stage_ = stage::done;
                break;
            case stage::tail:
                if (!piece_.fits(5)) return piece_.taken();
                piece_.put("\"}]}\n");
                stage_ = stage::done;
                break;
            case stage::done:
                break;
        }
    }
    return piece_.taken();
}

}  // namespace

bool on_intervals::next(std::array<float, 2>& out) noexcept {
    if (curve_ != nullptr) {
        while (key_ < curve_->keys.size()) {
            const keyframe_view k = curve_->keys[key_++];
            const bool now = k.value() > 0.5f;
            if (now && !on_) since_ = k.time();
            const bool ended = !now && on_;
            on_ = now;
            if (ended) {
                out = {since_, k.time()};
                return true;
            }
        }
    }
    if (on_ && !ended_) {
        ended_ = true;
        out = {since_, std::max(since_, last_)};
        return true;
    }
    return false;
}

std::unique_ptr<export_stream> make_gltf_stream(const recording& rec, const export_options& o) {
    return std::make_unique<gltf_stream>(rec, o);
}

}  // namespace inputanim::detail
