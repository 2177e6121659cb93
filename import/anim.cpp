// Unity's text AnimationClip (.anim) read back into a model: export's inverse (docs/EXPORT.md,
// "Unity AnimationClip"; the bindings are lib/detail/unity_clip.hpp's), and a clip as Unity saves
// it after an edit. yaml-cpp parses; its events are read as they come, so memory is the model's
// and the text is never held as a tree (yaml-cpp's nodes take tens of times the text's size).
//
// The events are read by name: a field the import does not need, in any order, is passed over. A
// node's start, an alias's expansion included, is counted against a ceiling of nodes and depth
// before yaml-cpp goes into it: yaml-cpp's parser recurses once per level of nesting, each level
// after the event that opens it, so refusing that event bounds the parser's stack. yaml-cpp's
// scanner may read far ahead of the parser (a flow collection whole): the input is handed over in
// chunks, and what is read ahead of the last node is bounded too (guarded_input).
#include <algorithm>
#include <charconv>
#include <cstring>
#include <istream>
#include <limits>
#include <new>
#include <optional>
#include <streambuf>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include "detail/unity_clip.hpp"
#include "importers.hpp"

namespace inputanim::detail {

namespace {

// The deepest nesting read: a clip as Unity writes it is 8 levels deep (the document, the clip,
// a curve list, a curve, its AnimationCurve, its keys, a key, a vector curve's value).
constexpr int max_yaml_depth = 64;
// The most nodes read, aliases counted as the nodes they name: twice the input's bytes and 4,096
// more. YAML without aliases holds at most about a node per byte (`[a,b]`, `- ` and `:` each
// cost a byte or more), so only aliases reach it.
constexpr std::uint64_t yaml_node_ceiling(std::size_t bytes) noexcept {
    return 2 * static_cast<std::uint64_t>(bytes) + 4096;
}
// Warnings past this many are counted in one last warning, so that a clip of a million strange
// bindings costs no more memory than its keys.
constexpr std::size_t max_warnings = 100;

// A refusal thrown out of the event handler, through yaml-cpp, to import_anim.
struct refused {
    import_result result;
};

[[noreturn]] void refuse_at(import_error e, const YAML::Mark& mark, std::string detail) {
    throw refused{refuse(e, "line " + std::to_string(mark.line + 1) + ": " + detail)};
}

// The most YAML indicators yaml-cpp may read ahead of the last node it handed over. Its scanner
// reads a flow collection (`[...]`, `{...}`) whole before the collection's first node, in case
// the collection is a mapping's key, holding a token of some 100 bytes for each indicator: 10 MB
// of `[` took 3.4 GB (under ASan). A clip's flow collections are a few dozen bytes, and a long
// scalar (a marker's name) holds few indicators.
constexpr std::size_t max_lookahead_indicators = 65536;
// What the input is handed to yaml-cpp in, so that the lookahead is counted as it grows.
constexpr std::size_t input_chunk = 4096;

// The input as an istream, without a copy, handed to yaml-cpp chunk by chunk: the indicators
// it reads since the last node the reader got are counted, and a chunk past the ceiling is
// refused instead of read.
class guarded_input final : public std::streambuf {
  public:
    explicit guarded_input(std::span<const std::byte> bytes) noexcept
        : begin_(reinterpret_cast<const char*>(bytes.data())),
          next_(begin_),
          end_(begin_ + bytes.size()) {}
    // A node reached the reader: what was read ahead so far is behind it.
    void caught_up() noexcept { ahead_ = 0; }

  protected:
    int_type underflow() override {
        if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
        if (next_ == end_) return traits_type::eof();
        const char* chunk_end = next_ + std::min<std::size_t>(input_chunk, end_ - next_);
        ahead_ += static_cast<std::size_t>(std::count_if(next_, chunk_end, [](char c) {
            return std::string_view("[]{},:?!&*'\"").find(c) != std::string_view::npos;
        }));
        if (ahead_ > max_lookahead_indicators) {
            throw refused{refuse(import_error::yaml_too_many_nodes,
                                 "more than " + std::to_string(max_lookahead_indicators) +
                                     " YAML indicators ([]{},:?!&*'\") before byte " +
                                     std::to_string(chunk_end - begin_) +
                                     " with no node read: a flow collection too large to read")};
        }
        // The get area is only read: std::streambuf's interface wants non-const pointers.
        char* chunk = const_cast<char*>(next_);
        setg(chunk, chunk, chunk + (chunk_end - next_));
        next_ = chunk_end;
        return traits_type::to_int_type(*gptr());
    }

