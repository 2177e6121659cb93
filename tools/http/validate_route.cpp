#include "http/validate_route.hpp"

#include "records/report_json.hpp"

namespace inputanim::http {

report oversized(std::uint64_t max_bytes, std::uint64_t bytes) {
    report r;
    r.summary.bytes = bytes;
    limits lim;
    lim.max_bytes = max_bytes;
    r.error = size_error(bytes, lim);
    return r;
}

stream_status body_validator::feed(std::span<const std::byte> bytes) {
    if (not_as_declared()) return stream_status::error;
    const stream_status s = v_.feed(bytes);
    return not_as_declared() ? stream_status::error : s;
}

const report& body_validator::finish() {
    const report& r = v_.finish();
    if (!not_as_declared() && !(declared_gzip_ && !v_.gzip())) return r;
    mismatch_ = report{};
    mismatch_.error = error{errc::bad_compression, 0, error_place::none, {}, -1, limit_kind::none};
    return mismatch_;
}

response report_response(unsigned status, const std::string& name, const report& rep,
                         const validate_options& how, std::uint64_t bytes,
                         std::optional<std::uint64_t> compressed) {
    response r;
    r.status = status;
    r.body = records::json_line(name, records::report_json(rep, how, bytes, compressed)) + "\n";
    return r;
}

response health_response() {
    response r;
    r.body = "ok\n";
    r.content_type = "text/plain";
    return r;
}

}  // namespace inputanim::http
