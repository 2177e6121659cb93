// The exporters' front (inputanim/export.hpp): format and error names, the exporter's three
// steps over the format's stream (lib/export_gltf.cpp, lib/export_unity.cpp), and the whole
// export to a sink.
#include "inputanim/export.hpp"

#include <new>
#include <string>

#include "detail/export_stream.hpp"

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
        case export_error::not_finite:
            return "not_finite";
        case export_error::time_overflow:
            return "time_overflow";
        case export_error::glb_too_large:
            return "glb_too_large";
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
            case export_error::not_finite:
                return "a number glTF would hold is not finite";
            case export_error::time_overflow:
                return "shifted to start at 0, the grid's times would pass the largest float";
            case export_error::glb_too_large:
                return "a .glb holds at most 4 GiB";
        }
        return "unknown error";
    }
};

}  // namespace

const std::error_category& export_error_category() noexcept {
    static const export_category category;
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
