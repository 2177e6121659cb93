// The encoder that writes a recording piece by piece in file order, and on top of it an
// in-memory model of a recording with the writer that turns it into byte-exact files. Tests, fuzz
// seeds and the generator (`inputanim gen`) use them; the model allocates freely, the encoder
// never does.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "inputanim/error.hpp"
#include "inputanim/format.hpp"
#include "inputanim/reader.hpp"

namespace inputanim {

// A keyframe with every field of the full layout. Defaults are what MRTK writes (and what the
// compact layout implies): tangents 0, weights 0, weighted mode both.
struct keyframe {
    float time = 0.0f;
    float value = 0.0f;
    float in_tangent = 0.0f;
    float out_tangent = 0.0f;
    float in_weight = 0.0f;
    float out_weight = 0.0f;
    std::int32_t weighted_mode = 3;
    friend bool operator==(const keyframe&, const keyframe&) = default;
};

struct curve {
    // Raw Int32 values so that tests can write invalid files; MRTK writes 8/8.
    std::int32_t pre_wrap = 8;
    std::int32_t post_wrap = 8;
    std::vector<keyframe> keys;
    friend bool operator==(const curve&, const curve&) = default;
};

struct marker {
    float time = 0.0f;
    std::string name;
    friend bool operator==(const marker&, const marker&) = default;
};

struct model {
    int major = 1;
    int minor = 1;
    // For v1.1 only; v1.0 is always written full.
    inputanim::layout layout = layout::compact;
    block_flags blocks{};
    // Indexed by curve_id; curves of absent blocks are not written.
    std::array<curve, curve_id_count> curves{};
    // nullopt: the file ends after the last curve, as the published page describes.
    std::optional<std::vector<marker>> markers = std::vector<marker>{};

    curve& operator[](curve_id id) { return curves[to_index(id)]; }
    const curve& operator[](curve_id id) const { return curves[to_index(id)]; }
    friend bool operator==(const model&, const model&) = default;
};

// Where an encoder's bytes go, in file order. `write` takes all of `bytes`, or returns why it
// could not; the encoder then stops and reports that code.
class byte_sink {
  public:
    virtual std::error_code write(std::span<const std::byte> bytes) = 0;

  protected:
    ~byte_sink() = default;
};

// Appends to a vector (which allocates as it grows).
class vector_sink final : public byte_sink {
  public:
    explicit vector_sink(std::vector<std::byte>& out) noexcept : out_(out) {}
    std::error_code write(std::span<const std::byte> bytes) override;

  private:
    std::vector<std::byte>& out_;
};

// What the format cannot hold, as the encoder refuses it: a std::error_code of the category named
// "inputanim.encoder", each equivalent to std::errc::value_too_large (a value too large for the
// format's Int32, which is what EOVERFLOW means).
enum class encoder_error : std::uint8_t {
    none,
    // A curve's key count past the format's Int32.
    too_many_keys,
    // A marker count past the format's Int32.
    too_many_markers,
    // A marker name's length in bytes past the format's Int32.
    name_too_long,
};
const std::error_category& encoder_error_category() noexcept;
std::error_code make_error_code(encoder_error e) noexcept;

// Encodes a recording in file order with bounded memory, whatever its size: the header, every
// curve of its blocks in file order (curve_at), each as its header then exactly its key count of
// keys, then either a marker list or none, then finish(). The bytes are those of write(model).
//
//     encoder e(sink);
//     e.write_header(1, 1, layout::compact, blocks);
//     for (std::size_t i = 0; i < curve_count(blocks); ++i) e.write_curve(curve_at(blocks, i), c);
//     e.write_markers(list);                      // or nothing: the file ends after the curves
//     if (std::error_code ec = e.finish()) ...    // the first error of any call
//
// Every call returns the encoder's state: the first error stays, and every later call returns it
// and writes nothing. A call out of file order (a second header, a curve other than the next one,
// a curve before the previous one has all its keys, more keys or markers than announced, markers
// before the last curve, finish() before the end) is std::errc::invalid_argument; a count or
// marker name longer than the format's Int32 is an encoder_error; a sink's failure is the sink's
// code. Bytes are collected in a small buffer inside the encoder and handed to the sink
// when it is full and by finish(), so a sink's failure surfaces at the call that filled the buffer
// (or at finish()), not necessarily at the call whose bytes it refused; an encoder dropped before
// finish() leaves the last bytes unwritten. The encoder never allocates.
class encoder {
  public:
    explicit encoder(byte_sink& sink) noexcept : sink_(sink) {}
    encoder(const encoder&) = delete;
    encoder& operator=(const encoder&) = delete;

