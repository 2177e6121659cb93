// The encoder never allocates: its buffer lives inside it, so a recording of any size is encoded
// with the memory of the encoder and of the sink alone.
#include <gtest/gtest.h>

#include <cstddef>
#include <span>
#include <string>
#include <system_error>
#include <vector>

#include "support/allocation_counter.hpp"
#include "support/builders.hpp"

using namespace inputanim;
using namespace inputanim::testing;

namespace {

// Counts bytes without keeping them: it allocates nothing.
class counting_sink final : public byte_sink {
  public:
    std::error_code write(std::span<const std::byte> b) override {
        size += b.size();
        return {};
    }
    std::size_t size = 0;
};

TEST(EncoderAllocation, EncodingEveryShapeWithMarkersAllocatesNothing) {
    for (const shape s : all_shapes) {
        model m = small_model(s);
        m.markers->push_back(marker{1.0f, std::string(30000, 'n')});
        for (curve& c : m.curves) c.keys.resize(c.keys.size() + 40);
        const std::size_t expected = write(m).size();
        const block_flags blocks = m.minor == 0 ? block_flags{true, true, false} : m.blocks;
        counting_sink sink;
        std::error_code ec;
        std::size_t allocations = 0;
        {
            const allocation_probe probe;
            encoder e(sink);
            e.write_header(m.major, m.minor, m.layout, m.blocks);
            for (std::size_t i = 0; i < curve_count(blocks); ++i) {
                const curve_id id = curve_at(blocks, i);
                const curve& c = m[id];
                e.begin_curve(id, c.pre_wrap, c.post_wrap, c.keys.size());
                for (const keyframe& k : c.keys) e.write_key(k);
            }
            e.write_markers(*m.markers);
            ec = e.finish();
            allocations = probe.count();
        }
        EXPECT_EQ(allocations, 0u) << shape_name(s);
        EXPECT_FALSE(ec) << shape_name(s);
        EXPECT_EQ(sink.size, expected) << shape_name(s);
    }
}

}  // namespace
