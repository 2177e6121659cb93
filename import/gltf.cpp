// The glTF 2.0 importer (import.hpp, docs/IMPORT.md): export's inverse (docs/EXPORT.md). The nodes
// `export` names (head, gaze, hand.left, hand.right and the hands' joints) are found by name, as
// Blender's exporter writes them too (a ".001" suffix, joints found through their hand); their
// channels become keys of the recording's curves, x mirrored back to Unity's left-handed frame.
//
// tinygltf reads the document's structure, but not its buffers: it would open external files
// itself (its FsCallbacks are handed any path it joins, ".." and absolute ones included), decode
// data URIs and images whole, and fold what went wrong into one message. So the container
// (.glb's chunks), the JSON's size (values and nesting counted before it is built), the buffers
// (the URI checked, the size of a data URI computed before it is decoded, the total within
// max_bytes) are done here, images are never loaded (an animation does not need them), and
// tinygltf is handed only the nodes' names, children and transforms, the animations' channels
// and samplers, the accessors and the buffer views.
#include <tiny_gltf.h>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <new>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "detail/load.hpp"
#include "importers.hpp"
#include "inputanim/input.hpp"

namespace inputanim {

namespace detail {

namespace {

using json = nlohmann::json;

// The ceilings on the JSON, checked by a pass that builds nothing before the document is built
// (its values take 50 to 100 bytes each in memory, tinygltf's nodes and accessors hundreds):
// nesting (the document's destruction and tinygltf's walk over it recurse; an export is nested
// 7 deep), values (an export has about 2,000, and 3 a marker or pinch interval), and the
// entries of each array tinygltf reads (an export has 57 nodes and 115 accessors at most).
constexpr std::size_t max_json_depth = 64;
constexpr std::uint64_t max_json_values = std::uint64_t{1} << 22;
constexpr std::size_t max_gltf_entries = 65536;

struct vec3 {
    double x = 0.0, y = 0.0, z = 0.0;
};
struct quatd {
    double x = 0.0, y = 0.0, z = 0.0, w = 1.0;
};

quatd multiply(const quatd& a, const quatd& b) noexcept {
    return {a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
            a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
            a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
            a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
}

vec3 rotate(const quatd& q, const vec3& v) noexcept {
    const quatd p = multiply(multiply(q, {v.x, v.y, v.z, 0.0}), {-q.x, -q.y, -q.z, q.w});
    return {p.x, p.y, p.z};
}

// `q` of unit length; the identity for a zero or non-finite one.
quatd unit(const quatd& q) noexcept {
    const double len = std::sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
    if (!(len > 0.0) || !std::isfinite(len)) return {};
    return {q.x / len, q.y / len, q.z / len, q.w / len};
}

// A node's place in the recording's frame: a rotation, a uniform scale, then a translation.
struct placement {
    quatd rotation;
    double scale = 1.0;
    vec3 translation;

    vec3 point(const vec3& p) const noexcept {
        const vec3 r = rotate(rotation, p);
        return {translation.x + scale * r.x, translation.y + scale * r.y,
                translation.z + scale * r.z};
    }
    // A velocity (a tangent): the translation does not apply.
    vec3 direction(const vec3& d) const noexcept {
        const vec3 r = rotate(rotation, d);
        return {scale * r.x, scale * r.y, scale * r.z};
    }
    // `this` after `inner`: inner applies first.
    placement then(const placement& inner) const noexcept {
        return {multiply(rotation, inner.rotation), scale * inner.scale, point(inner.translation)};
    }
};

// The bytes of a glTF: its JSON text, and a .glb's binary chunk.
struct container {
    std::string_view text;
    std::optional<std::span<const std::byte>> bin;
};

std::string_view as_text(std::span<const std::byte> b) noexcept {
    return {reinterpret_cast<const char*>(b.data()), b.size()};
}

// The .glb container (glTF 2.0, section 4.4): a 12-byte header, a JSON chunk, then optionally a
// BIN chunk; chunks of other types are skipped, as the specification asks.
std::optional<import_result> open_glb(std::span<const std::byte> bytes, container& out) {
    if (bytes.size() < 20 || as_text(bytes.first(4)) != "glTF") {
        return refuse(import_error::bad_gltf, "not a .glb: no glTF header");
    }
    if (load_u32_le(bytes.data() + 4) != 2) {
        return refuse(import_error::bad_gltf,
                      ".glb version " + std::to_string(load_u32_le(bytes.data() + 4)) + ", not 2");
    }
    const std::uint64_t length = load_u32_le(bytes.data() + 8);
    if (length > bytes.size()) {
        return refuse(import_error::bad_gltf, ".glb length " + std::to_string(length) +
                                                  " past the input's " +
                                                  std::to_string(bytes.size()) + " bytes");
    }
    bool has_json = false;
    for (std::uint64_t at = 12; at < length;) {
        if (length - at < 8) return refuse(import_error::bad_gltf, ".glb chunk header cut short");
        const std::uint64_t size = load_u32_le(bytes.data() + at);
        const std::string_view type = as_text(bytes.subspan(at + 4, 4));
        at += 8;
        if (size > length - at) {
            return refuse(import_error::bad_gltf,
                          ".glb chunk of " + std::to_string(size) + " bytes past the file's end");
        }
        const std::span<const std::byte> data = bytes.subspan(at, size);
        if (!has_json) {
            if (type != "JSON")
                return refuse(import_error::bad_gltf, ".glb's first chunk is not JSON");
            out.text = as_text(data);
            has_json = true;
        } else if (type == std::string_view("BIN\0", 4) && !out.bin) {
            out.bin = data;
        }
        at += size;
    }
    if (!has_json) return refuse(import_error::bad_gltf, ".glb without a JSON chunk");
    return std::nullopt;
}

// A JSON text's values and nesting, counted by nlohmann's SAX parser (which keeps its own
// stack) without building the document; it stops at the first ceiling passed.
class json_census final : public nlohmann::json_sax<json> {
  public:
    std::uint64_t values = 0;
    std::size_t deepest = 0;

    bool too_deep() const noexcept { return deepest > max_json_depth; }
    bool too_many() const noexcept { return values > max_json_values; }

    bool null() override { return value(); }
    bool boolean(bool) override { return value(); }
    bool number_integer(number_integer_t) override { return value(); }
    bool number_unsigned(number_unsigned_t) override { return value(); }
    bool number_float(number_float_t, const string_t&) override { return value(); }
    bool string(string_t&) override { return value(); }
    bool binary(binary_t&) override { return value(); }
    bool start_object(std::size_t) override { return open(); }
    bool key(string_t&) override { return true; }
    bool end_object() override { return close(); }
    bool start_array(std::size_t) override { return open(); }
    bool end_array() override { return close(); }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
        return false;
    }

  private:
    bool value() noexcept { return ++values <= max_json_values; }
    bool open() noexcept {
        deepest = std::max(deepest, ++depth_);
        return value() && !too_deep();
    }
    bool close() noexcept {
        --depth_;
        return true;
    }
    std::size_t depth_ = 0;
};

int base64_digit(unsigned char c) noexcept {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

// The bytes a base64 text decodes to, or nullopt when it is not base64 (a character outside the
// alphabet, padding other than at the end, a length no encoding has).
std::optional<std::uint64_t> base64_size(std::string_view s) noexcept {
    std::size_t pad = 0;
    while (pad < 2 && pad < s.size() && s[s.size() - 1 - pad] == '=') ++pad;
    const std::string_view digits = s.substr(0, s.size() - pad);
    if ((pad > 0 && s.size() % 4 != 0) || digits.size() % 4 == 1) return std::nullopt;
    for (const char c : digits) {
        if (base64_digit(static_cast<unsigned char>(c)) < 0) return std::nullopt;
    }
    return digits.size() / 4 * 3 + (digits.size() % 4 == 0 ? 0 : digits.size() % 4 - 1);
}

void base64_decode(std::string_view s, std::vector<std::byte>& out) {
    std::uint32_t bits = 0;
    int held = 0;
    for (const char c : s) {
        const int d = base64_digit(static_cast<unsigned char>(c));
        if (d < 0) break;  // the padding: base64_size accepted the text
        bits = (bits << 6) | static_cast<std::uint32_t>(d);
        held += 6;
        if (held >= 8) {
            held -= 8;
            out.push_back(static_cast<std::byte>((bits >> held) & 0xff));
        }
    }
}

bool starts_with_ci(std::string_view s, std::string_view prefix) noexcept {
    return s.size() >= prefix.size() &&
           std::equal(prefix.begin(), prefix.end(), s.begin(), [](char a, char b) {
               return std::tolower(static_cast<unsigned char>(a)) == b;
           });
}

}  // namespace

namespace {

// A URI percent-decoded, or nullopt when a '%' is not followed by two hex digits.
std::optional<std::string> percent_decoded(std::string_view uri) {
    const auto hex = [](char h) {
        if (h >= '0' && h <= '9') return h - '0';
        if (h >= 'a' && h <= 'f') return h - 'a' + 10;
        if (h >= 'A' && h <= 'F') return h - 'A' + 10;
        return -1;
    };
    std::string out;
    for (std::size_t i = 0; i < uri.size(); ++i) {
        if (uri[i] != '%') {
            out.push_back(uri[i]);
            continue;
        }
        if (i + 2 >= uri.size() || hex(uri[i + 1]) < 0 || hex(uri[i + 2]) < 0) return std::nullopt;
        out.push_back(static_cast<char>(hex(uri[i + 1]) * 16 + hex(uri[i + 2])));
        i += 2;
    }
    return out;
}

// Whether `path` names a file in a folder or below it: not absolute, without a scheme (a ':'
// anywhere, which also refuses a Windows drive), a backslash, an empty or ".." segment, or a
// NUL. The importer checks a URI with it, and folder_files each path it is asked for.
bool inside_folder(std::string_view path) noexcept {
    if (path.empty()) return false;
    std::size_t start = 0;
    for (;;) {
        const std::size_t end = std::min(path.find('/', start), path.size());
        const std::string_view segment = path.substr(start, end - start);
        if (segment.empty() || segment == ".." ||
            segment.find_first_of(std::string_view(":\\\0", 3)) != std::string_view::npos) {
            return false;
        }
        if (end == path.size()) return true;
        start = end + 1;
    }
}

// The buffers an animation's accessors read: a .glb's binary chunk as it is in the input, a data
// URI decoded, an external file read through import_files.
class buffers {
  public:
    std::optional<import_result> load(const json& doc, const container& c,
                                      const import_options& options, import_files* files);
    std::size_t size() const noexcept { return spans_.size(); }
    std::span<const std::byte> operator[](std::size_t i) const noexcept { return spans_[i]; }