  private:
    const char* begin_;
    const char* next_;
    const char* end_;
    std::size_t ahead_ = 0;
};

// Unity's binary serialised file: a text clip holds no NUL byte (YAML does not allow one), and
// every binary Unity asset begins with a header of big-endian integers whose high bytes are 0.
std::optional<import_result> binary_check(std::span<const std::byte> bytes) {
    const void* nul = std::memchr(bytes.data(), 0, bytes.size());
    if (nul == nullptr) return std::nullopt;
    const auto at = static_cast<const std::byte*>(nul) - bytes.data();
    return refuse(
        import_error::binary_clip,
        "a NUL byte at offset " + std::to_string(at) +
            ": a binary file, not Unity's text serialisation (in Unity, Edit > Project "
            "Settings > Editor > Asset Serialization: Force Text, then re-save the clip)");
}

// YAML 1.1's own types (tag:yaml.org,2002:...), a node without a tag ("?", "!" for a quoted
// scalar), and Unity's class tags, `!u!NNN` with the %TAG directive Unity writes or without.
bool known_tag(std::string_view tag) noexcept {
    if (tag.empty() || tag == "?" || tag == "!") return true;
    const auto digits = [](std::string_view s) {
        return !s.empty() &&
               std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
    };
    constexpr std::string_view unity = "tag:unity3d.com,2011:";
    if (tag.starts_with(unity)) return digits(tag.substr(unity.size()));
    if (tag.starts_with("!u!")) return digits(tag.substr(3));
    constexpr std::string_view yaml = "tag:yaml.org,2002:";
    if (!tag.starts_with(yaml)) return false;
    const std::string_view type = tag.substr(yaml.size());
    for (const std::string_view t : {"map", "seq", "str", "null", "bool", "int", "float", "binary",
                                     "timestamp", "omap", "pairs", "set", "merge", "value"}) {
        if (type == t) return true;
    }
    return false;
}

// A float as Unity writes one (shortest digits, `Infinity`, `-Infinity`, `NaN`) or as YAML 1.1
// spells one (`.inf`, `-.inf`, `.nan`, a leading `+`); a number past the float's range is the
// float it rounds to (infinity, or 0).
std::optional<float> parse_float(std::string_view s) {
    if (!s.empty() && s.front() == '+') s.remove_prefix(1);
    const bool negative = !s.empty() && s.front() == '-';
    const std::string_view body = negative ? s.substr(1) : s;
    if (body == ".inf" || body == ".Inf" || body == ".INF") {
        return negative ? -std::numeric_limits<float>::infinity()
                        : std::numeric_limits<float>::infinity();
    }
    if (!negative && (body == ".nan" || body == ".NaN" || body == ".NAN")) {
        return std::numeric_limits<float>::quiet_NaN();
    }
    if (s.empty()) return std::nullopt;
    float v = 0.0f;
    const char* end = s.data() + s.size();
    std::from_chars_result r = std::from_chars(s.data(), end, v);
    if (r.ec == std::errc::result_out_of_range) {
        double d = 0.0;
        r = std::from_chars(s.data(), end, d);
        v = static_cast<float>(d);
    }
    if (r.ec != std::errc{} || r.ptr != end) return std::nullopt;
    return v;
}

std::optional<std::int32_t> parse_int(std::string_view s) {
    if (!s.empty() && s.front() == '+') s.remove_prefix(1);
    std::int32_t v = 0;
    const char* end = s.data() + s.size();
    const auto [p, ec] = std::from_chars(s.data(), end, v);
    if (ec != std::errc{} || p != end || s.empty()) return std::nullopt;
    return v;
}

// What a node is to the clip, from where it stands.
enum class role : std::uint8_t {
    ignored,
    root,          // a document's root: AnimationClip's mapping is under it
    clip,          // the AnimationClip's fields
    curves,        // m_EditorCurves, m_FloatCurves
    curve_entry,   // one of them: curve, attribute, path, classID
    curve_body,    // its AnimationCurve: m_Curve, m_PreInfinity, m_PostInfinity
    keys,          // m_Curve
    key,           // a Keyframe
    events,        // m_Events
    event,         // an AnimationEvent
    vectors,       // m_PositionCurves, m_RotationCurves: Unity's runtime vector curves
    vector_entry,  // one of them: its path
    others,        // lists of curves no curve of the format is: scale, Euler, object references
    field,         // a scalar field the import reads (scalar_field)
};

// The clip's lists of curves, by name.
enum class list : std::uint8_t {
    none,
    editor,
    runtime_float,
    position,
    rotation,
    scale,
    euler,
    euler_editor,
    compressed_rotation,
    pptr
};
constexpr std::string_view list_names[] = {"",
                                           "m_EditorCurves",
                                           "m_FloatCurves",
                                           "m_PositionCurves",
                                           "m_RotationCurves",
                                           "m_ScaleCurves",
                                           "m_EulerCurves",
                                           "m_EulerEditorCurves",
                                           "m_CompressedRotationCurves",
                                           "m_PPtrCurves"};
std::string_view name_of(list l) noexcept {
    return list_names[static_cast<std::size_t>(l)];
}
list list_named(std::string_view name) noexcept {
    for (std::size_t i = 1; i < std::size(list_names); ++i) {
        if (name == list_names[i]) return static_cast<list>(i);
    }
    return list::none;
}

bool is_map_role(role r) noexcept {
    return r == role::clip || r == role::curve_entry || r == role::curve_body || r == role::key ||
           r == role::event || r == role::vector_entry;
}
bool is_list_role(role r) noexcept {
    return r == role::curves || r == role::keys || r == role::events || r == role::vectors ||
           r == role::others;
}

// The scalar fields read, by the role of the mapping that holds them.
bool scalar_field(role r, std::string_view key) noexcept {
    switch (r) {
        case role::curve_entry:
            return key == "attribute" || key == "path" || key == "classID";
        case role::curve_body:
            return key == "m_PreInfinity" || key == "m_PostInfinity";
        case role::key:
            return key == "time" || key == "value" || key == "inSlope" || key == "outSlope" ||
                   key == "inWeight" || key == "outWeight" || key == "weightedMode";
        case role::event:
            return key == "time" || key == "functionName" || key == "data";
        case role::vector_entry:
            return key == "path";
        default:
            return false;
    }
}

struct frame {
    role what = role::ignored;
    bool is_map = false;
    list which = list::none;
    // Mappings: whether the next node is a key, and the last key when it was a scalar.
    bool want_key = true;
    bool key_is_scalar = false;
    std::string key;
    // This node and those under it, aliases expanded; its levels.
    std::uint64_t nodes = 1;
    int height = 1;
    YAML::anchor_t anchor = YAML::NullAnchor;
};

// What an anchor names: its node count and levels, and its value when it is a scalar.
struct anchored {
    std::uint64_t nodes = 1;
    int height = 1;
    std::optional<std::string> scalar;
};

// A key being read. Unity's keys before serializedVersion 3 have no weights: such a key is
// unweighted with Unity's default weights of 1/3.
struct key_fields {
    keyframe k{0.0f, 0.0f, 0.0f, 0.0f, 1.0f / 3.0f, 1.0f / 3.0f, 0};
    bool time = false, value = false, in_slope = false, out_slope = false;
};

// A curve of a list being read: its keys come before its binding.
struct entry_fields {
    list which = list::none;
    // "m_EditorCurves[3] (line 40)", for the messages.
    std::string name;
    curve c;
    bool body = false, m_curve = false;
    std::optional<std::string> attribute, path;
    std::optional<std::int32_t> class_id;
    int pre_infinity = 2, post_infinity = 2;
    std::size_t odd_weighted_modes = 0;
};

struct event_fields {
    YAML::Mark mark;
    std::optional<float> time;
    std::optional<std::string> function;
    std::string data;
};

// The curve a binding names, if any.
std::optional<curve_id> bound_curve(std::string_view path, std::string_view attribute,
                                    std::int32_t class_id) {
    for (std::size_t i = 0; i < curve_id_count; ++i) {
        const curve_id id{static_cast<std::uint16_t>(i)};
        const unity_binding b = unity_binding_of(id);
        if (b.class_id != class_id) continue;
        const std::size_t hand = b.attribute_hand.size();
        if (attribute.size() != hand + b.attribute.size() ||
            attribute.substr(0, hand) != b.attribute_hand ||
            attribute.substr(hand) != b.attribute) {
            continue;
        }
        if (b.path_joint.empty()
                ? path == b.path_hand
                : path.size() == b.path_hand.size() + 1 + b.path_joint.size() &&
                      path.starts_with(b.path_hand) && path[b.path_hand.size()] == '/' &&
                      path.ends_with(b.path_joint)) {
            return id;
        }
    }
    return std::nullopt;
}

class clip_reader final : public YAML::EventHandler {
  public:
    clip_reader(std::size_t input_bytes, const import_options& options, guarded_input& input)
        : options_(options),
          input_(input),
          budget_(options.limits),
          node_ceiling_(yaml_node_ceiling(input_bytes)) {
        editor_.resize(curve_id_count);
        runtime_.resize(curve_id_count);
    }

