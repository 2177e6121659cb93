// The README's tour: write a small recording, map it, validate it, and walk its curves.
#include <cstdio>
#include <fstream>
#include <inputanim/inputanim.hpp>

int main(int argc, char** argv) {
    const char* path = argc > 1 ? argv[1] : "sample.bin";
    inputanim::model m;  // v1.1 compact, all three blocks, an empty marker list
    for (int i = 0; i <= 60; ++i) {
        const float t = i / 60.0f;
        m[inputanim::camera_curve(inputanim::pose_channel::position_x)].keys.push_back({t, 0.5f * t});
        m[inputanim::camera_curve(inputanim::pose_channel::rotation_w)].keys.push_back({t, 1.0f});
    }
    m.markers->push_back({0.5f, "halfway"});
    const auto bytes = inputanim::write(m);
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), bytes.size());

    std::error_code ec;
    const auto file = inputanim::mapped_file::open(path, ec);
    if (ec) return std::fprintf(stderr, "%s: %s\n", path, ec.message().c_str()), 3;
    const inputanim::report r = inputanim::validate(file.bytes());
    if (!r.valid()) return std::fprintf(stderr, "%s\n", r.error.message().c_str()), 1;
    inputanim::reader reader(file.bytes());
    while (reader.next() == inputanim::item::curve) {
        const inputanim::curve_view& c = reader.curve();
        if (!c.keys.empty()) {
            std::printf("%.*s: %zu keys, last value %g\n", static_cast<int>(c.path().size()),
                        c.path().data(), c.size(), c.keys.back().value());
        }
    }
    std::printf("%s: %u curves, %llu keyframes, valid\n", path, r.summary.curves,
                static_cast<unsigned long long>(r.summary.keyframes));
}