  private:
    std::vector<std::vector<std::byte>> owned_;
    std::vector<std::span<const std::byte>> spans_;
};

std::optional<import_result> buffers::load(const json& doc, const container& c,
                                           const import_options& options, import_files* files) {
    const auto it = doc.find("buffers");
    if (it == doc.end()) return std::nullopt;
    if (!it->is_array()) return refuse(import_error::bad_gltf, "buffers is not an array");
    const std::uint64_t ceiling = options.limits.max_bytes;
    // The declared lengths together, checked before any buffer is loaded.
    std::uint64_t total = 0;
    for (std::size_t i = 0; i < it->size(); ++i) {
        const json& b = (*it)[i];
        const auto length = b.is_object() ? b.find("byteLength") : b.end();
        if (length == b.end() || !length->is_number_unsigned()) {
            return refuse(import_error::bad_gltf,
                          "buffer " + std::to_string(i) + " without a byteLength");
        }
        const std::uint64_t n = length->get<std::uint64_t>();
        if (n > ceiling - std::min(total, ceiling)) {
            return refuse(import_error::too_large,
                          "buffer " + std::to_string(i) + ": " + std::to_string(n) +
                              " bytes, past --max-bytes " + std::to_string(ceiling) +
                              " with the buffers before it");
        }
        total += n;
    }
    owned_.resize(it->size());
    std::vector<std::uint64_t> lengths(it->size());
    std::vector<bool> from_bin(it->size());
    for (std::size_t i = 0; i < it->size(); ++i) {
        const json& b = (*it)[i];
        const std::string which = "buffer " + std::to_string(i);
        lengths[i] = b["byteLength"].get<std::uint64_t>();
        const auto uri = b.find("uri");
        if (uri == b.end()) {
            // A .glb's first buffer without a URI is its binary chunk.
            if (i != 0 || !c.bin) return refuse(import_error::bad_gltf, which + " without a uri");
            if (lengths[i] > c.bin->size()) {
                return refuse(import_error::bad_accessor,
                              which + ": " + std::to_string(lengths[i]) +
                                  " bytes, past the .glb's binary chunk of " +
                                  std::to_string(c.bin->size()));
            }
            from_bin[i] = true;
            continue;
        }
        if (!uri->is_string()) return refuse(import_error::bad_gltf, which + ": uri not a string");
        const std::string& text = uri->get_ref<const std::string&>();
        std::vector<std::byte>& out = owned_[i];
        if (starts_with_ci(text, "data:")) {
            const std::size_t comma = text.find(',');
            const std::string_view head = std::string_view(text).substr(0, comma);
            if (comma == std::string::npos || head.size() < 7 ||
                !starts_with_ci(head.substr(head.size() - 7), ";base64")) {
                return refuse(import_error::bad_data_uri,
                              which + ": a data URI that is not base64");
            }
            const std::string_view payload = std::string_view(text).substr(comma + 1);
            const std::optional<std::uint64_t> n = base64_size(payload);
            if (!n) return refuse(import_error::bad_data_uri, which + ": its data is not base64");
            if (*n < lengths[i]) {
                return refuse(import_error::bad_accessor,
                              which + ": byteLength " + std::to_string(lengths[i]) +
                                  " past its data URI's " + std::to_string(*n) + " bytes");
            }
            // Its size is known before it is decoded, and is at most three quarters of the
            // input's, which max_bytes bounds.
            out.reserve(*n);
            base64_decode(payload, out);
            continue;
        }
        const std::optional<std::string> path = percent_decoded(text);
        if (!path || !inside_folder(*path)) {
            return refuse(import_error::bad_uri,
                          which + ": \"" + text + "\" is not a file in the glTF's folder");
        }
        if (files == nullptr) {
            return refuse(import_error::bad_uri, which + ": \"" + text +
                                                     "\" is an external file, which this input "
                                                     "cannot have (read from standard input or "
                                                     "bytes)");
        }
        if (const std::error_code ec = files->read(*path, ceiling, out)) {
            import_result r;
            r.error = ec;
            r.detail = which + ": " + *path;
            return r;
        }
        if (out.size() < lengths[i]) {
            return refuse(import_error::bad_accessor,
                          which + ": byteLength " + std::to_string(lengths[i]) + " past " + *path +
                              "'s " + std::to_string(out.size()) + " bytes");
        }
    }
    spans_.resize(it->size());
    for (std::size_t i = 0; i < it->size(); ++i) {
        spans_[i] = from_bin[i] ? c.bin->first(lengths[i])
                                : std::span<const std::byte>(owned_[i]).first(lengths[i]);
    }
    return std::nullopt;
}

// The document tinygltf reads: the structure an animation needs, without the buffers' URIs, the
// images, the meshes and the extras.
json structure_of(const json& doc) {
    json slim = json::object();
    slim["asset"] = json{{"version", "2.0"}};
    for (const char* key : {"accessors", "bufferViews"}) {
        if (doc.contains(key)) slim[key] = doc[key];
    }
    if (doc.contains("nodes") && doc["nodes"].is_array()) {
        json nodes = json::array();
        for (const json& n : doc["nodes"]) {
            json kept = json::object();
            if (n.is_object()) {
                for (const char* key :
                     {"name", "children", "translation", "rotation", "scale", "matrix"}) {
                    if (n.contains(key)) kept[key] = n[key];
                }
            }
            nodes.push_back(std::move(kept));
        }
        slim["nodes"] = std::move(nodes);
    }
    if (doc.contains("animations") && doc["animations"].is_array()) {
        json animations = json::array();
        for (const json& a : doc["animations"]) {
            json kept = json::object();
            if (a.is_object()) {
                for (const char* key : {"name", "channels", "samplers"}) {
                    if (a.contains(key)) kept[key] = a[key];
                }
            }
            animations.push_back(std::move(kept));
        }
        slim["animations"] = std::move(animations);
    }
    return slim;
}

// The glTF's name without the ".001" Blender adds to make names unique.
std::string_view base_name(std::string_view name) noexcept {
    const std::size_t dot = name.rfind('.');
    if (dot == std::string_view::npos || name.size() - dot < 4) return name;
    for (std::size_t i = dot + 1; i < name.size(); ++i) {
        if (name[i] < '0' || name[i] > '9') return name;
    }
    return name.substr(0, dot);
}

enum class interpolation : std::uint8_t { linear, step, cubic };

// An accessor's elements, as read: floats, or (rotations) normalized integers.
struct accessor_view {
    const std::byte* base = nullptr;
    std::uint64_t stride = 0;
    std::uint64_t count = 0;
    int component = 0;
    int width = 0;