    void OnDocumentStart(const YAML::Mark&) override {
        anchors_.clear();
        ++documents_;
    }
    void OnDocumentEnd() override {}

    void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
        visit(mark, 1, 1);
        remember(anchor, {1, 1, std::string{}});
        node_value(mark, std::string_view{}, true);
    }

    void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
        const auto it = anchors_.find(anchor);
        if (it == anchors_.end()) {
            refuse_at(import_error::yaml_too_many_nodes, mark,
                      "an alias inside the node it names, which expands without end");
        }
        const anchored& a = it->second;
        visit(mark, a.nodes, a.height);
        if (a.scalar) {
            // The text aliases repeat is read as often as they repeat it: bounded as the nodes.
            if (a.scalar->size() > node_ceiling_ - std::min(alias_bytes_, node_ceiling_)) {
                refuse_at(import_error::yaml_too_many_nodes, mark,
                          "aliases repeating more than " + std::to_string(node_ceiling_) +
                              " bytes of text (twice the input's bytes and 4,096)");
            }
            alias_bytes_ += a.scalar->size();
            node_value(mark, *a.scalar, false);
            return;
        }
        // A mapping or list through an alias: read where the clip's curves, keys or events are,
        // refused (Unity writes none); passed over elsewhere.
        if (place(std::nullopt) != role::ignored) {
            refuse_at(import_error::not_a_clip, mark,
                      "an alias to a mapping or list where the clip's curves, keys or events "
                      "are read; Unity's clips hold none");
        }
    }

