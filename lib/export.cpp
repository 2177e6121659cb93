// The exporters (inputanim/export.hpp, docs/EXPORT.md): glTF 2.0 on the resampler's grid, and
// Unity's text AnimationClip with the recording's own keys.
#include "inputanim/export.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "detail/load.hpp"
#include "detail/utf8.hpp"

namespace inputanim {

std::string_view export_format_name(export_format f) noexcept {
    switch (f) {
        case export_format::glb:
            return "glb";
        case export_format::gltf:
            return "gltf";
        case export_format::anim:
            return "anim";
    }
    return "unknown";
}

std::optional<export_format> parse_export_format_name(std::string_view name) noexcept {
    for (const export_format f : {export_format::glb, export_format::gltf, export_format::anim}) {
        if (name == export_format_name(f)) return f;
    }
    return std::nullopt;
}

std::string_view export_error_name(export_error e) noexcept {
    switch (e) {
        case export_error::none:
            return "none";
        case export_error::empty_window:
            return "empty_window";
        case export_error::too_large:
            return "too_large";
        case export_error::window_not_supported:
            return "window_not_supported";
    }
    return "unknown";
}

namespace {

class export_category final : public std::error_category {
  public:
    const char* name() const noexcept override { return "inputanim.export"; }
    std::string message(int value) const override {
        switch (static_cast<export_error>(value)) {
            case export_error::none:
                return "no error";
            case export_error::empty_window:
                return "the time window holds no grid point of the recording";
            case export_error::too_large:
                return "the export would be larger than allowed";
            case export_error::window_not_supported:
                return "a Unity clip carries the recording's keys as they are: no time window";
        }
        return "unknown error";
    }
};

// Text collected and handed to the sink 64 KiB at a time; the first failure stays.
class text_out {
  public:
    explicit text_out(byte_sink& sink) : sink_(sink) { text_.reserve(chunk + 256); }

    text_out& operator<<(std::string_view s) {
        text_ += s;
        if (text_.size() >= chunk) flush();
        return *this;
    }
    text_out& operator<<(char c) {
        text_ += c;
        return *this;
    }
    // In slices of `chunk`: a sink may buffer what it is handed (output_file copies a write
    // whole), and the buffer is already the output's size.
    void bytes(std::span<const std::byte> b) {
        flush();
        while (!b.empty()) {
            const std::size_t n = std::min(b.size(), chunk);
            put(b.first(n));
            b = b.subspan(n);
        }
    }
    void flush() {
        put(std::as_bytes(std::span(text_.data(), text_.size())));
        text_.clear();
    }
    std::error_code error() const noexcept { return error_; }
    std::uint64_t written() const noexcept { return written_; }

