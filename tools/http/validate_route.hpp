// The routes POST /validate and GET /healthz: what the service answers about an upload's bytes,
// which the server (http_server.cpp) reads under its deadlines and hands over piece by piece.
// POST /view validates the same way, then answers with viewer_routes.hpp.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "http/response.hpp"
#include "inputanim/input.hpp"
#include "inputanim/stream.hpp"
#include "inputanim/validate.hpp"

namespace inputanim::http {

// What validate says of a file over the byte ceiling (checked before anything else).
report oversized(std::uint64_t max_bytes, std::uint64_t bytes);

// The validator of one request body: the library's chunk_validator (gzip recognised by content),
// and a body declared gzip-encoded that is not gzip is a damaged gzip stream at its first byte.
class body_validator {
  public:
    body_validator(const validate_options& how, bool declared_gzip)
        : v_(how), declared_gzip_(declared_gzip) {}
    stream_status feed(std::span<const std::byte> bytes);
    const report& finish();
    // The recording's bytes taken up to the verdict (inflated for gzip).
    std::uint64_t bytes() const { return v_.recording_bytes(); }
    std::optional<std::uint64_t> compressed() const { return v_.compressed_bytes(); }
    bool gzip() const { return v_.gzip(); }

  private:
    // The first two bytes are known and are not gzip's, though the body was declared gzip.
    bool not_as_declared() const {
        return declared_gzip_ && !v_.gzip() && v_.recording_bytes() >= 2;
    }

    chunk_validator v_;
    bool declared_gzip_;
    report mismatch_{};
};

// The report of the upload `name` as `inputanim validate --json` prints it, one line, with that
// status (200, or 413 for a body over the byte ceiling).
response report_response(unsigned status, const std::string& name, const report& rep,
                         const validate_options& how, std::uint64_t bytes,
                         std::optional<std::uint64_t> compressed);

// GET /healthz: "ok".
response health_response();

}  // namespace inputanim::http