    // Version 1.0 (major 1, minor 0) holds camera and hands in the full layout whatever `layout`
    // and `blocks` say. Any other version is written as given, then the flag bytes and the v1.1
    // body, so that tests can produce unsupported files.
    std::error_code write_header(int major, int minor, inputanim::layout layout,
                                 block_flags blocks);

    // The next curve's header: `id` must be the next curve of the file's blocks.
    std::error_code begin_curve(curve_id id, std::int32_t pre_wrap, std::int32_t post_wrap,
                                std::size_t key_count);
    // Keys of the current curve, one at a time or several: compact and bool keyframes keep only
    // time and value.
    std::error_code write_key(const keyframe& key);
    std::error_code write_keys(std::span<const keyframe> keys);
    // `count` keys of the current curve already in the file's layout for it (8 bytes a key for
    // compact and bool curves, 28 for full ones), as convert transcodes them: handed on as they
    // are, and a run larger than the encoder's buffer straight to the sink in one call.
    std::error_code write_encoded_keys(std::span<const std::byte> bytes, std::size_t count);
    // begin_curve, then all of c.keys.
    std::error_code write_curve(curve_id id, const inputanim::curve& c);

    // The marker list, after the last curve: its count, then exactly that many markers.
    std::error_code begin_markers(std::size_t count);
    std::error_code write_marker(float time, std::string_view name);
    // A marker whose name arrives in pieces (a conversion that streams): its time and its name's
    // size, then exactly that many bytes of name over any number of write_marker_name calls,
    // before the next marker or finish(). write_marker is the two in one.
    std::error_code begin_marker(float time, std::size_t name_size);
    std::error_code write_marker_name(std::span<const std::byte> bytes);
    // begin_markers, then each marker of `list`.
    std::error_code write_markers(std::span<const inputanim::marker> list);

    // Checks that the file is complete and hands the last bytes to the sink.
    std::error_code finish();

    // The first error so far, or none.
    std::error_code status() const noexcept { return error_; }

  private:
    enum class stage : std::uint8_t { start, curves, markers, done };

    bool misuse(bool wrong) noexcept;
    bool curves_done() const noexcept;
    void put_u8(std::uint8_t v) noexcept;
    void put_i32(std::int32_t v) noexcept;
    void put_f32(float v) noexcept;
    void put_bytes(std::span<const std::byte> bytes) noexcept;
    // Makes room for `n` (at most the buffer's size) bytes; false once the sink has failed.
    bool reserve(std::size_t n) noexcept;
    void flush() noexcept;

    byte_sink& sink_;
    std::error_code error_;
    stage stage_ = stage::start;
    // What the file holds, once its header is written.
    file_header header_{};
    std::size_t next_curve_ = 0;
    // Keys the current curve still needs, or markers the list still needs.
    std::size_t left_ = 0;
    // Bytes the current marker's name still needs.
    std::size_t name_left_ = 0;
    bool current_full_ = false;
    std::size_t used_ = 0;
    // Large enough that a sink call per buffer costs little next to encoding it.
    std::array<std::byte, 8192> buffer_;
};

// What a file of version `major`.`minor` written with `layout` and `blocks` holds: v1.0 has no
// block flags and holds camera and hands (no gaze) in full keyframes, whatever was asked; other
// versions hold what was asked. The encoder, write(), convert and the generator decide it here.
file_header v1_header(int major, int minor, inputanim::layout layout, block_flags blocks) noexcept;

// The bytes of `m`, through the encoder. Versions other than 1.0/1.1 are written as given
// (header only, then the v1.1 body), so that tests can produce unsupported files. Every key count,
// the marker count and every marker name's length must fit an Int32.
std::vector<std::byte> write(const model& m);
void write(const model& m, std::vector<std::byte>& out);

// Reads a structurally sound file into a model (bit-exact: write(read) gives the same bytes). A
// 2019 file gives the model of the v1.0 file with its curves (and, for May 2019, no marker list).
error read_model(std::span<const std::byte> bytes, model& out, const read_options& options = {});

}  // namespace inputanim

template <>
struct std::is_error_code_enum<inputanim::encoder_error> : std::true_type {};
