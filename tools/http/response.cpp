#include "http/response.hpp"

namespace inputanim::http {

std::string json_text(const nlohmann::json& j) {
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

response error_response(unsigned status, std::string_view code, std::string message) {
    response r;
    r.status = status;
    r.body =
        json_text({{"status", status}, {"error", code}, {"message", std::move(message)}}) + "\n";
    return r;
}

}  // namespace inputanim::http