    double component_at(std::uint64_t element, int i) const noexcept {
        const std::byte* p = base + element * stride;
        switch (component) {
            case TINYGLTF_COMPONENT_TYPE_FLOAT:
                return load_f32_le(p + 4 * i);
            case TINYGLTF_COMPONENT_TYPE_BYTE:
                return std::max(static_cast<std::int8_t>(p[i]) / 127.0, -1.0);
            case TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE:
                return static_cast<std::uint8_t>(p[i]) / 255.0;
            case TINYGLTF_COMPONENT_TYPE_SHORT:
                return std::max(static_cast<std::int16_t>(load_u16_le(p + 2 * i)) / 32767.0, -1.0);
            default:
                return load_u16_le(p + 2 * i) / 65535.0;
        }
    }
};

int component_bytes(int component) noexcept {
    switch (component) {
        case TINYGLTF_COMPONENT_TYPE_FLOAT:
            return 4;
        case TINYGLTF_COMPONENT_TYPE_SHORT:
        case TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT:
            return 2;
        default:
            return 1;
    }
}

// What a channel's values are: glTF allows normalized integers for rotations only.
enum class values_kind : std::uint8_t { times, vec3, rotation };

// A sampler read: its key times (the recording's, the export's shift undone) and values, three a
// key for CUBICSPLINE (in-tangent, value, out-tangent), each of `width` components.
struct track {
    interpolation interp = interpolation::linear;
    std::vector<float> times;
    std::vector<std::array<double, 4>> values;

    const std::array<double, 4>& value(std::size_t k) const noexcept {
        return values[interp == interpolation::cubic ? 3 * k + 1 : k];
    }
    const std::array<double, 4>& in_tangent(std::size_t k) const noexcept { return values[3 * k]; }
    const std::array<double, 4>& out_tangent(std::size_t k) const noexcept {
        return values[3 * k + 2];
    }
};

// An ancestor of a target: its pose (its rest pose, with its channels that do not move), and
// its translation and rotation channels that move.
struct ancestor {
    placement rest;
    std::optional<track> translation;
    std::optional<track> rotation;
};

class importer {
  public:
    importer(const tinygltf::Model& g, const json& doc, const buffers& b,
             const import_options& options, model& out)
        : g_(g), doc_(doc), buffers_(b), budget_(options.limits), out_(out) {}

    std::optional<import_result> run();
    std::vector<std::string> warnings;

  private:
    // A warning once, however many nodes meet it, and a few dozen at most: a document may
    // repeat a name or a channel as often as its size allows.
    void warn(std::string w) {
        constexpr std::size_t max_warnings = 64;
        if (warnings.size() < max_warnings &&
            std::find(warnings.begin(), warnings.end(), w) == warnings.end()) {
            warnings.push_back(std::move(w));
        }
    }

    struct target {
        int node = -1;
        // The hand whose joint the node is (its scale is left out of the joint's place), or -1.
        int hand = -1;
        // The samplers of its translation, rotation and scale channels, or -1.
        std::array<int, 3> samplers{-1, -1, -1};
    };
    enum path_index : std::uint8_t { translation_path, rotation_path, scale_path };

    std::optional<import_result> check_nodes();
    int find_node(std::string_view name);
    std::optional<import_result> find_channels();
    // The node's rest transform (glTF's translation, rotation and scale, or its matrix); for an
    // ancestor (`as_ancestor`), with the channels that do not move.
    placement rest_of(int node, bool with_scale, bool as_ancestor = false);
    // The value of a channel whose keys are all equal, or nullopt.
    std::optional<std::array<double, 4>> constant_of(int sampler, path_index path);
    // The ancestor `node`, read once.
    std::optional<import_result> ancestor_of(int node, bool with_scale, const ancestor*& out);
    // The target's ancestors, its parent first.
    std::optional<import_result> chain_of(const target& t, std::vector<const ancestor*>& chain);
    // The node's channel `path` as read, or its rest value held: one key at the animation's
    // first time, or, below an ancestor that moves, a key at each of that ancestor's keys.
    std::optional<import_result> track_or_rest(const target& t,
                                               const std::vector<const ancestor*>& chain,
                                               path_index path, std::span<const curve_id> curves,
                                               const std::array<double, 4>& rest, track& out);
    // The sampler's keys into `out`, once `curves` keys each are taken from the budget.
    std::optional<import_result> read_sampler(int sampler, path_index path,
                                              std::span<const curve_id> curves, track& out);
    std::optional<import_result> view_of(int accessor, values_kind kind, std::uint64_t count,
                                         accessor_view& v);
    // The sampler of `t`'s channel `path` read into `out` once `curves` keys each are taken
    // from the budget; false in `has` when the node has no such channel.
    std::optional<import_result> read_track(const target& t, path_index path,
                                            std::span<const curve_id> curves, track& out,
                                            bool& has);
    // A node's translation into three position curves (x mirrored), its ancestors' placement
    // applied: a pose's and the gaze origin's.
    std::optional<import_result> import_position(const target& t,
                                                 const std::vector<const ancestor*>& chain,
                                                 const placement& rest,
                                                 std::span<const curve_id> curves);
    std::optional<import_result> import_pose(const target& t, std::array<curve_id, 7> curves);
    std::optional<import_result> import_gaze(const target& t);
    std::optional<import_result> import_tracked(const target& t, curve_id tracked);
    std::optional<import_result> import_extras();
    void write_keys(curve_id id, const track& t, auto&& of);
    float recording_time(double t) const noexcept { return static_cast<float>(t - time_shift_); }

