// The importers' front (import.hpp): format names, the category, the dispatch, and the check every
// import ends with.
#include "inputanim/import.hpp"

#include <algorithm>
#include <cctype>
#include <string>

#include "detail/rules.hpp"
#include "importers.hpp"
#include "inputanim/detail/codes.hpp"
#include "inputanim/validate.hpp"

namespace inputanim {

namespace {

constexpr import_format all_formats[] = {import_format::anim, import_format::gltf,
                                         import_format::glb, import_format::csv};

constexpr detail::code_row<import_error> import_rows[] = {
    {import_error::none, "none", "no error"},
    {import_error::too_large, "too_large", "the input is larger than allowed"},
    {import_error::limit_exceeded, "limit_exceeded", "the recording would pass a configured limit"},
    {import_error::not_finite, "not_finite", "a key time or value is not finite"},
    {import_error::unsorted_keys, "unsorted_keys", "a curve's key times do not increase"},
    {import_error::bad_field, "bad_field",
     "a bool value, weighted mode, wrap mode or marker name the format cannot hold"},
    {import_error::binary_clip, "binary_clip",
     "a Unity file serialised as binary; save it with Force Text"},
    {import_error::bad_yaml, "bad_yaml", "the input is not YAML"},
    {import_error::yaml_too_deep, "yaml_too_deep", "the YAML is nested too deep"},
    {import_error::yaml_too_many_nodes, "yaml_too_many_nodes",
     "the YAML holds, or its aliases expand to, too many nodes"},
    {import_error::unknown_tag, "unknown_tag", "a YAML tag that is neither YAML's nor Unity's"},
    {import_error::not_a_clip, "not_a_clip", "the YAML is not a Unity AnimationClip"},
    {import_error::bad_gltf, "bad_gltf", "the input is not glTF 2.0"},
    {import_error::bad_uri, "bad_uri", "a buffer URI outside the glTF's folder"},
    {import_error::bad_data_uri, "bad_data_uri", "a data URI that is not base64"},
    {import_error::bad_accessor, "bad_accessor", "an accessor the animation cannot be read from"},
    {import_error::sparse_accessor, "sparse_accessor", "a sparse accessor"},
    {import_error::bad_sampler, "bad_sampler", "an animation sampler that cannot be read"},
    {import_error::missing_nodes, "missing_nodes", "none of the nodes an exported recording has"},
    {import_error::missing_column, "missing_column", "a CSV column is missing or names no curve"},
    {import_error::bad_number, "bad_number", "a CSV field is not a number"},
};
constexpr detail::code_table<import_error> import_codes{import_rows, "unknown error"};

import_error import_code_of(errc code) noexcept {
    switch (code) {
        case errc::non_finite:
            return import_error::not_finite;
        case errc::unsorted_keys:
            return import_error::unsorted_keys;
        case errc::limit_exceeded:
            return import_error::limit_exceeded;
        default:
            // What else a written model can break: bad_bool_value, bad_weighted_mode,
            // bad_wrap_mode, bad_utf8.
            return import_error::bad_field;
    }
}

}  // namespace

std::string_view import_format_name(import_format f) noexcept {
    switch (f) {
        case import_format::anim:
            return "anim";
        case import_format::gltf:
            return "gltf";
        case import_format::glb:
            return "glb";
        case import_format::csv:
            return "csv";
    }
    return "unknown";
}

std::optional<import_format> parse_import_format_name(std::string_view name) noexcept {
    for (const import_format f : all_formats) {
        if (name == import_format_name(f)) return f;
    }
    return std::nullopt;
}

std::optional<import_format> import_format_of(std::string_view path) noexcept {
    const std::size_t dot = path.rfind('.');
    if (dot == std::string_view::npos || path.find('/', dot) != std::string_view::npos) {
        return std::nullopt;
    }
    const std::string_view ext = path.substr(dot + 1);
    for (const import_format f : all_formats) {
        const std::string_view name = import_format_name(f);
        if (std::equal(ext.begin(), ext.end(), name.begin(), name.end(), [](char a, char b) {
                return std::tolower(static_cast<unsigned char>(a)) == b;
            })) {
            return f;
        }
    }
    return std::nullopt;
}

std::string_view import_error_name(import_error e) noexcept {
    return import_codes.name(e);
}

const std::error_category& import_error_category() noexcept {
    static const detail::code_category<import_error> category("inputanim.import", import_codes);
    return category;
}

std::error_code make_error_code(import_error e) noexcept {
    return {static_cast<int>(e), import_error_category()};
}

import_result import_model(std::span<const std::byte> bytes, import_format format, model& out,
                           const import_options& options, import_files* files) {
    if (bytes.size() > options.limits.max_bytes) {
        return detail::refuse(import_error::too_large,
                              std::to_string(bytes.size()) + " bytes, more than --max-bytes " +
                                  std::to_string(options.limits.max_bytes));
    }
    out = model{};
    switch (format) {
        case import_format::anim:
            return detail::import_anim(bytes, out, options);
        case import_format::gltf:
        case import_format::glb:
            return detail::import_gltf(bytes, format == import_format::glb, out, options, files);
        case import_format::csv:
            return detail::import_csv(bytes, out, options);
    }
    return detail::refuse(import_error::bad_gltf);
}

namespace detail {

import_result refuse(import_error e, std::string detail) {
    import_result r;
    r.error = e;
    r.detail = std::move(detail);
    return r;
}

std::optional<import_result> key_budget::take_keys(std::uint64_t count, std::string_view what) {
    if (count > limits_.max_keyframes_per_curve) {
        return refuse(import_error::limit_exceeded,
                      std::string(what) + ": " + std::to_string(count) +
                          " keys, more than --max-keyframes-per-curve " +
                          std::to_string(limits_.max_keyframes_per_curve));
    }
    if (count > limits_.max_total_keyframes - std::min(total_, limits_.max_total_keyframes)) {
        return refuse(import_error::limit_exceeded,
                      std::string(what) + ": more than --max-total-keyframes " +
                          std::to_string(limits_.max_total_keyframes) + " keys in all");
    }
    total_ += count;
    return std::nullopt;
}

std::optional<import_result> key_budget::take_markers(std::uint64_t count) {
    if (count > limits_.max_markers) {
        return refuse(import_error::limit_exceeded, std::to_string(count) +
                                                        " markers, more than --max-markers " +
                                                        std::to_string(limits_.max_markers));
    }
    return std::nullopt;
}

import_result finish_import(model& m, const import_options& options, import_result done) {
    m.major = 1;
    m.minor = 1;
    m.layout = layout::compact;
    for (std::size_t i = 0; i < curve_count(m.blocks) && m.layout == layout::compact; ++i) {
        const curve_id id = curve_at(m.blocks, i);
        if (kind_of(id) == curve_kind::bool_curve) continue;
        for (const keyframe& k : m[id].keys) {
            if (!mrtk_linear(k.in_tangent, k.out_tangent, k.in_weight, k.out_weight,
                             k.weighted_mode)) {
                m.layout = layout::full;
                break;
            }
        }
    }
    if (m.layout == layout::compact) {
        // A compact file holds a key's time and value alone: the model is what it reads back as
        // (a -0 tangent or weight, which mrtk_linear takes for 0, as +0).
        for (curve& c : m.curves) {
            for (keyframe& k : c.keys) k = {k.time, k.value};
        }
    }
    validate_options check;
    check.level = level::full;
    check.layout = m.layout == layout::full ? layout_choice::full : layout_choice::compact;
    check.limits = options.limits;
    check.limits.max_bytes = std::numeric_limits<std::uint64_t>::max();
    check.threads = 1;
    const report verdict = validate(write(m), check);
    if (verdict.valid()) return done;
    const error& e = verdict.error;
    std::string where;
    if (e.place == error_place::curve) {
        where = std::string(curve_path(e.curve));
        if (e.index >= 0) where += " key " + std::to_string(e.index);
    } else if (e.place == error_place::markers) {
        where = "marker";
        if (e.index >= 0) where += " " + std::to_string(e.index);
    }
    std::string detail = where.empty() ? std::string(error_description(e.code))
                                       : where + ": " + std::string(error_description(e.code));
    if (e.code == errc::limit_exceeded) detail += " (--" + std::string(limit_name(e.limit)) + ")";
    return refuse(import_code_of(e.code), std::move(detail));
}

}  // namespace detail

}  // namespace inputanim