    void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                  const std::string& value) override {
        check_tag(mark, tag);
        visit(mark, 1, 1);
        if (anchor != YAML::NullAnchor) remember(anchor, {1, 1, value});
        node_value(mark, value, false);
    }

    void OnSequenceStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                         YAML::EmitterStyle::value) override {
        open(mark, tag, anchor, false);
    }
    void OnSequenceEnd() override { close(); }

    void OnMapStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                    YAML::EmitterStyle::value) override {
        open(mark, tag, anchor, true);
    }
    void OnMapEnd() override { close(); }

    // The model, once every document is read.
    import_result finish(model& m);

  private:
    void check_tag(const YAML::Mark& mark, std::string_view tag) const {
        if (!known_tag(tag)) {
            refuse_at(import_error::unknown_tag, mark,
                      "the tag '" + std::string(tag) + "' is neither YAML's nor Unity's (!u!NNN)");
        }
    }

    // Counts `nodes` more nodes of `height` levels starting at the current depth.
    void visit(const YAML::Mark& mark, std::uint64_t nodes, int height) {
        input_.caught_up();
        if (static_cast<std::uint64_t>(stack_.size()) + static_cast<std::uint64_t>(height) >
            static_cast<std::uint64_t>(max_yaml_depth)) {
            refuse_at(import_error::yaml_too_deep, mark,
                      "nested deeper than " + std::to_string(max_yaml_depth) + " levels");
        }
        if (nodes > node_ceiling_ - std::min(visited_, node_ceiling_)) {
            refuse_at(import_error::yaml_too_many_nodes, mark,
                      "more than " + std::to_string(node_ceiling_) +
                          " nodes (twice the input's bytes and 4,096), aliases expanded");
        }
        visited_ += nodes;
        if (!stack_.empty()) {
            frame& parent = stack_.back();
            parent.nodes += nodes;
            parent.height = std::max(parent.height, height + 1);
        }
    }

    void remember(YAML::anchor_t anchor, anchored a) {
        if (anchor != YAML::NullAnchor) anchors_[anchor] = std::move(a);
    }

    // The role of the node starting now (`scalar`: its value; nullopt for a mapping, a list or an
    // alias to one), as its parent sees it; a mapping's key node is ignored, and a scalar key is
    // kept as the name of the next value.
    role place(std::optional<std::string_view> scalar) {
        if (stack_.empty()) return role::root;
        frame& parent = stack_.back();
        if (parent.is_map) {
            if (parent.want_key) {
                parent.want_key = false;
                parent.key_is_scalar = scalar.has_value();
                if (scalar) parent.key.assign(*scalar);
                return role::ignored;
            }
            parent.want_key = true;
            if (!parent.key_is_scalar) return role::ignored;
            return value_role(parent);
        }
        switch (parent.what) {
            case role::curves:
                return role::curve_entry;
            case role::keys:
                return role::key;
            case role::events:
                return role::event;
            case role::vectors:
                return role::vector_entry;
            case role::others:
                ++others_[static_cast<std::size_t>(parent.which)];
                return role::ignored;
            default:
                return role::ignored;
        }
    }

    role value_role(const frame& parent) {
        const std::string_view key = parent.key;
        switch (parent.what) {
            case role::root:
                if (key != "AnimationClip") return role::ignored;
                if (clip_seen_) {
                    warn("document " + std::to_string(documents_) +
                         " holds a second AnimationClip, not imported (only the first is)");
                    return role::ignored;
                }
                clip_seen_ = true;
                return role::clip;
            case role::clip: {
                const list l = list_named(key);
                pending_list_ = l;
                if (key == "m_Events") return role::events;
                if (l == list::editor || l == list::runtime_float) return role::curves;
                if (l == list::position || l == list::rotation) return role::vectors;
                if (l != list::none) return role::others;
                return role::ignored;
            }
            case role::curve_entry:
                if (key == "curve") return role::curve_body;
                break;
            case role::curve_body:
                if (key == "m_Curve") {
                    entry_.m_curve = true;
                    return role::keys;
                }
                break;
            default:
                break;
        }
        return scalar_field(parent.what, key) ? role::field : role::ignored;
    }

    // A scalar or null node.
    void node_value(const YAML::Mark& mark, std::string_view value, bool null) {
        const role r = place(value);
        if (r == role::root || r == role::ignored) return;
        if (r == role::field) {
            set_field(mark, stack_.back().what, stack_.back().key, value);
            return;
        }
        if (is_list_role(r) && null) return;  // `m_Events:` with nothing: an empty list
        refuse_at(import_error::not_a_clip, mark,
                  "'" + std::string(value) + "' where the clip has a " +
                      (is_map_role(r) ? "mapping" : "list"));
    }

    void open(const YAML::Mark& mark, std::string_view tag, YAML::anchor_t anchor, bool is_map) {
        check_tag(mark, tag);
        role r = place(std::nullopt);
        const list which = pending_list_;
        if (r == role::field) {
            refuse_at(import_error::not_a_clip, mark,
                      "the field '" + stack_.back().key + "' is a " +
                          (is_map ? "mapping" : "list") + ", not a scalar");
        }
        if (r != role::root && r != role::ignored && is_map != is_map_role(r)) {
            refuse_at(import_error::not_a_clip, mark,
                      std::string("a ") + (is_map ? "mapping" : "list") + " where the clip has a " +
                          (is_map ? "list" : "mapping"));
        }
        if (r == role::root && !is_map) r = role::ignored;
        visit(mark, 1, 1);
        frame f;
        f.what = r;
        f.is_map = is_map;
        f.which = (r == role::curves || r == role::vectors || r == role::others) ? which
                  : stack_.empty()                                               ? list::none
                                   : stack_.back().which;
        f.anchor = anchor;
        stack_.push_back(std::move(f));
        // The fields of a new curve, key or event.
        if (r == role::curve_entry) {
            entry_ = {};
            entry_.which = stack_.back().which;
            entry_.name = std::string(name_of(entry_.which)) + "[" +
                          std::to_string(entry_count_[static_cast<std::size_t>(entry_.which)]++) +
                          "] (line " + std::to_string(mark.line + 1) + ")";
        } else if (r == role::curve_body) {
            entry_.body = true;
        } else if (r == role::key) {
            key_ = {};
        } else if (r == role::event) {
            event_ = {};
            event_.mark = mark;
        } else if (r == role::vector_entry) {
            vector_path_.reset();
        }
    }

    void close() {
        frame f = std::move(stack_.back());
        stack_.pop_back();
        // The node's own count went to its parent as it grew; what an alias to it expands to:
        if (f.anchor != YAML::NullAnchor) remember(f.anchor, {f.nodes, f.height, std::nullopt});
        if (!stack_.empty()) {
            stack_.back().nodes += f.nodes - 1;
            stack_.back().height = std::max(stack_.back().height, f.height + 1);
        }
        switch (f.what) {
            case role::key:
                end_key();
                break;
            case role::curve_entry:
                end_entry();
                break;
            case role::event:
                end_event();
                break;
            case role::vector_entry:
                vectors_.push_back({f.which, vector_path_.value_or(std::string{})});
                break;
            default:
                break;
        }
    }

    void set_field(const YAML::Mark& mark, role r, std::string_view key, std::string_view value) {
        const auto number = [&]() {
            const std::optional<float> v = parse_float(value);
            if (!v) {
                refuse_at(import_error::not_a_clip, mark,
                          std::string(key) + ": '" + std::string(value) + "' is not a number");
            }
            return *v;
        };
        const auto integer = [&]() {
            const std::optional<std::int32_t> v = parse_int(value);
            if (!v) {
                refuse_at(import_error::not_a_clip, mark,
                          std::string(key) + ": '" + std::string(value) + "' is not an integer");
            }
            return *v;
        };
        if (r == role::key) {
            keyframe& k = key_.k;
            if (key == "time") {
                k.time = number();
                key_.time = true;
            } else if (key == "value") {
                k.value = number();
                key_.value = true;
            } else if (key == "inSlope") {
                k.in_tangent = number();
                key_.in_slope = true;
            } else if (key == "outSlope") {
                k.out_tangent = number();
                key_.out_slope = true;
            } else if (key == "inWeight") {
                k.in_weight = number();
            } else if (key == "outWeight") {
                k.out_weight = number();
            } else {
                k.weighted_mode = integer();
            }
        } else if (r == role::curve_entry) {
            if (key == "classID") {
                entry_.class_id = integer();
            } else if (key == "path") {
                entry_.path.emplace(value);
            } else {
                entry_.attribute.emplace(value);
            }
        } else if (r == role::curve_body) {
            (key == "m_PreInfinity" ? entry_.pre_infinity : entry_.post_infinity) = integer();
        } else if (r == role::event) {
            if (key == "time") {
                event_.time = number();
            } else if (key == "functionName") {
                event_.function.emplace(value);
            } else {
                // The marker's name: held to its ceiling before it is copied.
                if (value.size() > options_.limits.max_marker_name_bytes) {
                    refuse_at(import_error::limit_exceeded, mark,
                              "a marker name of " + std::to_string(value.size()) +
                                  " bytes, more than --max-marker-name-bytes " +
                                  std::to_string(options_.limits.max_marker_name_bytes));
                }
                event_.data.assign(value);
            }
        } else if (r == role::vector_entry) {
            vector_path_.emplace(value);
        }
    }

    void end_key() {
        if (!key_.time || !key_.value || !key_.in_slope || !key_.out_slope) {
            throw refused{refuse(import_error::not_a_clip,
                                 entry_.name + ": a key without time, value, inSlope or outSlope")};
        }
        // The curve's own ceiling, then the recording's, before the key is kept.
        if (auto r = key_budget(options_.limits).take_keys(entry_.c.keys.size() + 1, entry_.name)) {
            throw refused{std::move(*r)};
        }
        if (auto r = budget_.take_keys(1, entry_.name)) throw refused{std::move(*r)};
        keyframe k = key_.k;
        if (k.weighted_mode < 0 || k.weighted_mode > 3) {
            // Unity's WeightedMode is None, In, Out or Both, and the format holds no other: another
            // is imported as None, its weights unused, and said in a warning.
            k.weighted_mode = 0;
            ++entry_.odd_weighted_modes;
        }
        entry_.c.keys.push_back(k);
    }

    void end_entry() {
        if (!entry_.body || !entry_.m_curve) {
            throw refused{refuse(import_error::not_a_clip,
                                 entry_.name + ": a curve without its curve: m_Curve")};
        }
        if (!entry_.attribute || !entry_.path || !entry_.class_id) {
            throw refused{refuse(import_error::not_a_clip,
                                 entry_.name + ": a curve without attribute, path or classID")};
        }
        const std::string binding = "path '" + *entry_.path + "' attribute '" + *entry_.attribute +
                                    "' classID " + std::to_string(*entry_.class_id);
        const std::optional<curve_id> id =
            bound_curve(*entry_.path, *entry_.attribute, *entry_.class_id);
        if (!id) {
            warn(entry_.name + ": " + binding + " binds no curve of the recording; not imported");
            return;
        }
        const std::string path(curve_path(*id));
        if (entry_.odd_weighted_modes > 0) {
            warn(path + ": " + std::to_string(entry_.odd_weighted_modes) +
                 " keys with a weightedMode outside 0-3, imported as None (0): their weights are "
                 "not used");
        }
        for (const int infinity : {entry_.pre_infinity, entry_.post_infinity}) {
            if (infinity < 0 || infinity > 2) {
                warn(path + ": an infinity mode " + std::to_string(infinity) +
                     " Unity does not define, imported as Clamp (wrap mode 8)");
            }
        }
        std::vector<std::optional<curve>>& slots =
            entry_.which == list::editor ? editor_ : runtime_;
        std::optional<curve>& slot = slots[to_index(*id)];
        if (slot) {
            warn(entry_.name + ": " + path + " is bound twice in " +
                 std::string(name_of(entry_.which)) + "; the first is imported");
            return;
        }
        entry_.c.pre_wrap = wrap_of_unity_infinity(entry_.pre_infinity);
        entry_.c.post_wrap = wrap_of_unity_infinity(entry_.post_infinity);
        slot = std::move(entry_.c);
    }

    void end_event() {
        if (!event_.time || !event_.function) {
            throw refused{
                refuse(import_error::not_a_clip, "line " + std::to_string(event_.mark.line + 1) +
                                                     ": an event without time or functionName")};
        }
        if (*event_.function != "OnInputAnimationMarker") {
            warn("line " + std::to_string(event_.mark.line + 1) + ": an event calling '" +
                 *event_.function + "', not OnInputAnimationMarker: not a marker, not imported");
            return;
        }
        if (auto r = budget_.take_markers(markers_.size() + 1)) throw refused{std::move(*r)};
        markers_.push_back({*event_.time, std::move(event_.data)});
    }

    void warn(std::string text) {
        if (warnings_.size() < max_warnings) {
            warnings_.push_back(std::move(text));
        } else {
            ++warnings_left_out_;
        }
    }

    const import_options& options_;
    guarded_input& input_;
    key_budget budget_;
    const std::uint64_t node_ceiling_;
    std::uint64_t visited_ = 0;
    std::uint64_t alias_bytes_ = 0;
    std::vector<frame> stack_;
    std::unordered_map<YAML::anchor_t, anchored> anchors_;
    std::size_t documents_ = 0;
    bool clip_seen_ = false;
    list pending_list_ = list::none;
    std::size_t entry_count_[std::size(list_names)] = {};
    std::size_t others_[std::size(list_names)] = {};

    entry_fields entry_;
    key_fields key_;
    event_fields event_;
    std::optional<std::string> vector_path_;
    struct vector_curve {
        list which;
        std::string path;
    };
    std::vector<vector_curve> vectors_;

    // The curves each list binds, by curve id.
    std::vector<std::optional<curve>> editor_;
    std::vector<std::optional<curve>> runtime_;
    std::vector<marker> markers_;
    std::vector<std::string> warnings_;
    std::size_t warnings_left_out_ = 0;
};