    const tinygltf::Model& g_;
    const json& doc_;
    const buffers& buffers_;
    key_budget budget_;
    model& out_;
    std::vector<int> parents_;
    // By node, as an ancestor with its scale (odd) or without (even, a joint's hand).
    std::map<std::size_t, ancestor> ancestors_;
    int animation_ = -1;
    // Per node, its channels' samplers.
    std::vector<std::array<int, 3>> channels_;
    double time_shift_ = 0.0;
    // The animation's first time, the recording's: where a curve of a node without a channel
    // gets its one key.
    float first_time_ = 0.0f;
    std::optional<float> duration_;
};

std::optional<import_result> importer::check_nodes() {
    const std::size_t n = g_.nodes.size();
    parents_.assign(n, -1);
    for (std::size_t i = 0; i < n; ++i) {
        for (const int c : g_.nodes[i].children) {
            if (c < 0 || static_cast<std::size_t>(c) >= n || parents_[c] != -1 ||
                static_cast<std::size_t>(c) == i) {
                return refuse(import_error::bad_gltf, "node " + std::to_string(i) + ": child " +
                                                          std::to_string(c) +
                                                          " out of range or with two parents");
            }
            parents_[c] = static_cast<int>(i);
        }
    }
    // Every node must be reached from a root: the rest lie on a cycle.
    std::vector<int> reach;
    for (std::size_t i = 0; i < n; ++i) {
        if (parents_[i] == -1) reach.push_back(static_cast<int>(i));
    }
    for (std::size_t k = 0; k < reach.size(); ++k) {
        for (const int c : g_.nodes[reach[k]].children) reach.push_back(c);
    }
    if (reach.size() != n)
        return refuse(import_error::bad_gltf, "the nodes' children make a cycle");
    return std::nullopt;
}

int importer::find_node(std::string_view name) {
    int found = -1;
    for (std::size_t i = 0; i < g_.nodes.size(); ++i) {
        if (base_name(g_.nodes[i].name) != name) continue;
        if (found < 0) {
            found = static_cast<int>(i);
        } else {
            warn("node " + g_.nodes[i].name + " left out: node " + g_.nodes[found].name + " is " +
                 std::string(name));
        }
    }
    return found;
}

std::optional<import_result> importer::find_channels() {
    channels_.assign(g_.nodes.size(), {-1, -1, -1});
    if (g_.animations.empty()) return std::nullopt;
    animation_ = 0;
    for (std::size_t a = 0; a < g_.animations.size(); ++a) {
        if (g_.animations[a].name == "recording") {
            animation_ = static_cast<int>(a);
            break;
        }
    }
    if (g_.animations.size() > 1) {
        warn("animation " + g_.animations[animation_].name + " read, " +
             std::to_string(g_.animations.size() - 1) + " other(s) left out");
    }
    const tinygltf::Animation& a = g_.animations[animation_];
    for (const tinygltf::AnimationChannel& c : a.channels) {
        if (c.target_node < 0 || static_cast<std::size_t>(c.target_node) >= g_.nodes.size()) {
            return refuse(import_error::bad_gltf,
                          "a channel's node " + std::to_string(c.target_node) + " out of range");
        }
        if (c.sampler < 0 || static_cast<std::size_t>(c.sampler) >= a.samplers.size()) {
            return refuse(import_error::bad_sampler,
                          "a channel's sampler " + std::to_string(c.sampler) + " out of range");
        }
        int path = -1;
        if (c.target_path == "translation") path = translation_path;
        if (c.target_path == "rotation") path = rotation_path;
        if (c.target_path == "scale") path = scale_path;
        if (path < 0) continue;
        int& slot = channels_[c.target_node][path];
        if (slot >= 0) {
            warn("node " + g_.nodes[c.target_node].name + ": a second " + c.target_path +
                 " channel left out");
            continue;
        }
        slot = c.sampler;
    }
    return std::nullopt;
}

std::optional<std::array<double, 4>> importer::constant_of(int sampler, path_index path) {
    const tinygltf::AnimationSampler& s = g_.animations[animation_].samplers[sampler];
    if (s.input < 0 || static_cast<std::size_t>(s.input) >= g_.accessors.size()) {
        return std::nullopt;
    }
    const bool cubic = s.interpolation == "CUBICSPLINE";
    const std::uint64_t count = g_.accessors[s.input].count;
    const values_kind kind = path == rotation_path ? values_kind::rotation : values_kind::vec3;
    accessor_view v;
    if (count == 0 || count > std::numeric_limits<std::uint64_t>::max() / 3 ||
        view_of(s.output, kind, cubic ? 3 * count : count, v)) {
        return std::nullopt;
    }
    std::array<double, 4> first{};
    for (std::uint64_t k = 0; k < count; ++k) {
        for (int i = 0; i < v.width; ++i) {
            const double value = v.component_at(cubic ? 3 * k + 1 : k, i);
            if (k == 0) first[i] = value;
            if (value != first[i]) return std::nullopt;
            if (cubic && (v.component_at(3 * k, i) != 0.0 || v.component_at(3 * k + 2, i) != 0.0)) {
                return std::nullopt;
            }
        }
    }
    return first;
}

placement importer::rest_of(int node, bool with_scale, bool as_ancestor) {
    const tinygltf::Node& n = g_.nodes[node];
    placement p;
    std::array<double, 3> s{1.0, 1.0, 1.0};
    if (n.matrix.size() == 16) {
        const std::vector<double>& m = n.matrix;  // column-major
        p.translation = {m[12], m[13], m[14]};
        std::array<std::array<double, 3>, 3> r{};
        for (int c = 0; c < 3; ++c) {
            s[c] = std::sqrt(m[4 * c] * m[4 * c] + m[4 * c + 1] * m[4 * c + 1] +
                             m[4 * c + 2] * m[4 * c + 2]);
            for (int row = 0; row < 3; ++row) r[row][c] = s[c] > 0.0 ? m[4 * c + row] / s[c] : 0.0;
        }
        // The rotation matrix's quaternion (Shepperd's method, the largest diagonal first).
        const double trace = r[0][0] + r[1][1] + r[2][2];
        quatd q;
        if (trace > 0.0) {
            const double k = 0.5 / std::sqrt(trace + 1.0);
            q = {(r[2][1] - r[1][2]) * k, (r[0][2] - r[2][0]) * k, (r[1][0] - r[0][1]) * k,
                 0.25 / k};
        } else if (r[0][0] > r[1][1] && r[0][0] > r[2][2]) {
            const double k = 2.0 * std::sqrt(1.0 + r[0][0] - r[1][1] - r[2][2]);
            q = {0.25 * k, (r[0][1] + r[1][0]) / k, (r[0][2] + r[2][0]) / k,
                 (r[2][1] - r[1][2]) / k};
        } else if (r[1][1] > r[2][2]) {
            const double k = 2.0 * std::sqrt(1.0 + r[1][1] - r[0][0] - r[2][2]);
            q = {(r[0][1] + r[1][0]) / k, 0.25 * k, (r[1][2] + r[2][1]) / k,
                 (r[0][2] - r[2][0]) / k};
        } else {
            const double k = 2.0 * std::sqrt(1.0 + r[2][2] - r[0][0] - r[1][1]);
            q = {(r[0][2] + r[2][0]) / k, (r[1][2] + r[2][1]) / k, 0.25 * k,
                 (r[1][0] - r[0][1]) / k};
        }
        p.rotation = q;
    } else {
        if (n.translation.size() == 3) {
            p.translation = {n.translation[0], n.translation[1], n.translation[2]};
        }
        if (n.rotation.size() == 4) {
            p.rotation = unit({n.rotation[0], n.rotation[1], n.rotation[2], n.rotation[3]});
        }
        if (n.scale.size() == 3) s = {n.scale[0], n.scale[1], n.scale[2]};
    }
    // Blender keys a transform edited in it once: a channel that does not move is the
    // ancestor's pose. One that moves is read by ancestor_of, but for a scale, left out.
    for (const path_index path : {translation_path, rotation_path, scale_path}) {
        const int sampler = channels_[node][path];
        if (!as_ancestor || sampler < 0 || (path == scale_path && !with_scale)) continue;
        const std::optional<std::array<double, 4>> v = constant_of(sampler, path);
        if (!v) {
            if (path == scale_path) {
                warn("node " + n.name +
                     ": its scale moves, and its children are read with its "
                     "rest scale");
            }
        } else if (path == translation_path) {
            p.translation = {(*v)[0], (*v)[1], (*v)[2]};
        } else if (path == rotation_path) {
            p.rotation = unit({(*v)[0], (*v)[1], (*v)[2], (*v)[3]});
        } else {
            s = {(*v)[0], (*v)[1], (*v)[2]};
        }
    }
    if (!with_scale) return p;
    if (std::abs(s[0] - s[1]) > 1e-6 * std::abs(s[0]) ||
        std::abs(s[0] - s[2]) > 1e-6 * std::abs(s[0])) {
        warn("node " + n.name + ": a scale that is not the same on every axis, left out");
    } else {
        p.scale = s[0];
    }
    return p;
}

// The value of `t` at `time`, as glTF interpolates it: held before the first key and after the
// last; a rotation's LINEAR segment is a spherical interpolation.
std::array<double, 4> sample(const track& t, float time, bool rotation) noexcept {
    const std::size_t n = t.times.size();
    const std::size_t right = static_cast<std::size_t>(
        std::upper_bound(t.times.begin(), t.times.end(), time) - t.times.begin());
    if (right == 0) return t.value(0);
    if (right == n || t.interp == interpolation::step) return t.value(right - 1);
    const std::size_t left = right - 1;
    const double td = static_cast<double>(t.times[right]) - t.times[left];
    const double s = (time - t.times[left]) / td;
    const std::array<double, 4>& a = t.value(left);
    std::array<double, 4> b = t.value(right);
    std::array<double, 4> out{};
    if (t.interp == interpolation::cubic) {
        const double s2 = s * s, s3 = s2 * s;
        const std::array<double, 4>& m0 = t.out_tangent(left);
        const std::array<double, 4>& m1 = t.in_tangent(right);
        for (int i = 0; i < 4; ++i) {
            out[i] = (2 * s3 - 3 * s2 + 1) * a[i] + (s3 - 2 * s2 + s) * td * m0[i] +
                     (-2 * s3 + 3 * s2) * b[i] + (s3 - s2) * td * m1[i];
        }
        return out;
    }
    double wa = 1.0 - s, wb = s;
    if (rotation) {
        double dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
        if (dot < 0.0) {
            dot = -dot;
            for (double& c : b) c = -c;
        }
        if (dot < 0.9995) {
            const double theta = std::acos(dot);
            wa = std::sin((1.0 - s) * theta) / std::sin(theta);
            wb = std::sin(s * theta) / std::sin(theta);
        }
    }
    for (int i = 0; i < 4; ++i) out[i] = wa * a[i] + wb * b[i];
    return out;
}

std::optional<import_result> importer::ancestor_of(int node, bool with_scale,
                                                   const ancestor*& out) {
    const std::size_t slot = 2 * static_cast<std::size_t>(node) + with_scale;
    if (const auto found = ancestors_.find(slot); found != ancestors_.end()) {
        out = &found->second;
        return std::nullopt;
    }
    ancestor a;
    a.rest = rest_of(node, with_scale, true);
    for (const path_index path : {translation_path, rotation_path}) {
        const int sampler = channels_[node][path];
        if (sampler < 0 || constant_of(sampler, path)) continue;
        // No curve of the recording holds these keys: the accessors' range checks bound what is
        // read, within a buffer of at most max_bytes.
        track t;
        if (auto r = read_sampler(sampler, path, {}, t)) return r;
        (path == translation_path ? a.translation : a.rotation) = std::move(t);
    }
    out = &ancestors_.emplace(slot, std::move(a)).first->second;
    return std::nullopt;
}

std::optional<import_result> importer::chain_of(const target& t,
                                                std::vector<const ancestor*>& chain) {
    chain.clear();
    for (int a = parents_[t.node]; a >= 0; a = parents_[a]) {
        const ancestor* found = nullptr;
        if (auto r = ancestor_of(a, a != t.hand, found)) return r;
        chain.push_back(found);
    }
    return std::nullopt;
}

// Where a node below `chain` lies in the recording's frame at each of `times`: one placement
// when no ancestor moves.
std::vector<placement> places(const std::vector<const ancestor*>& chain,
                              const std::vector<float>& times) {
    bool moves = false;
    for (const ancestor* a : chain) moves |= a->translation || a->rotation;
    std::vector<placement> out(moves ? times.size() : 1);
    for (std::size_t k = 0; k < out.size(); ++k) {
        for (const ancestor* a : chain) {
            placement pose = a->rest;
            if (a->translation) {
                const std::array<double, 4> v = sample(*a->translation, times[k], false);
                pose.translation = {v[0], v[1], v[2]};
            }
            if (a->rotation) {
                const std::array<double, 4> v = sample(*a->rotation, times[k], true);
                pose.rotation = unit({v[0], v[1], v[2], v[3]});
            }
            out[k] = pose.then(out[k]);
        }
    }
    return out;
}

std::optional<import_result> importer::track_or_rest(
    const target& t, const std::vector<const ancestor*>& chain, path_index path,
    std::span<const curve_id> curves, const std::array<double, 4>& rest, track& out) {
    bool has = false;
    if (auto r = read_track(t, path, curves, out, has)) return r;
    if (has) return std::nullopt;
    out.interp = interpolation::linear;
    out.times = {first_time_};
    for (const ancestor* a : chain) {
        const std::optional<track>& moving = a->translation ? a->translation : a->rotation;
        if (!moving) continue;
        for (const curve_id id : curves) {
            if (auto r = budget_.take_keys(moving->times.size(), curve_path(id))) return r;
        }
        out.times = moving->times;
        break;
    }
    out.values.assign(out.times.size(), rest);
    return std::nullopt;
}

std::optional<import_result> importer::view_of(int index, values_kind kind, std::uint64_t count,
                                               accessor_view& v) {
    const std::string which = "accessor " + std::to_string(index);
    if (index < 0 || static_cast<std::size_t>(index) >= g_.accessors.size()) {
        return refuse(import_error::bad_accessor, which + " out of range");
    }
    const tinygltf::Accessor& a = g_.accessors[index];
    if (a.sparse.isSparse) return refuse(import_error::sparse_accessor, which + " is sparse");
    const int type = kind == values_kind::times      ? TINYGLTF_TYPE_SCALAR
                     : kind == values_kind::rotation ? TINYGLTF_TYPE_VEC4
                                                     : TINYGLTF_TYPE_VEC3;
    const bool float_only = kind != values_kind::rotation;
    const bool component_ok = a.componentType == TINYGLTF_COMPONENT_TYPE_FLOAT ||
                              (!float_only && a.normalized &&
                               (a.componentType == TINYGLTF_COMPONENT_TYPE_BYTE ||
                                a.componentType == TINYGLTF_COMPONENT_TYPE_UNSIGNED_BYTE ||
                                a.componentType == TINYGLTF_COMPONENT_TYPE_SHORT ||
                                a.componentType == TINYGLTF_COMPONENT_TYPE_UNSIGNED_SHORT));
    if (a.type != type || !component_ok) {
        return refuse(import_error::bad_accessor, which +
                                                      ": a type or component type the channel "
                                                      "cannot take");
    }
    if (a.count != count) {
        return refuse(import_error::bad_sampler, which + ": " + std::to_string(a.count) +
                                                     " elements, not the " + std::to_string(count) +
                                                     " its sampler's times ask");
    }
    if (a.bufferView < 0 || static_cast<std::size_t>(a.bufferView) >= g_.bufferViews.size()) {
        return refuse(import_error::bad_accessor, which + ": buffer view out of range");
    }
    const tinygltf::BufferView& bv = g_.bufferViews[a.bufferView];
    if (bv.buffer < 0 || static_cast<std::size_t>(bv.buffer) >= buffers_.size()) {
        return refuse(import_error::bad_accessor, which + ": buffer out of range");
    }
    const std::span<const std::byte> buffer = buffers_[bv.buffer];
    v.width = type == TINYGLTF_TYPE_SCALAR ? 1 : type == TINYGLTF_TYPE_VEC3 ? 3 : 4;
    v.component = a.componentType;
    v.count = count;
    const std::uint64_t element =
        static_cast<std::uint64_t>(v.width) * component_bytes(v.component);
    v.stride = bv.byteStride != 0 ? bv.byteStride : element;
    // Every bound in 64 bits: the count is within the key budget, offsets and lengths within a
    // buffer of at most max_bytes, or refused.
    const std::uint64_t view_end = static_cast<std::uint64_t>(bv.byteOffset) + bv.byteLength;
    const std::uint64_t used = count == 0 ? 0 : (count - 1) * v.stride + element;
    if (v.stride < element || bv.byteOffset > buffer.size() || bv.byteLength > buffer.size() ||
        view_end > buffer.size() || a.byteOffset > bv.byteLength ||
        used > bv.byteLength - a.byteOffset) {
        return refuse(import_error::bad_accessor,
                      which + ": past the end of its buffer view or buffer");
    }
    v.base = buffer.data() + bv.byteOffset + a.byteOffset;
    return std::nullopt;
}

std::optional<import_result> importer::read_track(const target& tg, path_index path,
                                                  std::span<const curve_id> curves, track& out,
                                                  bool& has) {
    has = false;
    if (tg.samplers[path] < 0) return std::nullopt;
    has = true;
    return read_sampler(tg.samplers[path], path, curves, out);
}

std::optional<import_result> importer::read_sampler(int sampler, path_index path,
                                                    std::span<const curve_id> curves, track& out) {
    const tinygltf::AnimationSampler& s = g_.animations[animation_].samplers[sampler];
    if (s.interpolation == "LINEAR") {
        out.interp = interpolation::linear;
    } else if (s.interpolation == "STEP") {
        out.interp = interpolation::step;
    } else if (s.interpolation == "CUBICSPLINE") {
        out.interp = interpolation::cubic;
    } else {
        return refuse(import_error::bad_sampler,
                      "interpolation \"" + s.interpolation + "\" is not glTF's");
    }
    if (s.input < 0 || static_cast<std::size_t>(s.input) >= g_.accessors.size()) {
        return refuse(import_error::bad_accessor,
                      "accessor " + std::to_string(s.input) + " out of range");
    }
    // The budget first: the count is the input's, which nothing has checked yet.
    const std::uint64_t count = g_.accessors[s.input].count;
    for (const curve_id id : curves) {
        if (auto r = budget_.take_keys(count, curve_path(id))) return r;
    }
    // Then both accessors within their buffers, before anything is allocated for their elements.
    const std::uint64_t values = out.interp == interpolation::cubic ? 3 * count : count;
    accessor_view times, v;
    if (auto r = view_of(s.input, values_kind::times, count, times)) return r;
    const values_kind kind = path == rotation_path ? values_kind::rotation : values_kind::vec3;
    if (auto r = view_of(s.output, kind, values, v)) return r;
    out.times.resize(count);
    for (std::uint64_t k = 0; k < count; ++k) {
        out.times[k] = recording_time(times.component_at(k, 0));
    }
    out.values.resize(values);
    for (std::uint64_t k = 0; k < values; ++k) {
        for (int i = 0; i < v.width; ++i) out.values[k][i] = v.component_at(k, i);
    }
    return std::nullopt;
}

// The keys of `id` from `t`: of(v, k, false) is the curve's value for the value v of key k, and
// of(v, k, true) the curve's tangent for the track's tangent v at key k.
void importer::write_keys(curve_id id, const track& t, auto&& of) {
    std::vector<keyframe>& keys = out_[id].keys;
    keys.resize(t.times.size());
    for (std::size_t k = 0; k < keys.size(); ++k) {
        keyframe& key = keys[k];
        key.time = t.times[k];
        key.value = static_cast<float>(of(t.value(k), k, false));
        switch (t.interp) {
            case interpolation::linear:
                break;
            case interpolation::step:
                // FORMAT.md section 7: an infinite tangent makes the segment constant.
                key.in_tangent = key.out_tangent = std::numeric_limits<float>::infinity();
                key.weighted_mode = 0;
                break;
            case interpolation::cubic:
                // glTF's CUBICSPLINE is a Hermite spline whose tangents are per second (the
                // specification multiplies them by the segment's length), as Unity's are: the
                // same numbers, converted as the values are.
                key.in_tangent = static_cast<float>(of(t.in_tangent(k), k, true));
                key.out_tangent = static_cast<float>(of(t.out_tangent(k), k, true));
                key.in_weight = key.out_weight = 1.0f / 3.0f;
                key.weighted_mode = 0;
                break;
        }
    }
}

std::optional<import_result> importer::import_position(const target& t,
                                                       const std::vector<const ancestor*>& chain,
                                                       const placement& rest,
                                                       std::span<const curve_id> curves) {
    track tr;
    const vec3& p0 = rest.translation;
    if (auto r = track_or_rest(t, chain, translation_path, curves, {p0.x, p0.y, p0.z, 0.0}, tr)) {
        return r;
    }
    const std::vector<placement> at = places(chain, tr.times);
    for (int axis = 0; axis < 3; ++axis) {
        write_keys(curves[axis], tr,
                   [&](const std::array<double, 4>& v, std::size_t k, bool tangent) {
                       // A moving ancestor's own motion is not in a tangent: where it is, it
                       // is in the keys, one at each of the node's.
                       const placement& parent = at[at.size() == 1 ? 0 : k];
                       const vec3 local{v[0], v[1], v[2]};
                       const vec3 p = tangent ? parent.direction(local) : parent.point(local);
                       // Unity's x is glTF's mirrored.
                       return axis == 0 ? -p.x : axis == 1 ? p.y : p.z;
                   });
    }
    return std::nullopt;
}

std::optional<import_result> importer::import_pose(const target& t,
                                                   std::array<curve_id, 7> curves) {
    const placement rest = rest_of(t.node, false);
    std::vector<const ancestor*> chain;
    if (auto r = chain_of(t, chain)) return r;
    if (auto r = import_position(t, chain, rest, std::span(curves).first(3))) return r;
    track rot;
    const quatd& q0 = rest.rotation;
    if (auto r = track_or_rest(t, chain, rotation_path, std::span(curves).subspan(3),
                               {q0.x, q0.y, q0.z, q0.w}, rot)) {
        return r;
    }
    const std::vector<placement> at = places(chain, rot.times);
    for (int c = 0; c < 4; ++c) {
        write_keys(curves[3 + c], rot, [&](const std::array<double, 4>& v, std::size_t k, bool) {
            // The parent's rotation times the node's: linear in the node's, so tangents too.
            const quatd q = multiply(at[at.size() == 1 ? 0 : k].rotation, {v[0], v[1], v[2], v[3]});
            // The mirror of x: a rotation (x, y, z, w) is (x, -y, -z, w) on the other side.
            return c == 0 ? q.x : c == 1 ? -q.y : c == 2 ? -q.z : q.w;
        });
    }
    return std::nullopt;
}

std::optional<import_result> importer::import_gaze(const target& t) {
    const placement rest = rest_of(t.node, false);
    const std::array<curve_id, 3> origin = {gaze_curve(ray_channel::origin_x),
                                            gaze_curve(ray_channel::origin_y),
                                            gaze_curve(ray_channel::origin_z)};
    const std::array<curve_id, 3> direction = {gaze_curve(ray_channel::direction_x),
                                               gaze_curve(ray_channel::direction_y),
                                               gaze_curve(ray_channel::direction_z)};
    std::vector<const ancestor*> chain;
    if (auto r = chain_of(t, chain)) return r;
    if (auto r = import_position(t, chain, rest, origin)) return r;
    track rot;
    const quatd& q0 = rest.rotation;
    if (auto r = track_or_rest(t, chain, rotation_path, direction, {q0.x, q0.y, q0.z, q0.w}, rot)) {
        return r;
    }
    const std::vector<placement> at = places(chain, rot.times);
    // The direction is the node's +z turned by its rotation: d(q) = (2(xz + wy), 2(yz - wx),
    // 1 - 2(x^2 + y^2)). A tangent of the direction is d's derivative along the rotation's
    // tangent, at the key's rotation.
    for (int axis = 0; axis < 3; ++axis) {
        write_keys(
            direction[axis], rot, [&](const std::array<double, 4>& v, std::size_t k, bool tangent) {
                const quatd& parent = at[at.size() == 1 ? 0 : k].rotation;
                if (!tangent) {
                    const quatd q = multiply(parent, {v[0], v[1], v[2], v[3]});
                    const double d[3] = {2 * (q.x * q.z + q.w * q.y), 2 * (q.y * q.z - q.w * q.x),
                                         1 - 2 * (q.x * q.x + q.y * q.y)};
                    return axis == 0 ? -d[0] : d[axis];
                }
                const std::array<double, 4>& key = rot.value(k);
                const quatd q = multiply(parent, {key[0], key[1], key[2], key[3]});
                const quatd m = multiply(parent, {v[0], v[1], v[2], v[3]});
                const double d[3] = {2 * (m.x * q.z + q.x * m.z + m.w * q.y + q.w * m.y),
                                     2 * (m.y * q.z + q.y * m.z - m.w * q.x - q.w * m.x),
                                     -4 * (q.x * m.x + q.y * m.y)};
                return axis == 0 ? -d[0] : d[axis];
            });
    }
    return std::nullopt;
}

std::optional<import_result> importer::import_tracked(const target& t, curve_id tracked) {
    track sc;
    bool has = false;
    const curve_id curves[] = {tracked};
    if (auto r = read_track(t, scale_path, curves, sc, has)) return r;
    std::vector<keyframe>& keys = out_[tracked].keys;
    const auto on = [](const std::array<double, 4>& s) {
        return s[0] > 0.5 && s[1] > 0.5 && s[2] > 0.5;
    };
    if (!has) {
        const tinygltf::Node& n = g_.nodes[t.node];
        const bool rest_on = n.scale.size() != 3 || on({n.scale[0], n.scale[1], n.scale[2], 0.0});
        keys = {{first_time_, rest_on ? 1.0f : 0.0f}};
        return std::nullopt;
    }
    // A key where the state changes, as MRTK writes a bool curve. A time that does not follow
    // the one before keeps both keys, for the check every import ends with to refuse.
    for (std::size_t k = 0; k < sc.times.size(); ++k) {
        const float v = on(sc.value(k)) ? 1.0f : 0.0f;
        const bool ordered = k == 0 || sc.times[k] > sc.times[k - 1];
        if (!ordered && keys.back().time != sc.times[k - 1]) {
            keys.push_back({sc.times[k - 1], on(sc.value(k - 1)) ? 1.0f : 0.0f});
        }
        if (keys.empty() || keys.back().value != v || !ordered) keys.push_back({sc.times[k], v});
    }
    return std::nullopt;
}

std::optional<import_result> importer::import_extras() {
    const json* animation = nullptr;
    if (animation_ >= 0) {
        const auto a = doc_.find("animations");
        if (a != doc_.end() && a->is_array() && static_cast<std::size_t>(animation_) < a->size()) {
            animation = &(*a)[animation_];
        }
    }
    const json* extras = nullptr;
    if (animation != nullptr && animation->is_object()) {
        const auto e = animation->find("extras");
        if (e != animation->end() && e->is_object()) extras = &*e;
    }
    out_.markers = std::vector<marker>{};
    if (extras != nullptr) {
        const auto m = extras->find("markers");
        if (m != extras->end() && m->is_array()) {
            if (auto r = budget_.take_markers(m->size())) return r;
            out_.markers->reserve(m->size());
            for (const json& entry : *m) {
                const auto time = entry.is_object() ? entry.find("time") : entry.end();
                const auto name = entry.is_object() ? entry.find("name") : entry.end();
                if (time == entry.end() || !time->is_number() || name == entry.end() ||
                    !name->is_string()) {
                    warn("a marker without a time or a name left out");
                    continue;
                }
                out_.markers->push_back(
                    {recording_time(time->get<double>()), name->get<std::string>()});
            }
        }
    }
    if (!out_.blocks.hands) return std::nullopt;
    for (const side s : {side::left, side::right}) {
        const curve_id id = hand_state_curve(s == side::left ? hand_state::left_pinching
                                                             : hand_state::right_pinching);
        std::vector<keyframe>& keys = out_[id].keys;
        keys = {{first_time_, 0.0f}};
        const json* list = nullptr;
        if (extras != nullptr) {
            const auto p = extras->find("pinch");
            if (p != extras->end() && p->is_object()) {
                const auto l = p->find(s == side::left ? "left" : "right");
                if (l != p->end() && l->is_array()) list = &*l;
            }
        }
        if (list == nullptr) continue;
        // Two keys an interval at most.
        if (auto r = budget_.take_keys(2 * static_cast<std::uint64_t>(list->size()) + 1,
                                       curve_path(id))) {
            return r;
        }
        for (const json& interval : *list) {
            if (!interval.is_array() || interval.size() != 2 || !interval[0].is_number() ||
                !interval[1].is_number()) {
                warn(std::string(curve_path(id)) +
                     ": a pinch interval that is not [start, end] left out");
                continue;
            }
            const float start = recording_time(interval[0].get<double>());
            const float end = recording_time(interval[1].get<double>());
            if (keys.size() == 1 && start <= keys[0].time) {
                keys[0] = {start, 1.0f};
            } else {
                keys.push_back({start, 1.0f});
            }
            // An interval still on at the recording's end ends at its duration: no key turns
            // it off.
            if (!(duration_ && end >= *duration_) && end > start) keys.push_back({end, 0.0f});
        }
    }
    return std::nullopt;
}

std::optional<import_result> importer::run() {
    if (auto r = check_nodes()) return r;
    if (auto r = find_channels()) return r;
    // The export's extras: the shift its times were given, the recording's duration.
    const auto asset = doc_.find("asset");
    if (asset != doc_.end() && asset->is_object()) {
        const auto extras = asset->find("extras");
        if (extras != asset->end() && extras->is_object()) {
            const auto ia = extras->find("inputanim");
            if (ia != extras->end() && ia->is_object()) {
                const auto shift = ia->find("timeShift");
                if (shift != ia->end() && shift->is_number()) time_shift_ = shift->get<double>();
                const auto duration = ia->find("duration");
                if (duration != ia->end() && duration->is_number()) {
                    duration_ = static_cast<float>(duration->get<double>());
                }
            }
        }
    }
    const int head = find_node("head");
    const int gaze = find_node("gaze");
    const int hands[2] = {find_node("hand.left"), find_node("hand.right")};
    if (head < 0 && gaze < 0 && hands[0] < 0 && hands[1] < 0) {
        std::string names =
            "expected the nodes head, gaze, hand.left, hand.right, the hands' "
            "joints";
        for (std::size_t j = 1; j < joint_count; ++j) {
            names += (j == 1 ? " " : ", ") + std::string(joint_names[j]);
        }
        return refuse(import_error::missing_nodes, names + " (a \".001\" suffix allowed)");
    }
    // The first time of the animation's samplers: where a node without a channel is placed. A
    // sampler whose times cannot be read is refused when its channel is read.
    if (animation_ >= 0) {
        bool first = true;
        for (const tinygltf::AnimationSampler& s : g_.animations[animation_].samplers) {
            if (s.input < 0 || static_cast<std::size_t>(s.input) >= g_.accessors.size()) continue;
            accessor_view v;
            const std::uint64_t count = g_.accessors[s.input].count;
            if (count == 0 || view_of(s.input, values_kind::times, count, v)) continue;
            const float t = recording_time(v.component_at(0, 0));
            if (first || t < first_time_) first_time_ = t;
            first = false;
        }
    }
    out_.blocks = {head >= 0, hands[0] >= 0 || hands[1] >= 0, gaze >= 0};
    const auto target_of = [&](int node, int hand) {
        target t;
        t.node = node;
        t.hand = hand;
        t.samplers = channels_[node];
        return t;
    };
    if (head >= 0) {
        std::array<curve_id, 7> curves{};
        for (std::size_t c = 0; c < 7; ++c) curves[c] = camera_curve(static_cast<pose_channel>(c));
        if (auto r = import_pose(target_of(head, -1), curves)) return r;
    }
    if (gaze >= 0) {
        if (auto r = import_gaze(target_of(gaze, -1))) return r;
    }
    for (const side s : {side::left, side::right}) {
        if (!out_.blocks.hands) break;
        const int hand = hands[s == side::left ? 0 : 1];
        const curve_id tracked = hand_state_curve(s == side::left ? hand_state::left_tracked
                                                                  : hand_state::right_tracked);
        if (hand < 0) {
            out_[tracked].keys = {{first_time_, 0.0f}};
            warn(std::string("no node ") + (s == side::left ? "hand.left" : "hand.right") +
                 ": that hand is not tracked");
            continue;
        }
        if (auto r = import_tracked(target_of(hand, hand), tracked)) return r;
        // The joints below the hand, by name (Blender's ".001" allowed).
        std::array<int, joint_count> joints{};
        joints.fill(-1);
        std::vector<int> below(g_.nodes[hand].children.begin(), g_.nodes[hand].children.end());
        for (std::size_t k = 0; k < below.size(); ++k) {
            const int n = below[k];
            for (const int c : g_.nodes[n].children) below.push_back(c);
            const std::string_view name = base_name(g_.nodes[n].name);
            for (std::size_t j = 1; j < joint_count; ++j) {
                if (name != joint_names[j]) continue;
                if (joints[j] < 0) {
                    joints[j] = n;
                } else {
                    warn("node " + g_.nodes[n].name + " left out: " + g_.nodes[hand].name +
                         " has joint " + g_.nodes[joints[j]].name);
                }
            }
        }
        for (std::size_t j = 1; j < joint_count; ++j) {
            if (joints[j] < 0) {
                warn(g_.nodes[hand].name + ": no joint " + std::string(joint_names[j]));
                continue;
            }
            std::array<curve_id, 7> curves{};
            for (std::size_t c = 0; c < 7; ++c) {
                curves[c] = joint_curve(s, static_cast<joint>(j), static_cast<pose_channel>(c));
            }
            if (auto r = import_pose(target_of(joints[j], hand), curves)) return r;
        }
    }
    return import_extras();
}

// tinygltf's file system: nothing. The document it is given has no URI left, so it never asks;
// were it to, it is refused rather than reading a path of its own making.
tinygltf::FsCallbacks no_files() {
    tinygltf::FsCallbacks fs;
    fs.FileExists = [](const std::string&, void*) { return false; };
    fs.ExpandFilePath = [](const std::string& path, void*) { return path; };
    fs.ReadWholeFile = [](std::vector<unsigned char>*, std::string* err, const std::string&,
                          void*) {
        if (err != nullptr) *err += "no file is read here";
        return false;
    };
    fs.WriteWholeFile = [](std::string* err, const std::string&, const std::vector<unsigned char>&,
                           void*) {
        if (err != nullptr) *err += "no file is written here";
        return false;
    };
    fs.user_data = nullptr;
    return fs;
}

import_result import_gltf_checked(std::span<const std::byte> bytes, bool binary, model& out,
                                  const import_options& options, import_files* files) {
    container c;
    if (binary) {
        if (auto r = open_glb(bytes, c)) return *r;
    } else {
        c.text = as_text(bytes);
    }
    json_census census;
    const bool parsed = json::sax_parse(c.text, &census);
    if (census.too_deep()) {
        return refuse(import_error::bad_gltf,
                      "JSON nested deeper than " + std::to_string(max_json_depth));
    }
    if (census.too_many()) {
        return refuse(import_error::bad_gltf,
                      "JSON of more than " + std::to_string(max_json_values) + " values");
    }
    if (!parsed) return refuse(import_error::bad_gltf, "not a glTF: its JSON does not parse");
    json doc = json::parse(c.text, nullptr, false);
    if (doc.is_discarded() || !doc.is_object()) {
        return refuse(import_error::bad_gltf, "not a glTF: its JSON does not parse as an object");
    }
    const auto asset = doc.find("asset");
    const json* version = nullptr;
    if (asset != doc.end() && asset->is_object() && asset->contains("version")) {
        version = &(*asset)["version"];
    }
    if (version == nullptr || !version->is_string() ||
        !version->get_ref<const std::string&>().starts_with("2.")) {
        return refuse(import_error::bad_gltf, "asset.version is not 2.x");
    }
    for (const char* key : {"nodes", "accessors", "bufferViews", "buffers", "animations"}) {
        const auto it = doc.find(key);
        if (it != doc.end() && it->size() > max_gltf_entries) {
            return refuse(import_error::bad_gltf,
                          std::to_string(it->size()) + " " + key + ", more than the " +
                              std::to_string(max_gltf_entries) + " an import reads");
        }
    }
    for (const json& a : doc.value("animations", json::array())) {
        for (const char* key : {"channels", "samplers"}) {
            if (a.is_object() && a.contains(key) && a[key].size() > max_gltf_entries) {
                return refuse(import_error::bad_gltf, std::string("an animation of more than ") +
                                                          std::to_string(max_gltf_entries) + " " +
                                                          key);
            }
        }
    }
    buffers b;
    if (auto r = b.load(doc, c, options, files)) return *r;
    const std::string structure = structure_of(doc).dump();
    tinygltf::Model g;
    tinygltf::TinyGLTF loader;
    loader.SetFsCallbacks(no_files());
    std::string err, warn;
    if (structure.size() > std::numeric_limits<unsigned int>::max() ||
        !loader.LoadASCIIFromString(&g, &err, &warn, structure.data(),
                                    static_cast<unsigned int>(structure.size()), "", 0)) {
        while (!err.empty() && err.back() == '\n') err.pop_back();
        return refuse(import_error::bad_gltf, err);
    }
    importer im(g, doc, b, options, out);
    std::optional<import_result> refused = im.run();
    if (refused) return *refused;
    import_result done;
    done.warnings = std::move(im.warnings);
    return finish_import(out, options, std::move(done));
}

}  // namespace

import_result import_gltf(std::span<const std::byte> bytes, bool binary, model& out,
                          const import_options& options, import_files* files) {
    try {
        return import_gltf_checked(bytes, binary, out, options, files);
    } catch (const std::bad_alloc&) {
        import_result r;
        r.error = std::make_error_code(std::errc::not_enough_memory);
        return r;
    } catch (const std::exception& e) {
        // tinygltf and nlohmann throw on what they cannot read (a number out of range).
        return refuse(import_error::bad_gltf, e.what());
    }
}

}  // namespace detail

folder_files::folder_files(std::filesystem::path folder) : folder_(std::move(folder)) {}

std::error_code folder_files::read(std::string_view relative, std::uint64_t max_bytes,
                                   std::vector<std::byte>& out) {
    if (!detail::inside_folder(relative)) return import_error::bad_uri;
    // A link below the folder may lead out of it: the file's own path, links resolved, must still
    // be below the folder's.
    std::error_code ec;
    const std::filesystem::path folder =
        std::filesystem::canonical(folder_.empty() ? std::filesystem::path(".") : folder_, ec);
    if (ec) return ec;
    const std::filesystem::path file = std::filesystem::canonical(folder_ / relative, ec);
    if (ec) return ec;
    const auto [rest, _] = std::mismatch(folder.begin(), folder.end(), file.begin(), file.end());
    if (rest != folder.end()) return import_error::bad_uri;
    const input in = input::open(file.string(), ec, file_access::reads);
    if (ec) return ec;
    read_.push_back(file.string());
    const std::optional<std::uint64_t> size = in.file_size();
    if (!size) return std::make_error_code(std::errc::invalid_argument);
    if (*size > max_bytes) return import_error::too_large;
    try {
        out.resize(*size);
    } catch (const std::bad_alloc&) {
        return std::make_error_code(std::errc::not_enough_memory);
    }
    const std::size_t n = in.read_at(0, out, ec);
    if (ec) return ec;
    if (n != out.size()) return std::make_error_code(std::errc::io_error);
    return {};
}

}  // namespace inputanim
