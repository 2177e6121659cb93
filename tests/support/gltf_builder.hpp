// glTF documents made by hand for the importer's tests: nodes, accessors of floats in one buffer,
// animation channels; written as .gltf (the buffer a data URI) or .glb. The JSON stays open to the
// test, so that a test can break exactly one thing.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace inputanim::testing {

class gltf_builder {
  public:
    nlohmann::json doc = {{"asset", {{"version", "2.0"}}},
                          {"scene", 0},
                          {"scenes", {{{"nodes", nlohmann::json::array()}}}},
                          {"nodes", nlohmann::json::array()},
                          {"animations",
                           {{{"name", "recording"},
                             {"channels", nlohmann::json::array()},
                             {"samplers", nlohmann::json::array()}}}},
                          {"accessors", nlohmann::json::array()},
                          {"bufferViews", nlohmann::json::array()}};
    std::vector<std::byte> bin;

    // A node named `name`, a child of `parent` (a root when -1).
    int node(const std::string& name, int parent = -1) {
        const int n = static_cast<int>(doc["nodes"].size());
        doc["nodes"].push_back({{"name", name}});
        if (parent < 0) {
            doc["scenes"][0]["nodes"].push_back(n);
        } else {
            doc["nodes"][parent]["children"].push_back(n);
        }
        return n;
    }

    // An accessor of float elements of `type` (SCALAR, VEC3, VEC4), in a buffer view of its own.
    int floats(const std::vector<float>& values, const std::string& type) {
        const std::size_t width = type == "SCALAR" ? 1 : type == "VEC3" ? 3 : 4;
        const std::size_t at = bin.size();
        for (const float v : values) {
            const std::uint32_t u = std::bit_cast<std::uint32_t>(v);
            for (int i = 0; i < 4; ++i)
                bin.push_back(static_cast<std::byte>((u >> (8 * i)) & 0xff));
        }
        const int view = static_cast<int>(doc["bufferViews"].size());
        doc["bufferViews"].push_back(
            {{"buffer", 0}, {"byteOffset", at}, {"byteLength", 4 * values.size()}});
        const int a = static_cast<int>(doc["accessors"].size());
        doc["accessors"].push_back({{"bufferView", view},
                                    {"componentType", 5126},
                                    {"count", values.size() / width},
                                    {"type", type}});
        return a;
    }

    // A channel animating `path` of `node` from the accessors `input` and `output`.
    void channel(int node, const std::string& path, int input, int output,
                 const std::string& interpolation = "LINEAR") {
        nlohmann::json& a = doc["animations"][0];
        const int s = static_cast<int>(a["samplers"].size());
        a["samplers"].push_back(
            {{"input", input}, {"output", output}, {"interpolation", interpolation}});
        a["channels"].push_back({{"sampler", s}, {"target", {{"node", node}, {"path", path}}}});
    }

    // The document with its buffer as a data URI.
    std::string gltf() const {
        nlohmann::json d = doc;
        if (!d.contains("buffers")) {
            d["buffers"] = {{{"byteLength", bin.size()}, {"uri", data_uri(bin)}}};
        }
        return d.dump();
    }

    // The document and its buffer in a .glb.
    std::vector<std::byte> glb() const {
        nlohmann::json d = doc;
        if (!d.contains("buffers")) d["buffers"] = {{{"byteLength", bin.size()}}};
        std::string text = d.dump();
        while (text.size() % 4 != 0) text.push_back(' ');
        std::vector<std::byte> body = bin;
        while (body.size() % 4 != 0) body.push_back(std::byte{0});
        std::vector<std::byte> out;
        const auto u32 = [&](std::uint32_t v) {
            for (int i = 0; i < 4; ++i)
                out.push_back(static_cast<std::byte>((v >> (8 * i)) & 0xff));
        };
        const auto chars = [&](std::string_view s) {
            for (const char c : s) out.push_back(static_cast<std::byte>(c));
        };
        chars("glTF");
        u32(2);
        u32(static_cast<std::uint32_t>(12 + 8 + text.size() + 8 + body.size()));
        u32(static_cast<std::uint32_t>(text.size()));
        chars("JSON");
        chars(text);
        u32(static_cast<std::uint32_t>(body.size()));
        chars(std::string_view("BIN\0", 4));
        out.insert(out.end(), body.begin(), body.end());
        return out;
    }

    static std::string data_uri(std::span<const std::byte> b) {
        static constexpr char alphabet[] =
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        std::string s = "data:application/octet-stream;base64,";
        for (std::size_t i = 0; i < b.size(); i += 3) {
            std::uint32_t v = std::to_integer<std::uint32_t>(b[i]) << 16;
            if (i + 1 < b.size()) v |= std::to_integer<std::uint32_t>(b[i + 1]) << 8;
            if (i + 2 < b.size()) v |= std::to_integer<std::uint32_t>(b[i + 2]);
            s += alphabet[v >> 18];
            s += alphabet[(v >> 12) & 63];
            s += i + 1 < b.size() ? alphabet[(v >> 6) & 63] : '=';
            s += i + 2 < b.size() ? alphabet[v & 63] : '=';
        }
        return s;
    }
};

inline std::span<const std::byte> bytes_of(std::string_view text) {
    return {reinterpret_cast<const std::byte*>(text.data()), text.size()};
}

}  // namespace inputanim::testing