import_result clip_reader::finish(model& m) {
    if (!clip_seen_) return refuse(import_error::not_a_clip, "no AnimationClip in the YAML");
    // Unity keeps a GameObject's or an Animator's curve twice, among the editor's curves and the
    // runtime's float curves; the editor's is the one its Animation window edits.
    for (std::size_t i = 0; i < curve_id_count; ++i) {
        std::optional<curve>& runtime = runtime_[i];
        if (!runtime) continue;
        const curve_id id{static_cast<std::uint16_t>(i)};
        if (!editor_[i]) {
            editor_[i] = std::move(runtime);
        } else if (editor_[i]->keys.size() != runtime->keys.size() ||
                   !std::equal(runtime->keys.begin(), runtime->keys.end(), editor_[i]->keys.begin(),
                               [](const keyframe& a, const keyframe& b) {
                                   return a.time == b.time && a.value == b.value;
                               })) {
            warn(std::string(curve_path(id)) +
                 ": m_FloatCurves and m_EditorCurves disagree; m_EditorCurves's keys imported");
        }
    }
    const auto bound_in = [&](block b) {
        for (std::size_t i = 0; i < curve_id_count; ++i) {
            if (editor_[i] && block_of(curve_id{static_cast<std::uint16_t>(i)}) == b) return true;
        }
        return false;
    };
    m.blocks = {bound_in(block::camera), bound_in(block::hands), bound_in(block::gaze)};
    std::size_t unbound = 0;
    std::string first_unbound;
    for (std::size_t i = 0; i < curve_id_count; ++i) {
        const curve_id id{static_cast<std::uint16_t>(i)};
        if (!has_curve(m.blocks, id)) continue;
        if (!editor_[i]) {
            // The None joint is not in a clip `export` writes: it comes back empty, as MRTK
            // records it.
            if (!in_unity_clip(id)) continue;
            if (unbound++ == 0) first_unbound = curve_path(id);
            continue;
        }
        curve& c = m[id];
        c = std::move(*editor_[i]);
        if (kind_of(id) == curve_kind::bool_curve) {
            // A bool key holds its time and value; it steps whatever its slopes are.
            for (keyframe& k : c.keys) k = {k.time, k.value};
        }
    }
    if (unbound > 0) {
        warn(std::to_string(unbound) + " curves of the clip's blocks are not bound (the first " +
             first_unbound + "): imported with no keys");
    }
    // Unity's runtime vector curves are built from the editor's per-component curves; one with
    // no such curves is not imported.
    for (const vector_curve& v : vectors_) {
        const std::string_view attribute =
            v.which == list::position ? "m_LocalPosition." : "m_LocalRotation.";
        bool covered = false;
        for (std::size_t i = 0; i < curve_id_count && !covered; ++i) {
            const unity_binding b = unity_binding_of(curve_id{static_cast<std::uint16_t>(i)});
            if (!editor_[i] || !b.attribute.starts_with(attribute)) continue;
            const std::string path =
                b.path_joint.empty() ? std::string(b.path_hand)
                                     : std::string(b.path_hand) + "/" + std::string(b.path_joint);
            covered = path == v.path;
        }
        if (!covered) {
            warn(std::string(name_of(v.which)) + ": path '" + v.path +
                 "' has a vector curve and no per-component curves in m_EditorCurves; not "
                 "imported (key it again in Unity's Animation window, or export it anew)");
        }
    }
    for (std::size_t l = 0; l < std::size(list_names); ++l) {
        if (others_[l] == 0) continue;
        warn(std::string(list_names[l]) + ": " + std::to_string(others_[l]) +
             " curves not imported (scale, Euler angles and object references are no curve of "
             "the recording; key rotations with Quaternion interpolation)");
    }
    m.markers = std::move(markers_);
    import_result r;
    r.warnings = std::move(warnings_);
    if (warnings_left_out_ > 0) {
        r.warnings.push_back("and " + std::to_string(warnings_left_out_) + " more warnings");
    }
    return r;
}

}  // namespace

import_result import_anim(std::span<const std::byte> bytes, model& out,
                          const import_options& options) {
    if (auto r = binary_check(bytes)) return std::move(*r);
    try {
        guarded_input input(bytes);
        std::istream in(&input);
        clip_reader reader(bytes.size(), options, input);
        YAML::Parser parser(in);
        while (parser.HandleNextDocument(reader)) {
        }
        import_result r = reader.finish(out);
        if (r.error) return r;
        return finish_import(out, options, std::move(r));
    } catch (const refused& r) {
        return r.result;
    } catch (const YAML::Exception& e) {
        return refuse(import_error::bad_yaml, e.what());
    } catch (const std::bad_alloc&) {
        import_result r;
        r.error = std::make_error_code(std::errc::not_enough_memory);
        return r;
    }
}

}  // namespace inputanim::detail
