// The exporters' front (inputanim/export.hpp): format and error names, the exporter's three
// steps over the format's stream (lib/export_gltf.cpp, lib/export_unity.cpp), and the whole
// export to a sink.
#include "inputanim/export.hpp"

#include <new>
#include <string>

#include "detail/export_stream.hpp"
#include "inputanim/detail/codes.hpp"

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

namespace {

constexpr detail::code_row<export_error> export_rows[] = {
    {export_error::none, "none", "no error"},
    {export_error::empty_window, "empty_window",
     "the time window holds no grid point of the recording"},
    {export_error::too_large, "too_large", "the export would be larger than allowed"},
    {export_error::window_not_supported, "window_not_supported",
     "a Unity clip carries the recording's keys as they are: no time window"},
    {export_error::not_finite, "not_finite", "a number glTF would hold is not finite"},
    {export_error::time_overflow, "time_overflow",
     "shifted to start at 0, the grid's times would pass the largest float"},
    {export_error::glb_too_large, "glb_too_large", "a .glb holds at most 4 GiB"},
};
constexpr detail::code_table<export_error> export_codes{export_rows, "unknown error"};

}  // namespace

std::string_view export_error_name(export_error e) noexcept {
    return export_codes.name(e);
}

const std::error_category& export_error_category() noexcept {
    static const detail::code_category<export_error> category("inputanim.export", export_codes);
    return category;
}

std::error_code make_error_code(export_error e) noexcept {
    return {static_cast<int>(e), export_error_category()};
}

class exporter::impl {
  public:
    std::unique_ptr<detail::export_stream> stream;
};

exporter::exporter(const recording& rec, const export_options& o)
    : impl_(std::make_unique<impl>()) {
    impl_->stream = o.format == export_format::anim ? detail::make_unity_stream(rec, o)
                                                    : detail::make_gltf_stream(rec, o);
}

exporter::~exporter() = default;
exporter::exporter(exporter&&) noexcept = default;
exporter& exporter::operator=(exporter&&) noexcept = default;

export_result exporter::plan() noexcept {
    return impl_->stream->plan();
}

std::error_code exporter::prepare() noexcept {
    return impl_->stream->prepare();
}

std::span<const std::byte> exporter::next() noexcept {
    return impl_->stream->next();
}

export_result export_recording(const recording& rec, byte_sink& sink, const export_options& o,
                               std::span<const std::byte> mapped) {
    export_result r;
    // Reads of the recording (plan, next), under the guard when it is a mapping.
    const auto reading = [&](auto&& step) {
        if (mapped.empty()) {
            step();
            return true;
        }
        if (!guarded(mapped, step)) return true;
        r.error = std::make_error_code(std::errc::io_error);
        r.source_failed = true;
        return false;
    };
    try {
        exporter e(rec, o);
        if (!reading([&] { r = e.plan(); }) || r.error) return r;
        if ((r.error = e.prepare())) return r;
        for (;;) {
            std::span<const std::byte> piece;
            if (!reading([&] { piece = e.next(); })) return r;
            if (piece.empty()) break;
            if ((r.error = sink.write(piece))) return r;
            r.written += piece.size();
        }
    } catch (const std::bad_alloc&) {
        r.error = std::make_error_code(std::errc::not_enough_memory);
    }
    return r;
}

}  // namespace inputanim
