// Test data builders: small models of every layout and helpers to turn them into bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "inputanim/inputanim.hpp"

namespace inputanim::testing {

using bytes = std::vector<std::byte>;

enum class shape { v10, v11_compact, v11_full };
const char* shape_name(shape s);
inline constexpr shape all_shapes[] = {shape::v10, shape::v11_compact, shape::v11_full};

// A small valid model: every curve of the shape present (395 or 389 curves); a few curves have
// keys (camera, left wrist, tracked/pinching, gaze), with tangents and weights set on full
// keyframes; two markers with a multi-byte UTF-8 name unless `with_markers` is false.
model small_model(shape s, bool with_markers = true);
// A model with every curve of the shape empty.
model empty_model(shape s, bool with_markers = true);
bytes small_file(shape s, bool with_markers = true);

// Offset of the first curve header (16 for v1.0, 19 for v1.1).
std::size_t first_curve_offset(const model& m);
// Offset of the header of the curve at file index `i` in the bytes of `m`.
std::size_t curve_offset(const model& m, std::size_t file_index);
// Offset just after the last curve (where the marker list starts).
std::size_t marker_list_offset(const model& m);

void put_i32(bytes& b, std::size_t offset, std::int32_t v);
void put_f32(bytes& b, std::size_t offset, float v);
std::int32_t get_i32(const bytes& b, std::size_t offset);

std::span<const std::byte> view(const bytes& b);

// Writes `b` to the file `p` (replacing it); returns p as a string.
std::string write_bytes(const std::filesystem::path& p, const bytes& b);

// A model written and opened: the recording reads `data`, which lives as long as it does.
struct opened {
    explicit opened(const model& m) : data(write(m)) { error = rec.open(view(data)); }
    opened(const opened&) = delete;
    opened& operator=(const opened&) = delete;
    bytes data;
    recording rec;
    inputanim::error error;
};

// A test name for a real recording's file name: InputAnimation-20190607-120309.bin gives
// at_20190607_120309.
std::string recording_test_name(const std::string& file_name);
// A real recording of ../shared/recordings as it is; nullopt when the folder or the file is absent.
std::optional<bytes> real_recording(const std::string& name);
// The real June 2019 recordings with the v1.0 header prepended; nullopt when the folder or the
// file is absent.
std::optional<bytes> june_recording(const std::string& name);

// A camera-and-hands model (a v1.0 model: blocks, full keys) written in a 2019 layout, as MRTK's
// development branch wrote it (FORMAT.md section 9): June 2019 is the v1.0 body with its marker
// list; May 2019 puts the hands block first and the camera last, writes bool keys of
// `bool_key_size` bytes (28: every field of the model's key), and ends with a 524-byte trailer
// shaped like .NET BinaryFormatter's (its checked prefix, filler, and 0x0b).
bytes write_2019(const model& m, edition e, std::size_t bool_key_size = 8);
// The bytes of a May 2019 trailer.
bytes formatter_trailer();
// Offset of the header of the curve at file index `i` of write_2019(m, edition::may_2019, ...).
std::size_t may_curve_offset(const model& m, std::size_t file_index, std::size_t bool_key_size);
std::filesystem::path recordings_dir();

}  // namespace inputanim::testing
