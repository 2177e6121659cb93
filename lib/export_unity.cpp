// Unity's text AnimationClip (docs/EXPORT.md): the recording's own keys, bound to the paths and
// properties an MRTK-style rig animates, with the markers as AnimationEvents. Made in pieces,
// key by key; its size is bounded before the first byte, and counted exactly when the bound
// passes the ceiling.
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "detail/export_stream.hpp"
#include "detail/export_text.hpp"
#include "detail/unity_clip.hpp"

namespace inputanim::detail {

namespace {

// Text put into a buffer the caller sized for it.
class line {
  public:
    explicit line(char* out) noexcept : out_(out) {}
    line& operator<<(std::string_view s) noexcept {
        if (s.empty()) return *this;
        std::memcpy(out_ + n_, s.data(), s.size());
        n_ += s.size();
        return *this;
    }
    // A float as Unity writes it: shortest, NaN and Infinity spelled out.
    line& unity(float v) noexcept {
        if (std::isnan(v)) return *this << "NaN";
        if (std::isinf(v)) return *this << (v > 0 ? "Infinity" : "-Infinity");
        n_ += number_chars(v, out_ + n_);
        return *this;
    }
    line& integer(std::int64_t v) noexcept {
        n_ +=
            static_cast<std::size_t>(std::to_chars(out_ + n_, out_ + n_ + 24, v).ptr - (out_ + n_));
        return *this;
    }
    std::size_t size() const noexcept { return n_; }

  private:
    char* out_;
    std::size_t n_ = 0;
};

// The most bytes of one key's text: 196 of fixed text and integers, six floats of at most 15.
constexpr std::size_t max_key_text = 196 + 6 * 15;
// The most bytes of a curve's head or tail (the longest path is RightHand/ and a joint name).
constexpr std::size_t max_curve_text = 320;
// A marker's event without its name, and the fixed text of the clip.
constexpr std::size_t max_event_text = 200;
constexpr std::uint64_t max_fixed_text = 4096;

std::size_t curve_head(const curve_view& c, char* out) noexcept {
    line l(out);
    l << "  - curve:\n      serializedVersion: 2\n      m_Curve:"
      << (c.keys.empty() ? " []\n" : "\n");
    return l.size();
}

std::size_t key_text(const keyframe_view& k, bool stepped, char* out) noexcept {
    line l(out);
    // A bool curve is a step (FORMAT.md section 7): Unity's constant tangents.
    l << "      - serializedVersion: 3\n        time: ";
    l.unity(k.time()) << "\n        value: ";
    l.unity(k.value()) << "\n        inSlope: ";
    stepped ? l << "Infinity" : l.unity(k.in_tangent());
    l << "\n        outSlope: ";
    stepped ? l << "Infinity" : l.unity(k.out_tangent());
    l << "\n        tangentMode: " << (stepped ? "103" : "0") << "\n        weightedMode: ";
    stepped ? l << "0" : l.integer(k.weighted_mode_raw());
    l << "\n        inWeight: ";
    l.unity(k.in_weight()) << "\n        outWeight: ";
    l.unity(k.out_weight()) << "\n";
    return l.size();
}

std::size_t curve_tail(const curve_view& c, char* out) noexcept {
    const unity_binding b = unity_binding_of(c.id);
    line l(out);
    l << "      m_PreInfinity: ";
    l.integer(unity_infinity(c.pre_wrap)) << "\n      m_PostInfinity: ";
    l.integer(unity_infinity(c.post_wrap))
        << "\n      m_RotationOrder: 4\n    attribute: " << b.attribute_hand << b.attribute
        << "\n    path: ";
    if (b.path_hand.empty()) {
        l << "\"\"";
    } else {
        l << b.path_hand;
        if (!b.path_joint.empty()) l << "/" << b.path_joint;
    }
    l << "\n    classID: ";
    l.integer(b.class_id) << "\n    script: {fileID: 0}\n";
    return l.size();
}

// A marker's event: its head (up to the name's opening quote) and its tail.
std::size_t event_head(const marker_view& m, char* out) noexcept {
    line l(out);
    l << "  - time: ";
    l.unity(m.time) << "\n    functionName: OnInputAnimationMarker\n    data: \"";
    return l.size();
}

constexpr std::string_view event_tail =
    "\"\n    objectReferenceParameter: {fileID: 0}\n    floatParameter: 0\n"
    "    intParameter: 0\n    messageOptions: 0\n";

class unity_stream final : public export_stream {
  public:
    unity_stream(const recording& rec, const export_options& o) : rec_(rec), o_(o) {}

    export_result plan() noexcept override;
    std::error_code prepare() noexcept override;
    std::span<const std::byte> next() noexcept override;

