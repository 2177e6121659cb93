// Imports: recordings authored elsewhere, read back into the writer's model (inputanim/writer.hpp)
// so that MRTK plays them (docs/IMPORT.md). Unity's text AnimationClip (.anim, as `export` writes
// it or as Unity saves it after an edit), glTF 2.0 (.glb, or .gltf with its buffers, as `export`
// or Blender's exporter writes it) and the CSV that `sample` prints.
//
//     inputanim::model m;
//     inputanim::import_result r = inputanim::import_model(bytes, inputanim::import_format::anim,
//     m); if (r.error) ...          // an import_error (r.detail says where), or a limit's for
//     (auto& w : r.warnings) ...   // what was imported with a remark inputanim::write(m);      //
//     a v1.1 file MRTK plays
//
// Every importer reads untrusted bytes: their size, the counts they announce (keys, markers,
// nesting, alias expansion, buffers) are checked against the options' ceilings before the work
// they decide is done, and the model an import gives is one the validator accepts at level full
// (keys finite and in order, within the limits).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "inputanim/limits.hpp"
#include "inputanim/writer.hpp"

namespace inputanim {

enum class import_format : std::uint8_t { anim, gltf, glb, csv };
// "anim", "gltf", "glb", "csv": the names --format and Python take, and the file extensions.
std::string_view import_format_name(import_format f) noexcept;
std::optional<import_format> parse_import_format_name(std::string_view name) noexcept;
// The format a file name's extension names (case-insensitive: .anim, .gltf, .glb, .csv), if any.
std::optional<import_format> import_format_of(std::string_view path) noexcept;

// Why an import was refused: a std::error_code of the category named "inputanim.import".
enum class import_error : std::uint8_t {
    none,
    // The input, a buffer of it or a data URI decoded, is larger than limits.max_bytes.
    too_large,
    // A curve would have more keys than limits.max_keyframes_per_curve, the recording more than
    // max_total_keyframes, or more markers than max_markers or a name longer than
    // max_marker_name_bytes (the detail names the limit).
    limit_exceeded,
    // A key time or value that is not finite (NaN, infinity).
    not_finite,
    // A curve's key times that go backwards.
    unsorted_keys,
    // A field the format cannot hold: a bool curve's value other than 0 or 1, a weighted mode
    // outside 0 to 3, a wrap mode Unity does not have, a marker name that is not UTF-8.
    bad_field,

    // .anim: a Unity file serialised as binary, not as text ("Force Text").
    binary_clip,
    // .anim: bytes that are not YAML.
    bad_yaml,
    // .anim: YAML nested deeper, or aliases expanding to more nodes, than an import reads.
    yaml_too_deep,
    yaml_too_many_nodes,
    // .anim: a tag that is neither YAML's nor Unity's (!u!).
    unknown_tag,
    // .anim: YAML that holds no AnimationClip, or a clip whose curves or keys lack a field.
    not_a_clip,

    // glTF: bytes that are not a glTF 2.0 JSON or .glb.
    bad_gltf,
    // glTF: a buffer URI that is absolute, has a scheme other than data:, or leaves the file's
    // folder; or an external buffer where none can be read (standard input).
    bad_uri,
    // glTF: a data URI that is not base64.
    bad_data_uri,
    // glTF: an accessor, buffer view or buffer out of range, of a type or component type the
    // channel cannot take, or past the end of its buffer.
    bad_accessor,
    // glTF: a sparse accessor, which an import does not read.
    sparse_accessor,
    // glTF: a sampler whose input and output counts disagree, or whose interpolation is unknown.
    bad_sampler,
    // glTF: none of the nodes `export` writes (the detail lists the names expected).
    missing_nodes,

    // CSV: a header without the time column, or a column that names no curve.
    missing_column,
    // CSV: a field that is not a number, or a row with another number of fields than the header.
    bad_number,
};
std::string_view import_error_name(import_error e) noexcept;
const std::error_category& import_error_category() noexcept;
std::error_code make_error_code(import_error e) noexcept;

struct import_options {
    // The ceilings: max_bytes on the input and on each buffer it loads; the key and marker
    // ceilings on what the model would hold. An import checks each before doing the work it sizes.
    inputanim::limits limits{};
};

struct import_result {
    // An import_error; a false code when the model was imported.
    std::error_code error;
    // For a person: where and what ("line 12: 'abc' in column Camera/Position/x is not a number",
    // the node names expected). Empty when there is nothing to add to the code's message.
    std::string detail;
    // What was imported, or left out, with a remark (curves Unity would not play, bindings that
    // name no curve of the format).
    std::vector<std::string> warnings;
};

// Reads a .gltf's external buffers (the importer checks the URI first: relative, percent-decoded,
// no "..", within the .gltf's folder).
class import_files {
  public:
    // The bytes of `relative` (a path below the .gltf's folder, '/'-separated) into `out`, or
    // why not; more than `max_bytes` is import_error::too_large.
    virtual std::error_code read(std::string_view relative, std::uint64_t max_bytes,
                                 std::vector<std::byte>& out) = 0;

  protected:
    ~import_files() = default;
};

// A .gltf's folder: each path is opened below it as the tools open their inputs (input::open,
// inputanim/input.hpp), and refused (import_error::bad_uri) when it could leave it: absolute, with
// a ':', a backslash, an empty or ".." segment, or a link that leads out of the folder. A file
// larger than max_bytes is too_large before it is read.
class folder_files final : public import_files {
  public:
    explicit folder_files(std::filesystem::path folder);
    std::error_code read(std::string_view relative, std::uint64_t max_bytes,
                         std::vector<std::byte>& out) override;
    // The files read, links resolved: inputs too, which an output must not replace.
    const std::vector<std::string>& files_read() const noexcept { return read_; }

  private:
    std::filesystem::path folder_;
    std::vector<std::string> read_;
};

// Imports `bytes` in `format` into `out`: version 1.1, the blocks the input has curves of, and the
// compact layout when every float key is a linear key as MRTK writes it (tangents and weights 0,
// weighted mode 3), else full, so that writing the model loses nothing. `files` reads a .gltf's
// external buffers; without it, a .gltf may only hold data URIs. On error, `out` is unspecified.
import_result import_model(std::span<const std::byte> bytes, import_format format, model& out,
                           const import_options& options = {}, import_files* files = nullptr);

}  // namespace inputanim

template <>
struct std::is_error_code_enum<inputanim::import_error> : std::true_type {};
