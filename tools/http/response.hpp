// The one response type of the HTTP server: what the routes (validate, view, health) and the
// framing rules answer; the server adds how its connection goes on (http_server.cpp).
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace inputanim::http {

struct response {
    unsigned status = 200;
    std::string body;
    // Sent instead of `body` when set: bytes that outlive the server (the viewer's page and
    // frames), sent without a copy (a 10-minute recording's frames are 54 MiB).
    std::string_view lasting_body;
    const char* content_type = "application/json";
};

// `j` as JSON text; bytes that are not UTF-8 (names from the client, marker names of an invalid
// file) are replaced.
std::string json_text(const nlohmann::json& j);

// {"status": STATUS, "error": CODE, "message": MESSAGE} and a line end, with that status.
response error_response(unsigned status, std::string_view code, std::string message);

}  // namespace inputanim::http