  private:
    // The clip's text between its lists: 0 before the float curves, 1 between them and the
    // editor curves, 2 after those (up to the events).
    void fixed_text(text_target& t, int part) const;
    // Whether a curve is in the runtime's float curves (1) or the editor's (every curve: 3).
    static bool in_list(const curve_view& c, int list) noexcept {
        return in_unity_clip(c.id) && (list == 3 || unity_binding_of(c.id).class_id != 4);
    }
    std::uint64_t size_bound() const noexcept;
    std::uint64_t exact_size() const noexcept;
    // The curves of a list, from the curve under way; false when the piece is full.
    bool next_curves(int list) noexcept;
    bool next_events() noexcept;

    const recording& rec_;
    const export_options o_;
    export_result result_;

    std::vector<std::byte> buffer_;
    std::array<std::string, 3> fixed_;
    bool prepared_ = false;

    piece_buffer piece_;
    // 0, 2 and 4 the fixed texts, 1 and 3 the lists, 5 the events, 6 done.
    int step_ = 0;
    std::size_t text_at_ = 0;
    std::size_t curve_ = 0;
    // Within a curve: 0 its head, 1 its keys, 2 its tail.
    int curve_phase_ = 0;
    std::size_t key_ = 0;
    marker_range::iterator marker_;
    std::uint32_t markers_done_ = 0;
    bool marker_open_ = false;
    std::size_t name_at_ = 0;
};

void unity_stream::fixed_text(text_target& t, int part) const {
    const auto list_head = [&](std::string_view name, int list) {
        const auto curves = rec_.curves();
        const bool any = std::any_of(curves.begin(), curves.end(),
                                     [&](const curve_view& c) { return in_list(c, list); });
        t << "  " << name << (any ? ":\n" : ": []\n");
    };
    if (part == 0) {
        t << "%YAML 1.1\n%TAG !u! tag:unity3d.com,2011:\n--- !u!74 &7400000\nAnimationClip:\n"
             "  m_ObjectHideFlags: 0\n  m_CorrespondingSourceObject: {fileID: 0}\n"
             "  m_PrefabInstance: {fileID: 0}\n  m_PrefabAsset: {fileID: 0}\n"
             "  m_Name: InputAnimation\n  serializedVersion: 6\n  m_Legacy: 0\n"
             "  m_Compressed: 0\n  m_UseHighQualityCurve: 1\n  m_RotationCurves: []\n"
             "  m_CompressedRotationCurves: []\n  m_EulerCurves: []\n  m_PositionCurves: []\n"
             "  m_ScaleCurves: []\n";
        // The editor's curves hold every curve; the runtime's float curves the ones Unity itself
        // keeps there (not a Transform's, whose runtime curves are vectors Unity builds).
        list_head("m_FloatCurves", 1);
        return;
    }
    if (part == 1) {
        const summary& sum = rec_.summary();
        char start[32];
        char stop[32];
        const std::size_t start_length =
            line(start).unity(std::min(0.0f, sum.start.value_or(0.0f))).size();
        const std::size_t stop_length = line(stop).unity(sum.duration.value_or(0.0f)).size();
        t << "  m_PPtrCurves: []\n  m_SampleRate: ";
        t.number(o_.rate);
        t << "\n  m_WrapMode: 0\n  m_Bounds:\n    m_Center: {x: 0, y: 0, z: 0}\n"
             "    m_Extent: {x: 0, y: 0, z: 0}\n  m_ClipBindingConstant:\n"
             "    genericBindings: []\n    pptrCurveMapping: []\n"
             "  m_AnimationClipSettings:\n    serializedVersion: 2\n"
             "    m_AdditiveReferencePoseClip: {fileID: 0}\n    m_AdditiveReferencePoseTime: 0\n"
             "    m_StartTime: "
          << std::string_view(start, start_length)
          << "\n    m_StopTime: " << std::string_view(stop, stop_length)
          << "\n    m_OrientationOffsetY: 0\n    m_Level: 0\n    m_CycleOffset: 0\n"
             "    m_HasAdditiveReferencePose: 0\n    m_LoopTime: 0\n    m_LoopBlend: 0\n"
             "    m_LoopBlendOrientation: 0\n    m_LoopBlendPositionY: 0\n"
             "    m_LoopBlendPositionXZ: 0\n    m_KeepOriginalOrientation: 0\n"
             "    m_KeepOriginalPositionY: 1\n    m_KeepOriginalPositionXZ: 0\n"
             "    m_HeightFromFeet: 0\n    m_Mirror: 0\n";
        list_head("m_EditorCurves", 3);
        return;
    }
    t << "  m_EulerEditorCurves: []\n  m_HasGenericRootTransform: 0\n"
         "  m_HasMotionFloatCurves: 0\n  m_Events:"
      << (rec_.markers().empty() ? " []\n" : "\n");
}

std::uint64_t unity_stream::size_bound() const noexcept {
    std::uint64_t bound = max_fixed_text;
    for (const curve_view& c : rec_.curves()) {
        if (!in_unity_clip(c.id)) continue;
        bound += (in_list(c, 1) ? 2 : 1) * (max_curve_text + max_key_text * c.keys.size());
    }
    for (const marker_view& m : rec_.markers()) {
        bound += max_event_text + max_quoted_char * m.name.size();
    }
    return bound;
}

std::uint64_t unity_stream::exact_size() const noexcept {
    std::uint64_t n = 0;
    for (int part = 0; part < 3; ++part) {
        text_target counted;
        fixed_text(counted, part);
        n += counted.size();
    }
    char text[max_key_text + max_curve_text];
    for (const int list : {1, 3}) {
        for (const curve_view& c : rec_.curves()) {
            if (!in_list(c, list)) continue;
            n += curve_head(c, text) + curve_tail(c, text);
            const bool stepped = c.kind == curve_kind::bool_curve;
            for (const keyframe_view k : c.keys) n += key_text(k, stepped, text);
        }
    }
    for (const marker_view& m : rec_.markers()) {
        n += event_head(m, text) + quoted_length(m.name) + event_tail.size();
    }
    return n;
}

export_result unity_stream::plan() noexcept {
    result_ = {};
    // The rate is only the clip's m_SampleRate, but held to what a grid takes.
    if (!std::isfinite(o_.rate) || !(o_.rate > 0.0) || !std::isfinite(1.0 / o_.rate)) {
        result_.error = make_error_code(grid_error::bad_rate);
        return result_;
    }
    if (o_.from || o_.to) {
        result_.error = make_error_code(export_error::window_not_supported);
        return result_;
    }
    result_.buffer_bytes = export_piece_bytes;
    for (int part = 0; part < 3; ++part) {
        text_target counted;
        fixed_text(counted, part);
        result_.buffer_bytes += counted.size();
    }
    result_.size = size_bound();
    if (result_.size > o_.max_bytes) {
        result_.size = exact_size();
        if (result_.size > o_.max_bytes) result_.error = make_error_code(export_error::too_large);
    }
    return result_;
}

std::error_code unity_stream::prepare() noexcept {
    try {
        buffer_.resize(export_piece_bytes);
        for (int part = 0; part < 3; ++part) {
            build_text(fixed_[part], [&](text_target& t) { fixed_text(t, part); });
        }
    } catch (const std::bad_alloc&) {
        return std::make_error_code(std::errc::not_enough_memory);
    }
    piece_.attach(buffer_);
    step_ = 0;
    text_at_ = 0;
    prepared_ = true;
    return {};
}

bool unity_stream::next_curves(int list) noexcept {
    const std::span<const curve_view> curves = rec_.curves();
    for (; curve_ < curves.size(); ++curve_, curve_phase_ = 0) {
        const curve_view& c = curves[curve_];
        if (!in_list(c, list)) continue;
        if (curve_phase_ == 0) {
            if (!piece_.fits(max_curve_text)) return false;
            piece_.advance(curve_head(c, piece_.cursor()));
            curve_phase_ = 1;
            key_ = 0;
        }
        if (curve_phase_ == 1) {
            const bool stepped = c.kind == curve_kind::bool_curve;
            for (; key_ < c.keys.size(); ++key_) {
                if (!piece_.fits(max_key_text)) return false;
                piece_.advance(key_text(c.keys[key_], stepped, piece_.cursor()));
            }
            curve_phase_ = 2;
        }
        if (!piece_.fits(max_curve_text)) return false;
        piece_.advance(curve_tail(c, piece_.cursor()));
    }
    return true;
}

bool unity_stream::next_events() noexcept {
    const std::uint32_t count = static_cast<std::uint32_t>(rec_.markers().size());
    while (markers_done_ < count) {
        const marker_view& m = *marker_;
        if (!marker_open_) {
            if (!piece_.fits(max_event_text)) return false;
            piece_.advance(event_head(m, piece_.cursor()));
            marker_open_ = true;
            name_at_ = 0;
        }
        name_at_ = piece_.quote_from(m.name, name_at_);
        if (name_at_ < m.name.size() || !piece_.fits(event_tail.size())) return false;
        piece_.put(event_tail);
        marker_open_ = false;
        ++marker_;
        ++markers_done_;
    }
    return true;
}

std::span<const std::byte> unity_stream::next() noexcept {
    piece_.clear();
    if (!prepared_) return {};
    while (step_ < 6) {
        if (step_ % 2 == 0) {
            const std::string& text = fixed_[step_ / 2];
            text_at_ = piece_.copy_from(text, text_at_);
            if (text_at_ < text.size()) return piece_.taken();
            text_at_ = 0;
            curve_ = 0;
            curve_phase_ = 0;
            if (step_ == 4) {
                marker_ = rec_.markers().begin();
                markers_done_ = 0;
                marker_open_ = false;
            }
        } else if (step_ == 5) {
            if (!next_events()) return piece_.taken();
        } else if (!next_curves(step_ == 1 ? 1 : 3)) {
            return piece_.taken();
        }
        ++step_;
    }
    return piece_.taken();
}

}  // namespace

std::unique_ptr<export_stream> make_unity_stream(const recording& rec, const export_options& o) {
    return std::make_unique<unity_stream>(rec, o);
}

}  // namespace inputanim::detail