  private:
    static constexpr std::size_t chunk = std::size_t{64} << 10;
    void put(std::span<const std::byte> b) {
        if (error_ || b.empty()) return;
        error_ = sink_.write(b);
        if (!error_) written_ += b.size();
    }
    byte_sink& sink_;
    std::string text_;
    std::error_code error_;
    std::uint64_t written_ = 0;
};

// The shortest text that reads back as the same float (std::to_chars); `nan` and `inf` as
// `special` spells them.
std::string float_text(float v, bool unity) {
    if (std::isnan(v)) return unity ? "NaN" : "null";
    if (std::isinf(v)) return unity ? (v > 0 ? "Infinity" : "-Infinity") : "null";
    char digits[32];
    const auto r = std::to_chars(digits, digits + sizeof digits, v);
    return {digits, r.ptr};
}

// The shortest text of a double; `null` when it is not finite (a time of a file checked only at
// level structure may be NaN, which JSON cannot hold).
std::string json_double(double v) {
    if (!std::isfinite(v)) return "null";
    char digits[32];
    const auto r = std::to_chars(digits, digits + sizeof digits, v);
    return {digits, r.ptr};
}

// `s` as the body of a double-quoted string: JSON's escapes, which YAML's double-quoted style
// reads the same; bytes that are not UTF-8 (a file checked only at level structure) become U+FFFD.
std::string quoted_text(std::string_view s) {
    std::string out;
    out.reserve(s.size() + 2);
    out += '"';
    while (!s.empty()) {
        const std::size_t valid = detail::valid_utf8_prefix(s);
        for (const char c : s.substr(0, valid)) {
            const auto u = static_cast<unsigned char>(c);
            if (c == '"' || c == '\\') {
                out += '\\';
                out += c;
            } else if (u < 0x20 || u == 0x7f) {
                static constexpr char hex[] = "0123456789abcdef";
                out += "\\u00";
                out += hex[u >> 4];
                out += hex[u & 15];
            } else {
                out += c;
            }
        }
        s.remove_prefix(valid);
        if (!s.empty()) {
            out += "\\ufffd";
            s.remove_prefix(1);
        }
    }
    out += '"';
    return out;
}

// The most bytes quoted_text writes for `n` bytes of a name (a control byte is 6).
constexpr std::uint64_t quoted_bound(std::uint64_t n) {
    return 6 * n + 2;
}

// The intervals in which a bool curve is on (value > 0.5, a step at each key), each as
// [start, end]; an interval still on at the last key ends at `last`.
std::vector<std::array<float, 2>> on_intervals(const curve_view* c, float last) {
    std::vector<std::array<float, 2>> out;
    if (c == nullptr) return out;
    bool on = false;
    float since = 0.0f;
    for (const keyframe_view k : c->keys) {
        const bool now = k.value() > 0.5f;
        if (now && !on) since = k.time();
        if (!now && on) out.push_back({since, k.time()});
        on = now;
    }
    if (on) out.push_back({since, std::max(since, last)});
    return out;
}

// ---------------------------------------------------------------------------------------------
// glTF

// The nodes of the scene, in order.
enum class node_kind : std::uint8_t { root, head, head_camera, gaze, hand, joint };

struct gltf_node {
    node_kind kind = node_kind::root;
    std::string name;
    side hand_side = side::left;
    joint j = joint::none;
    std::vector<std::size_t> children;
    // Accessors of its channels (translation/rotation, or scale for a hand); npos: none.
    std::size_t translation = npos;
    std::size_t rotation = npos;
    std::size_t scale = npos;
    // Where its channels' data starts in the buffer.
    std::uint64_t translation_at = 0;
    std::uint64_t rotation_at = 0;
    std::uint64_t scale_at = 0;
    static constexpr std::size_t npos = static_cast<std::size_t>(-1);
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

std::uint64_t padded4(std::uint64_t n) {
    return (n + 3) / 4 * 4;
}

// glTF's buffers and the .glb framing are little-endian, on every host.
void put_f32(std::vector<std::byte>& bin, std::uint64_t at, float v) {
    detail::store_f32_le(bin.data() + at, v);
}

quat gltf_rotation(quat q) {
    q = normalized(q);
    return {q.x, -q.y, -q.z, q.w};
}

// The rotation that turns +z into `d` (glTF coordinates), shortest arc; the identity for a zero
// or non-finite direction.
quat look_rotation(double dx, double dy, double dz) {
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

class gltf_exporter {
  public:
    gltf_exporter(const recording& rec, const export_options& o) : rec_(rec), o_(o), rs_(rec) {}

    export_result run(byte_sink& sink) {
        export_result r;
        build_nodes();
        select_curves();
        // Bytes per row: its time, then each channel's value.
        std::uint64_t per_row = 4;
        for (const gltf_node& n : nodes_) {
            if (n.kind == node_kind::head || n.kind == node_kind::gaze ||
                n.kind == node_kind::joint) {
                per_row += 12 + 16;
            } else if (n.kind == node_kind::hand) {
                per_row += 12;
            }
        }
        // The rows the ceiling allows, counting the buffer alone (base64 for .gltf); the JSON is
        // added once known.
        const std::uint64_t room =
            o_.max_bytes > geometry_bytes ? o_.max_bytes - geometry_bytes : 0;
        const std::uint64_t max_rows =
            o_.format == export_format::gltf ? room / 4 * 3 / per_row : room / per_row;
        const grid_error g =
            rs_.set_grid(o_.rate, o_.from, o_.to, std::min(max_rows, unlimited_rows));
        if (g == grid_error::too_many_rows) {
            r.error = make_error_code(export_error::too_large);
            r.size = geometry_bytes + per_row * rs_.point_count();
            return r;
        }
        if (g != grid_error::none) {
            r.error = make_error_code(g);
            return r;
        }
        rows_ = rs_.row_count();
        r.rows = rows_;
        if (rows_ == 0) {
            r.error = make_error_code(export_error::empty_window);
            return r;
        }
        bin_size_ = geometry_bytes + per_row * rows_;
        lay_out();
        fill_buffer(r.time_shift);
        const std::string json = make_json(r.time_shift);
        const std::uint64_t json_padded = padded4(json.size());
        std::uint64_t size = 0;
        std::string uri_head;
        if (o_.format == export_format::glb) {
            size = 12 + 8 + json_padded + 8 + bin_size_;
        } else {
            uri_head = "{\"byteLength\":" + std::to_string(bin_size_) +
                       ",\"uri\":\"data:application/octet-stream;base64,";
            size = json.size() + uri_head.size() + (bin_size_ + 2) / 3 * 4 + 5;
        }
        r.size = size;
        if (size > o_.max_bytes) {
            r.error = make_error_code(export_error::too_large);
            return r;
        }
        text_out out(sink);
        if (o_.format == export_format::glb) {
            write_glb(out, json, json_padded);
        } else {
            out << json << uri_head;
            write_base64(out);
            out << "\"}]}\n";
        }
        out.flush();
        r.error = out.error();
        r.written = out.written();
        return r;
    }

  private:
    bool has_channels() const {
        return std::any_of(nodes_.begin(), nodes_.end(), [](const gltf_node& n) {
            return n.translation != gltf_node::npos || n.scale != gltf_node::npos;
        });
    }

    // Adds a node as the last child of `parent` (none for the root) and returns its index.
    std::size_t add_node(node_kind kind, std::string_view name, std::size_t parent,
                         side s = side::left, joint j = joint::none) {
        gltf_node n;
        n.kind = kind;
        n.name = name;
        n.hand_side = s;
        n.j = j;
        nodes_.push_back(std::move(n));
        if (parent != gltf_node::npos) nodes_[parent].children.push_back(nodes_.size() - 1);
        return nodes_.size() - 1;
    }

    void build_nodes() {
        const block_flags b = rec_.header().blocks;
        const std::size_t root = add_node(node_kind::root, "recording", gltf_node::npos);
        if (b.camera) {
            add_node(node_kind::head_camera, "head.camera",
                     add_node(node_kind::head, "head", root));
        }
        if (b.gaze) add_node(node_kind::gaze, "gaze", root);
        if (b.hands) {
            for (const side s : {side::left, side::right}) {
                const std::size_t hand = add_node(
                    node_kind::hand, s == side::left ? "hand.left" : "hand.right", root, s);
                for (std::size_t j = 1; j < joint_count; ++j) {
                    add_node(node_kind::joint, joint_names[j], hand, s, static_cast<joint>(j));
                }
            }
        }
    }

    // The resampler's column of a curve, or npos when the file lacks it.
    std::size_t column(curve_id id) const { return columns_[to_index(id)]; }

    void select_curves() {
        columns_.fill(gltf_node::npos);
        std::array<curve_id, curve_id_count> wanted{};
        std::size_t count = 0;
        const auto pick = [&](curve_id id) { wanted[count++] = id; };
        for (std::size_t c = 0; c < pose_channel_count; ++c) {
            pick(camera_curve(static_cast<pose_channel>(c)));
        }
        for (std::size_t c = 0; c < ray_channel_count; ++c) {
            pick(gaze_curve(static_cast<ray_channel>(c)));
        }
        pick(hand_state_curve(hand_state::left_tracked));
        pick(hand_state_curve(hand_state::right_tracked));
        for (const side s : {side::left, side::right}) {
            for (std::size_t j = 1; j < joint_count; ++j) {
                for (std::size_t c = 0; c < pose_channel_count; ++c) {
                    pick(joint_curve(s, static_cast<joint>(j), static_cast<pose_channel>(c)));
                }
            }
        }
        rs_.select(std::span(wanted.data(), count));
        const std::span<const curve_id> ids = rs_.curves();
        for (std::size_t i = 0; i < ids.size(); ++i) columns_[to_index(ids[i])] = i;
    }

    // Assigns accessors and buffer offsets to the channels: times first, then each node's.
    void lay_out() {
        std::size_t accessor = first_animation_accessor;
        std::uint64_t at = geometry_bytes + 4 * rows_;
        for (gltf_node& n : nodes_) {
            if (n.kind == node_kind::head || n.kind == node_kind::gaze ||
                n.kind == node_kind::joint) {
                n.translation = accessor++;
                n.translation_at = at;
                at += 12 * rows_;
                n.rotation = accessor++;
                n.rotation_at = at;
                at += 16 * rows_;
            } else if (n.kind == node_kind::hand) {
                n.scale = accessor++;
                n.scale_at = at;
                at += 12 * rows_;
            }
        }
    }

    float value(std::span<const float> row, curve_id id) const {
        const std::size_t c = column(id);
        return c == gltf_node::npos ? 0.0f : row[c];
    }

    void fill_buffer(double& shift) {
        bin_.assign(bin_size_, std::byte{0});
        for (std::size_t i = 0; i < cube_positions.size(); ++i) {
            put_f32(bin_, cube_positions_at + 4 * i, cube_positions[i]);
        }
        for (std::size_t i = 0; i < ray_positions.size(); ++i) {
            put_f32(bin_, ray_positions_at + 4 * i, ray_positions[i]);
        }
        for (std::size_t i = 0; i < cube_indices.size(); ++i) {
            detail::store_u16_le(bin_.data() + cube_indices_at + 2 * i, cube_indices[i]);
        }
        std::vector<float> row(rs_.curves().size());
        rs_.rewind();
        const std::uint64_t times_at = geometry_bytes;
        float previous = 0.0f;
        for (std::uint64_t i = 0; i < rows_; ++i) {
            const float t = *rs_.next(row);
            if (i == 0) shift = t < 0.0f ? -static_cast<double>(t) : 0.0;
            // Shifted times are rounded to float again; two that meet are kept apart by the
            // smallest step, as glTF wants strictly increasing times.
            float shifted = static_cast<float>(static_cast<double>(t) + shift);
            if (i != 0 && !(shifted > previous)) {
                shifted = std::nextafter(previous, std::numeric_limits<float>::infinity());
            }
            previous = shifted;
            put_f32(bin_, times_at + 4 * i, shifted);
            if (i == 0) min_time_ = shifted;
            max_time_ = shifted;
            for (const gltf_node& n : nodes_) write_row(n, row, i);
        }
    }

    void write_pose(const gltf_node& n, std::uint64_t i, const pose& p) {
        const quat q = gltf_rotation(p.rotation);
        const std::array<float, 7> v = {-p.position.x, p.position.y, p.position.z, q.x,
                                        q.y,           q.z,          q.w};
        for (std::size_t k = 0; k < 3; ++k) put_f32(bin_, n.translation_at + 12 * i + 4 * k, v[k]);
        for (std::size_t k = 0; k < 4; ++k) {
            put_f32(bin_, n.rotation_at + 16 * i + 4 * k, v[3 + k]);
        }
    }

    void write_row(const gltf_node& n, std::span<const float> row, std::uint64_t i) {
        const auto read_pose = [&](auto curve_of) {
            pose p;
            p.position = {value(row, curve_of(pose_channel::position_x)),
                          value(row, curve_of(pose_channel::position_y)),
                          value(row, curve_of(pose_channel::position_z))};
            p.rotation = {value(row, curve_of(pose_channel::rotation_x)),
                          value(row, curve_of(pose_channel::rotation_y)),
                          value(row, curve_of(pose_channel::rotation_z)),
                          value(row, curve_of(pose_channel::rotation_w))};
            return p;
        };
        switch (n.kind) {
            case node_kind::head:
                write_pose(n, i, read_pose([](pose_channel c) { return camera_curve(c); }));
                break;
            case node_kind::joint:
                write_pose(n, i, read_pose([&](pose_channel c) {
                               return joint_curve(n.hand_side, n.j, c);
                           }));
                break;
            case node_kind::gaze: {
                const auto g = [&](ray_channel c) { return value(row, gaze_curve(c)); };
                const quat q =
                    look_rotation(-static_cast<double>(g(ray_channel::direction_x)),
                                  g(ray_channel::direction_y), g(ray_channel::direction_z));
                const std::array<float, 7> v = {-g(ray_channel::origin_x),
                                                g(ray_channel::origin_y),
                                                g(ray_channel::origin_z),
                                                q.x,
                                                q.y,
                                                q.z,
                                                q.w};
                for (std::size_t k = 0; k < 3; ++k) {
                    put_f32(bin_, n.translation_at + 12 * i + 4 * k, v[k]);
                }
                for (std::size_t k = 0; k < 4; ++k) {
                    put_f32(bin_, n.rotation_at + 16 * i + 4 * k, v[3 + k]);
                }
                break;
            }
            case node_kind::hand: {
                const curve_id tracked =
                    hand_state_curve(n.hand_side == side::left ? hand_state::left_tracked
                                                               : hand_state::right_tracked);
                const float s = value(row, tracked) > 0.5f ? 1.0f : 0.0f;
                for (std::size_t k = 0; k < 3; ++k) put_f32(bin_, n.scale_at + 12 * i + 4 * k, s);
                break;
            }
            case node_kind::root:
            case node_kind::head_camera:
                break;
        }
    }

    std::string make_json(double shift) const {
        std::string j;
        j.reserve(16384);
        const summary& sum = rec_.summary();
        j += "{\"asset\":{\"version\":\"2.0\",\"generator\":\"inputanim\",\"extras\":{"
             "\"inputanim\":{";
        j += "\"version\":\"" + std::string(version_name(sum.edition, sum.major, sum.minor)) + "\"";
        j += ",\"layout\":\"" + std::string(layout_name(sum.layout)) + "\"";
        j += ",\"start\":" + (sum.start ? float_text(*sum.start, false) : std::string("null"));
        j += ",\"duration\":" +
             (sum.duration ? float_text(*sum.duration, false) : std::string("null"));
        j += ",\"rate\":" + json_double(o_.rate);
        j += ",\"timeShift\":" + json_double(shift) + "}}}";
        j += ",\"scene\":0,\"scenes\":[{\"name\":\"recording\",\"nodes\":[0]}]";
        j += ",\"nodes\":[";
        for (std::size_t i = 0; i < nodes_.size(); ++i) {
            const gltf_node& n = nodes_[i];
            if (i != 0) j += ',';
            j += "{\"name\":" + quoted_text(n.name);
            if (!n.children.empty()) {
                j += ",\"children\":[";
                for (std::size_t c = 0; c < n.children.size(); ++c) {
                    if (c != 0) j += ',';
                    j += std::to_string(n.children[c]);
                }
                j += ']';
            }
            switch (n.kind) {
                case node_kind::head_camera:
                    // glTF's camera looks along -z, Unity's (and the head's, converted) along +z.
                    j += ",\"camera\":0,\"rotation\":[0,1,0,0]";
                    break;
                case node_kind::gaze:
                    j += rec_.header().blocks.hands ? ",\"mesh\":2" : ",\"mesh\":0";
                    break;
                case node_kind::joint:
                    j += n.hand_side == side::left ? ",\"mesh\":0" : ",\"mesh\":1";
                    break;
                default:
                    break;
            }
            j += '}';
        }
        j += ']';
        const block_flags blocks = rec_.header().blocks;
        if (blocks.camera) {
            j += ",\"cameras\":[{\"name\":\"head\",\"type\":\"perspective\",\"perspective\":{"
                 "\"yfov\":1.0471976,\"znear\":0.01,\"zfar\":1000}}]";
        }
        // Only what a node uses: a validator reports anything else as unused.
        const std::string count = std::to_string(rows_);
        std::string accessors =
            "{\"bufferView\":0,\"byteOffset\":0,\"componentType\":5126,"
            "\"count\":" +
            count + ",\"type\":\"SCALAR\",\"min\":[" + float_text(min_time_, false) +
            "],\"max\":[" + float_text(max_time_, false) + "]}";
        std::size_t next_accessor = 1;
        for (const gltf_node& n : nodes_) {
            const auto accessor = [&](std::uint64_t at, const char* type) {
                accessors +=
                    ",{\"bufferView\":0,\"byteOffset\":" + std::to_string(at - geometry_bytes) +
                    ",\"componentType\":5126,\"count\":" + count + ",\"type\":\"" + type + "\"}";
                ++next_accessor;
            };
            if (n.translation != gltf_node::npos) {
                accessor(n.translation_at, "VEC3");
                accessor(n.rotation_at, "VEC4");
            }
            if (n.scale != gltf_node::npos) accessor(n.scale_at, "VEC3");
        }
        std::string views = "{\"buffer\":0,\"byteOffset\":" + std::to_string(geometry_bytes) +
                            ",\"byteLength\":" + std::to_string(bin_size_ - geometry_bytes) + "}";
        std::string materials;
        std::string meshes;
        if (blocks.hands || blocks.gaze) {
            views += ",{\"buffer\":0,\"byteOffset\":0,\"byteLength\":" +
                     std::to_string(sizeof cube_positions + sizeof ray_positions) +
                     ",\"byteStride\":12,\"target\":34962}";
        }
        if (blocks.hands) {
            const std::string h = float_text(half, false);
            const std::string nh = float_text(-half, false);
            views += ",{\"buffer\":0,\"byteOffset\":" + std::to_string(cube_indices_at) +
                     ",\"byteLength\":" + std::to_string(sizeof cube_indices) +
                     ",\"target\":34963}";
            accessors +=
                ",{\"bufferView\":1,\"byteOffset\":0,\"componentType\":5126,\"count\":8,"
                "\"type\":\"VEC3\",\"min\":[" +
                nh + "," + nh + "," + nh + "],\"max\":[" + h + "," + h + "," + h + "]}";
            accessors +=
                ",{\"bufferView\":2,\"byteOffset\":0,\"componentType\":5123,\"count\":36,"
                "\"type\":\"SCALAR\",\"min\":[0],\"max\":[7]}";
            const std::string positions = std::to_string(next_accessor);
            const std::string indices = std::to_string(next_accessor + 1);
            next_accessor += 2;
            materials +=
                "{\"name\":\"hand.left\",\"pbrMetallicRoughness\":{\"baseColorFactor\":"
                "[0.2,0.5,1,1],\"metallicFactor\":0}},"
                "{\"name\":\"hand.right\",\"pbrMetallicRoughness\":{\"baseColorFactor\":"
                "[1,0.45,0.2,1],\"metallicFactor\":0}}";
            meshes += "{\"name\":\"joint.left\",\"primitives\":[{\"attributes\":{\"POSITION\":" +
                      positions + "},\"indices\":" + indices + ",\"material\":0}]},";
            meshes += "{\"name\":\"joint.right\",\"primitives\":[{\"attributes\":{\"POSITION\":" +
                      positions + "},\"indices\":" + indices + ",\"material\":1}]}";
        }
        if (blocks.gaze) {
            accessors += ",{\"bufferView\":1,\"byteOffset\":" + std::to_string(ray_positions_at) +
                         ",\"componentType\":5126,\"count\":2,\"type\":\"VEC3\",\"min\":[0,0,0],"
                         "\"max\":[0,0,1]}";
            const std::string material = blocks.hands ? "2" : "0";
            if (!materials.empty()) materials += ',';
            materials +=
                "{\"name\":\"gaze\",\"pbrMetallicRoughness\":{\"baseColorFactor\":"
                "[1,0.9,0.1,1],\"metallicFactor\":0}}";
            if (!meshes.empty()) meshes += ',';
            meshes += "{\"name\":\"gaze.ray\",\"primitives\":[{\"attributes\":{\"POSITION\":" +
                      std::to_string(next_accessor) + "},\"mode\":1,\"material\":" + material +
                      "}]}";
        }
        if (!materials.empty()) j += ",\"materials\":[" + materials + "]";
        if (!meshes.empty()) j += ",\"meshes\":[" + meshes + "]";
        j += ",\"bufferViews\":[" + views + "]";
        j += ",\"accessors\":[" + accessors + "]";
        if (has_channels()) append_animation(j, shift);
        j += ",\"buffers\":[";
        if (o_.format == export_format::glb) {
            j += "{\"byteLength\":" + std::to_string(bin_size_) + "}]}";
        }
        return j;
    }

    void append_animation(std::string& j, double shift) const {
        std::string samplers;
        std::string channels;
        std::size_t sampler = 0;
        const auto channel = [&](std::size_t node, std::size_t output, const char* path,
                                 const char* interpolation) {
            if (sampler != 0) {
                samplers += ',';
                channels += ',';
            }
            samplers += "{\"input\":" + std::to_string(first_animation_accessor - 1) +
                        ",\"output\":" + std::to_string(output) + ",\"interpolation\":\"" +
                        interpolation + "\"}";
            channels += "{\"sampler\":" + std::to_string(sampler) +
                        ",\"target\":{\"node\":" + std::to_string(node) + ",\"path\":\"" + path +
                        "\"}}";
            ++sampler;
        };
        for (std::size_t i = 0; i < nodes_.size(); ++i) {
            const gltf_node& n = nodes_[i];
            if (n.translation != gltf_node::npos) {
                channel(i, n.translation, "translation", "LINEAR");
                channel(i, n.rotation, "rotation", "LINEAR");
            }
            if (n.scale != gltf_node::npos) channel(i, n.scale, "scale", "STEP");
        }
        j += ",\"animations\":[{\"name\":\"recording\",\"samplers\":[" + samplers +
             "],\"channels\":[" + channels + "],\"extras\":{\"markers\":[";
        bool first = true;
        for (const marker_view& m : rec_.markers()) {
            if (!first) j += ',';
            first = false;
            j += "{\"time\":" + json_double(static_cast<double>(m.time) + shift) +
                 ",\"name\":" + quoted_text(m.name) + "}";
        }
        j += "],\"pinch\":{";
        const float last = rec_.summary().duration.value_or(0.0f);
        for (const side s : {side::left, side::right}) {
            j += s == side::left ? "\"left\":[" : ",\"right\":[";
            const auto intervals = on_intervals(
                rec_.hand(s == side::left ? hand_state::left_pinching : hand_state::right_pinching),
                last);
            for (std::size_t k = 0; k < intervals.size(); ++k) {
                if (k != 0) j += ',';
                j += '[';
                j += json_double(intervals[k][0] + shift);
                j += ',';
                j += json_double(intervals[k][1] + shift);
                j += ']';
            }
            j += ']';
        }
        j += "}}}]";
    }

    void write_glb(text_out& out, const std::string& json, std::uint64_t json_padded) {
        const auto u32 = [](std::uint32_t v) {
            std::array<std::byte, 4> b{};
            detail::store_u32_le(b.data(), v);
            return std::string(reinterpret_cast<const char*>(b.data()), 4);
        };
        const std::uint64_t total = 12 + 8 + json_padded + 8 + bin_size_;
        out << "glTF" << u32(2) << u32(static_cast<std::uint32_t>(total));
        out << u32(static_cast<std::uint32_t>(json_padded)) << "JSON" << json;
        out << std::string(json_padded - json.size(), ' ');
        out << u32(static_cast<std::uint32_t>(bin_size_)) << std::string_view("BIN\0", 4);
        out.bytes(bin_);
    }

    void write_base64(text_out& out) const {
        static constexpr char alphabet[] =
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        std::string chunk;
        chunk.reserve(65536 + 4);
        const auto* p = reinterpret_cast<const unsigned char*>(bin_.data());
        const std::size_t n = bin_.size();
        std::size_t i = 0;
        for (; i + 3 <= n; i += 3) {
            const std::uint32_t v = (p[i] << 16) | (p[i + 1] << 8) | p[i + 2];
            chunk += alphabet[v >> 18];
            chunk += alphabet[(v >> 12) & 63];
            chunk += alphabet[(v >> 6) & 63];
            chunk += alphabet[v & 63];
            if (chunk.size() >= 65536) {
                out << chunk;
                chunk.clear();
            }
        }
        if (i < n) {
            const std::uint32_t v = (p[i] << 16) | (i + 1 < n ? p[i + 1] << 8 : 0);
            chunk += alphabet[v >> 18];
            chunk += alphabet[(v >> 12) & 63];
            chunk += i + 1 < n ? alphabet[(v >> 6) & 63] : '=';
            chunk += '=';
        }
        out << chunk;
    }

    // Accessor 0 is the times, then the channels' outputs, then the geometry's.
    static constexpr std::size_t first_animation_accessor = 1;

    const recording& rec_;
    const export_options& o_;
    resampler rs_;
    std::vector<gltf_node> nodes_;
    std::array<std::size_t, curve_id_count> columns_{};
    std::uint64_t rows_ = 0;
    std::uint64_t bin_size_ = 0;
    std::vector<std::byte> bin_;
    float min_time_ = 0.0f;
    float max_time_ = 0.0f;
};

// ---------------------------------------------------------------------------------------------
// Unity AnimationClip

// The most bytes one key takes in the clip: the fixed text and six floats of at most 15
// characters each.
constexpr std::uint64_t unity_key_bound = 180 + 6 * 15;
// A curve's text besides its keys and path.
constexpr std::uint64_t unity_curve_bound = 320;
constexpr std::uint64_t unity_event_bound = 200;
constexpr std::uint64_t unity_fixed_bound = 4096;

// Unity's wrap modes as its serialised AnimationCurve stores them (m_PreInfinity,
// m_PostInfinity): PingPong 0, Repeat 1, Clamp 2. WrapMode Loop (2) repeats and PingPong (4)
// reflects; every other mode holds the end value (FORMAT.md section 7).
int unity_infinity(std::int32_t wrap) {
    if (wrap == 2) return 1;
    if (wrap == 4) return 0;
    return 2;
}

struct unity_binding {
    std::string path;
    std::string attribute;
    int class_id = 4;
};

// Where a curve of the recording is bound in the clip (docs/EXPORT.md).
unity_binding unity_binding_of(curve_id id) {
    static constexpr std::array<std::string_view, pose_channel_count> pose_attributes = {
        "m_LocalPosition.x", "m_LocalPosition.y", "m_LocalPosition.z", "m_LocalRotation.x",
        "m_LocalRotation.y", "m_LocalRotation.z", "m_LocalRotation.w"};
    static constexpr std::array<std::string_view, 3> axes = {"x", "y", "z"};
    const std::size_t i = to_index(id);
    if (i < hand_state_first) return {"Camera", std::string(pose_attributes[i]), 4};
    if (i < left_joint_first) {
        const std::size_t s = i - hand_state_first;
        const std::string hand = s % 2 == 0 ? "LeftHand" : "RightHand";
        // tracked drives the hand's GameObject; pinching an Animator parameter on the root.
        if (s < 2) return {hand, "m_IsActive", 1};
        return {"", hand + "Pinching", 95};
    }
    if (i < gaze_first) {
        const std::size_t k = i - left_joint_first;
        const std::size_t per_hand = joint_count * pose_channel_count;
        const std::string hand = k < per_hand ? "LeftHand/" : "RightHand/";
        const std::size_t j = (k % per_hand) / pose_channel_count;
        return {hand + std::string(joint_names[j]),
                std::string(pose_attributes[k % pose_channel_count]), 4};
    }
    const std::size_t g = i - gaze_first;
    return {g < 3 ? "Gaze" : "Gaze/Direction", "m_LocalPosition." + std::string(axes[g % 3]), 4};
}

// Curves the clip carries: every curve of the file but the None joint's.
bool in_unity_clip(curve_id id) {
    const std::size_t i = to_index(id);
    if (i < left_joint_first || i >= gaze_first) return true;
    return ((i - left_joint_first) % (joint_count * pose_channel_count)) / pose_channel_count != 0;
}

void write_unity_curve(text_out& out, const curve_view& c) {
    const unity_binding b = unity_binding_of(c.id);
    const bool stepped = c.kind == curve_kind::bool_curve;
    out << "  - curve:\n      serializedVersion: 2\n      m_Curve:";
    if (c.keys.empty()) out << " []";
    out << '\n';
    for (const keyframe_view k : c.keys) {
        // A bool curve is a step (FORMAT.md section 7): Unity's constant tangents.
        out << "      - serializedVersion: 3\n        time: " << float_text(k.time(), true)
            << "\n        value: " << float_text(k.value(), true)
            << "\n        inSlope: " << (stepped ? "Infinity" : float_text(k.in_tangent(), true))
            << "\n        outSlope: " << (stepped ? "Infinity" : float_text(k.out_tangent(), true))
            << "\n        tangentMode: " << (stepped ? "103" : "0")
            << "\n        weightedMode: " << (stepped ? "0" : std::to_string(k.weighted_mode_raw()))
            << "\n        inWeight: " << float_text(k.in_weight(), true)
            << "\n        outWeight: " << float_text(k.out_weight(), true) << '\n';
    }
    out << "      m_PreInfinity: " << std::to_string(unity_infinity(c.pre_wrap))
        << "\n      m_PostInfinity: " << std::to_string(unity_infinity(c.post_wrap))
        << "\n      m_RotationOrder: 4\n    attribute: " << b.attribute
        << "\n    path: " << (b.path.empty() ? std::string("\"\"") : b.path)
        << "\n    classID: " << std::to_string(b.class_id) << "\n    script: {fileID: 0}\n";
}

export_result export_unity_clip(const recording& rec, byte_sink& sink, const export_options& o) {
    export_result r;
    if (o.from || o.to) {
        r.error = make_error_code(export_error::window_not_supported);
        return r;
    }
    std::uint64_t bound = unity_fixed_bound;
    for (const curve_view& c : rec.curves()) {
        if (!in_unity_clip(c.id)) continue;
        const unity_binding b = unity_binding_of(c.id);
        bound += (b.class_id == 4 ? 1 : 2) *
                 (unity_curve_bound + b.path.size() + unity_key_bound * c.keys.size());
    }
    for (const marker_view& m : rec.markers()) {
        bound += unity_event_bound + quoted_bound(m.name.size());
    }
    r.size = bound;
    if (bound > o.max_bytes) {
        r.error = make_error_code(export_error::too_large);
        return r;
    }
    const summary& sum = rec.summary();
    text_out out(sink);
    out << "%YAML 1.1\n%TAG !u! tag:unity3d.com,2011:\n--- !u!74 &7400000\nAnimationClip:\n"
           "  m_ObjectHideFlags: 0\n  m_CorrespondingSourceObject: {fileID: 0}\n"
           "  m_PrefabInstance: {fileID: 0}\n  m_PrefabAsset: {fileID: 0}\n"
           "  m_Name: InputAnimation\n  serializedVersion: 6\n  m_Legacy: 0\n"
           "  m_Compressed: 0\n  m_UseHighQualityCurve: 1\n  m_RotationCurves: []\n"
           "  m_CompressedRotationCurves: []\n  m_EulerCurves: []\n  m_PositionCurves: []\n"
           "  m_ScaleCurves: []\n";
    // The editor's curves hold every curve; the runtime's float curves the ones Unity itself
    // keeps there (not a Transform's, whose runtime curves are vectors Unity builds).
    const auto curves = [&](std::string_view list, bool transforms) {
        bool any = false;
        for (const curve_view& c : rec.curves()) {
            if (!in_unity_clip(c.id)) continue;
            if (!transforms && unity_binding_of(c.id).class_id == 4) continue;
            if (!any) out << "  " << list << ":\n";
            any = true;
            write_unity_curve(out, c);
        }
        if (!any) out << "  " << list << ": []\n";
    };
    curves("m_FloatCurves", false);
    out << "  m_PPtrCurves: []\n  m_SampleRate: " << json_double(o.rate)
        << "\n  m_WrapMode: 0\n  m_Bounds:\n    m_Center: {x: 0, y: 0, z: 0}\n"
           "    m_Extent: {x: 0, y: 0, z: 0}\n  m_ClipBindingConstant:\n"
           "    genericBindings: []\n    pptrCurveMapping: []\n"
           "  m_AnimationClipSettings:\n    serializedVersion: 2\n"
           "    m_AdditiveReferencePoseClip: {fileID: 0}\n    m_AdditiveReferencePoseTime: 0\n"
           "    m_StartTime: "
        << float_text(std::min(0.0f, sum.start.value_or(0.0f)), true)
        << "\n    m_StopTime: " << float_text(sum.duration.value_or(0.0f), true)
        << "\n    m_OrientationOffsetY: 0\n    m_Level: 0\n    m_CycleOffset: 0\n"
           "    m_HasAdditiveReferencePose: 0\n    m_LoopTime: 0\n    m_LoopBlend: 0\n"
           "    m_LoopBlendOrientation: 0\n    m_LoopBlendPositionY: 0\n"
           "    m_LoopBlendPositionXZ: 0\n    m_KeepOriginalOrientation: 0\n"
           "    m_KeepOriginalPositionY: 1\n    m_KeepOriginalPositionXZ: 0\n"
           "    m_HeightFromFeet: 0\n    m_Mirror: 0\n";
    curves("m_EditorCurves", true);
    out << "  m_EulerEditorCurves: []\n  m_HasGenericRootTransform: 0\n"
           "  m_HasMotionFloatCurves: 0\n  m_Events:";
    if (rec.markers().empty()) out << " []";
    out << '\n';
    for (const marker_view& m : rec.markers()) {
        out << "  - time: " << float_text(m.time, true)
            << "\n    functionName: OnInputAnimationMarker\n    data: " << quoted_text(m.name)
            << "\n    objectReferenceParameter: {fileID: 0}\n    floatParameter: 0\n"
               "    intParameter: 0\n    messageOptions: 0\n";
    }
    out.flush();
    r.error = out.error();
    r.written = out.written();
    return r;
}

}  // namespace

const std::error_category& export_error_category() noexcept {
    static const export_category category;
    return category;
}

std::error_code make_error_code(export_error e) noexcept {
    return {static_cast<int>(e), export_error_category()};
}

export_result export_recording(const recording& rec, byte_sink& sink, const export_options& o) {
    if (o.format == export_format::anim) return export_unity_clip(rec, sink, o);
    gltf_exporter e(rec, o);
    return e.run(sink);
}

}  // namespace inputanim
