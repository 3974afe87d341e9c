// Traces: written and read back bit for bit in both encodings, with and without filters; the
// two encodings of the same frames agree; reading allocates nothing once warm; and a dozen
// hostile files, made here, each refused with a message naming the file and where.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/alloc_counter.h"
#include "ro/rng.h"
#include "ro/trace.h"

namespace ro {
namespace {

/// One frame as owned arrays.
struct Frame {
    std::vector<float> minX, minY, maxX, maxY;
    std::vector<std::uint32_t> ids, category, mask;
    std::vector<std::uint8_t> isStatic;

    [[nodiscard]] BoxView view(bool filters) const {
        BoxView v{minX.data(), minY.data(), maxX.data(), maxY.data(), ids.data(), static_cast<std::uint32_t>(ids.size())};
        v.isStatic = isStatic.data();
        if (filters) v.category = category.data(), v.mask = mask.data();
        return v;
    }
};

/// Frames of churning boxes (ids come and go, counts change, one frame is empty), with
/// corners that stress the text form: negative zero, subnormals, large and tiny magnitudes.
std::vector<Frame> makeFrames() {
    Rng rng(7);
    std::vector<Frame> frames;
    std::uint32_t nextId = 0;
    std::vector<std::uint32_t> alive;
    for (int f = 0; f < 6; ++f) {
        Frame frame;
        if (f == 3) {
            frames.push_back(frame);
            continue;
        }
        // A third of the bodies die, and new ones are born: ids are never reused.
        std::vector<std::uint32_t> kept;
        for (const std::uint32_t id : alive)
            if (rng.range(0.0f, 1.0f) > 0.33f) kept.push_back(id);
        for (int k = 0; k < 20 + 10 * f; ++k) kept.push_back(0xFFFFFF00u - nextId++ * 977u);
        alive = kept;
        for (const std::uint32_t id : alive) {
            const float x = rng.range(-1e6f, 1e6f) * (id % 3 == 0 ? 1e-30f : 1.0f);
            const float y = rng.range(-100.0f, 100.0f);
            frame.ids.push_back(id);
            frame.minX.push_back(x);
            frame.minY.push_back(id % 5 == 0 ? -0.0f : y);
            frame.maxX.push_back(x + rng.range(0.0f, 3.0f));
            frame.maxY.push_back((id % 5 == 0 ? 0.0f : y) + (id % 7 == 0 ? 1e-40f : 0.1f));
            frame.isStatic.push_back(id % 4 == 0 ? 1 : 0);
            frame.category.push_back(1u << (id % 32));
            frame.mask.push_back(id * 2654435761u);
        }
        frames.push_back(frame);
    }
    return frames;
}

std::string tempPath(const std::string& name) {
    return (std::filesystem::path(testing::TempDir()) / ("ro_trace_" + name)).string();
}

void write(const std::string& path, const std::vector<Frame>& frames, bool filters) {
    TraceWriter writer(path);
    for (const Frame& f : frames) writer.frame(f.view(filters));
    writer.close();
}

bool sameBits(const float* a, const float* b, std::uint32_t n) { return n == 0 || std::memcmp(a, b, 4 * n) == 0; }

/// Reads `path` and expects `frames` back, bit for bit.
void expectFrames(const std::string& path, const std::vector<Frame>& frames, bool filters) {
    TraceReader reader(path);
    EXPECT_EQ(reader.hasFilters(), filters);
    for (std::size_t f = 0; f < frames.size(); ++f) {
        ASSERT_TRUE(reader.next()) << path << " ends before frame " << f;
        const BoxView& got = reader.frame();
        const Frame& want = frames[f];
        const auto n = static_cast<std::uint32_t>(want.ids.size());
        ASSERT_EQ(got.count, n) << "frame " << f;
        EXPECT_EQ(reader.frameNumber(), f);
        EXPECT_TRUE(std::equal(want.ids.begin(), want.ids.end(), got.ids)) << "frame " << f;
        EXPECT_TRUE(sameBits(got.minX, want.minX.data(), n) && sameBits(got.minY, want.minY.data(), n) &&
                    sameBits(got.maxX, want.maxX.data(), n) && sameBits(got.maxY, want.maxY.data(), n))
            << "frame " << f;
        const bool anyStatic = std::find(want.isStatic.begin(), want.isStatic.end(), 1) != want.isStatic.end();
        ASSERT_EQ(got.isStatic != nullptr, anyStatic) << "frame " << f;
        if (anyStatic) {
            EXPECT_TRUE(std::equal(want.isStatic.begin(), want.isStatic.end(), got.isStatic));
        }
        ASSERT_EQ(got.category != nullptr, filters);
        if (filters) {
            EXPECT_TRUE(std::equal(want.category.begin(), want.category.end(), got.category));
            EXPECT_TRUE(std::equal(want.mask.begin(), want.mask.end(), got.mask));
        }
    }
    EXPECT_FALSE(reader.next());
    EXPECT_FALSE(reader.next());  // stays at the end
}

class RoundTrip : public testing::TestWithParam<std::tuple<const char*, bool>> {};

TEST_P(RoundTrip, ReadsBackBitForBit) {
    const auto [extension, filters] = GetParam();
    const std::string path = tempPath(std::string("round_trip_") + (filters ? "filters" : "plain") + extension);
    const std::vector<Frame> frames = makeFrames();
    write(path, frames, filters);
    expectFrames(path, frames, filters);
}

INSTANTIATE_TEST_SUITE_P(Encodings, RoundTrip,
                         testing::Combine(testing::Values(".trace", ".csv"), testing::Bool()));

TEST(Trace, CsvAndBinaryOfTheSameFramesAgree) {
    const std::vector<Frame> frames = makeFrames();
    const std::string binary = tempPath("agree.trace"), csv = tempPath("agree.csv");
    write(binary, frames, true);
    write(csv, frames, true);
    TraceReader a(binary), b(csv);
    int count = 0;
    while (a.next()) {
        ASSERT_TRUE(b.next());
        const BoxView& x = a.frame();
        const BoxView& y = b.frame();
        ASSERT_EQ(x.count, y.count);
        EXPECT_EQ(a.frameNumber(), b.frameNumber());
        EXPECT_TRUE(std::equal(x.ids, x.ids + x.count, y.ids));
        EXPECT_TRUE(sameBits(x.minX, y.minX, x.count) && sameBits(x.maxY, y.maxY, x.count));
        EXPECT_TRUE(std::equal(x.mask, x.mask + x.count, y.mask));
        ++count;
    }
    EXPECT_FALSE(b.next());
    EXPECT_EQ(count, static_cast<int>(frames.size()));
}

TEST(Trace, EncodingChosenExplicitlyOverTheExtension) {
    const std::vector<Frame> frames = makeFrames();
    const std::string path = tempPath("explicit_csv.dat");
    {
        TraceWriter writer(path, TraceEncoding::Csv);
        for (const Frame& f : frames) writer.frame(f.view(false));
        writer.close();
    }
    std::ifstream in(path);
    std::string header;
    std::getline(in, header);
    EXPECT_EQ(header, "frame,id,min_x,min_y,max_x,max_y,static");
    TraceReader reader(path, TraceEncoding::Csv);
    int count = 0;
    while (reader.next()) ++count;
    // A CSV has no rows for an empty frame between two others: it reads back as a skipped number.
    EXPECT_EQ(count, static_cast<int>(frames.size()));
}

TEST(Trace, ReadingAllocatesNothingOnceWarm) {
    ASSERT_TRUE(heapAllocationCountingActive());
    for (const char* extension : {".trace", ".csv"}) {
        const std::string path = tempPath(std::string("warm") + extension);
        Frame big;
        {
            TraceWriter writer(path);
            for (int f = 0; f < 40; ++f) {
                // The largest frame first: the buffers are then warm for every other.
                const std::uint32_t n = f == 0 ? 3000 : 1000 + 37 * static_cast<std::uint32_t>(f);
                Frame frame;
                for (std::uint32_t i = 0; i < n; ++i) {
                    frame.ids.push_back(i * 3 + static_cast<std::uint32_t>(f));
                    frame.minX.push_back(static_cast<float>(i));
                    frame.minY.push_back(0.5f * static_cast<float>(f));
                    frame.maxX.push_back(static_cast<float>(i) + 1.5f);
                    frame.maxY.push_back(0.5f * static_cast<float>(f) + 1.0f);
                    frame.isStatic.push_back(i % 2);
                }
                writer.frame(frame.view(false));
            }
            writer.close();
        }
        TraceReader reader(path);
        ASSERT_TRUE(reader.next());
        ASSERT_TRUE(reader.next());  // the second warms what the first may not have (sort scratch)
        const std::uint64_t before = heapAllocationCount();
        int frames = 2;
        while (reader.next()) ++frames;
        EXPECT_EQ(heapAllocationCount() - before, 0u) << extension;
        EXPECT_EQ(frames, 40);
    }
}

TEST(Trace, WriterRefusesWhatNoReaderTakes) {
    Frame frame;
    frame.ids = {1, 2, 1};
    frame.minX = frame.minY = {0, 0, 0};
    frame.maxX = frame.maxY = {1, 1, 1};
    frame.isStatic = {0, 0, 0};
    frame.category = frame.mask = {1, 1, 1};
    const std::string path = tempPath("writer_refuses.trace");
    TraceWriter writer(path);
    try {
        writer.frame(frame.view(false));
        FAIL() << "a duplicated id was written";
    } catch (const TraceError& e) {
        EXPECT_NE(std::string(e.what()).find("frame 0, box 2 (id 1): id 1 appears twice"), std::string::npos) << e.what();
    }
    frame.ids = {1, 2, 3};
    frame.maxX[1] = std::nanf("");
    EXPECT_THROW(writer.frame(frame.view(false)), TraceError);
    frame.maxX[1] = 1;
    writer.frame(frame.view(false));
    try {
        writer.frame(frame.view(true));
        FAIL() << "filters came after a frame without them";
    } catch (const TraceError& e) {
        EXPECT_NE(std::string(e.what()).find("frame 1: has filters"), std::string::npos) << e.what();
    }
    writer.close();
    EXPECT_THROW(writer.frame(frame.view(false)), TraceError);
}

TEST(Trace, AnUnwritablePathIsNamed) {
    try {
        TraceWriter writer("/nonexistent-dir/x.trace");
        FAIL();
    } catch (const TraceError& e) {
        EXPECT_NE(std::string(e.what()).find("trace '/nonexistent-dir/x.trace': cannot create"), std::string::npos);
    }
}

TEST(Trace, AFullDiskIsReportedByCloseOrFrame) {
    if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
    Frame frame;
    for (std::uint32_t i = 0; i < 100000; ++i) {
        frame.ids.push_back(i);
        frame.minX.push_back(0), frame.minY.push_back(0), frame.maxX.push_back(1), frame.maxY.push_back(1);
        frame.isStatic.push_back(0);
    }
    const auto writeAll = [&] {
        TraceWriter writer("/dev/full", TraceEncoding::Binary);
        writer.frame(frame.view(false));
        writer.close();
    };
    EXPECT_THROW(writeAll(), TraceError);
}

// --- hostile traces: each refused with a message naming the file and where -----------------

/// Little-endian words and bytes, for writing broken binary traces by hand.
struct Bytes {
    std::string data;
    Bytes& magic() { return raw("\x89ROTRACE"); }
    Bytes& raw(const std::string& s) { data += s; return *this; }
    Bytes& u32(std::uint32_t v) {
        for (int k = 0; k < 4; ++k) data.push_back(static_cast<char>((v >> (8 * k)) & 0xFF));
        return *this;
    }
    Bytes& f32(float v) {
        std::uint32_t bits = 0;
        std::memcpy(&bits, &v, 4);
        return u32(bits);
    }
    Bytes& header(std::uint32_t version = 1, std::uint32_t flags = 0) { return magic().u32(version).u32(flags); }
    /// One frame of boxes with these ids and corners (x0, y0, x1, y1 each), all dynamic.
    Bytes& frame(const std::vector<std::uint32_t>& ids, const std::vector<std::array<float, 4>>& boxes,
                 std::uint8_t staticFlag = 0) {
        u32(static_cast<std::uint32_t>(ids.size()));
        for (const std::uint32_t id : ids) u32(id);
        for (int c = 0; c < 4; ++c)
            for (const auto& b : boxes) f32(b[static_cast<std::size_t>(c)]);
        for (std::size_t i = 0; i < ids.size(); ++i) data.push_back(static_cast<char>(staticFlag));
        return *this;
    }
    Bytes& end(std::uint32_t frames) { return u32(0xFFFFFFFFu).u32(frames).u32(0); }
};

struct Hostile {
    const char* name;
    std::string contents;
    const char* expected;  ///< in the message, after "trace 'PATH': "
};

std::vector<Hostile> hostileTraces() {
    const std::array<float, 4> unit{0, 0, 1, 1};
    const std::string csvHeader = "frame,id,min_x,min_y,max_x,max_y,static\n";
    return {
        {"truncated_mid_frame.trace", Bytes().header().frame({1, 2}, {unit, unit}).data.substr(0, 30),
         "frame 0: truncated: 2 boxes need 42 bytes, and the file has 10 left"},
        {"no_end_marker.trace", Bytes().header().frame({1}, {unit}).data,
         "frame 1: truncated: the file ends in the next frame's box count (or the end marker) (after 1 whole frames"},
        {"wrong_magic.trace", Bytes().raw("PK\x03\x04xxxx").u32(1).u32(0).end(0).data, "wrong magic"},
        {"wrong_version.trace", Bytes().header(2).end(0).data, "version 2, and this reader reads version 1"},
        {"unknown_flags.trace", Bytes().header(1, 6).end(0).data, "unknown flags 6"},
        {"nan.trace", Bytes().header().frame({4, 5}, {unit, {0, std::nanf(""), 1, 1}}).end(1).data,
         "frame 0, box 1 (id 5): a corner is not a finite number"},
        {"over_limit.trace", Bytes().header().u32(10'000'001).data,
         "frame 0: 10000001 boxes, over the limit of 10000000 a frame"},
        {"count_beyond_file.trace", Bytes().header().u32(9'000'000).data, "frame 0: truncated: 9000000 boxes need"},
        {"static_flag_two.trace", Bytes().header().frame({1}, {unit}, 2).end(1).data,
         "frame 0, box 0 (id 1): static flag 2, expected 0 or 1"},
        {"frame_count_mismatch.trace", Bytes().header().frame({1}, {unit}).end(3).data,
         "the end marker says 3 frames, and the file holds 1"},
        {"bytes_after_end.trace", Bytes().header().end(0).raw("x").data, "bytes after the end of the trace"},
        {"empty.csv", "", "line 1: empty file"},
        {"wrong_header.csv", "frame,id,x,y,w,h\n0,1,0,0,1,1\n", "line 1: the header must be"},
        {"inf.csv", csvHeader + "0,1,0,0,1,1,0\n0,2,0,0,inf,1,0\n", "frame 0, line 3 (id 2): a corner is not a finite number"},
        {"inverted.csv", csvHeader + "0,1,5,0,2,1,0\n", "frame 0, line 2 (id 1): min_x 5.000000 > max_x 2.000000"},
        {"duplicate_id.csv", csvHeader + "0,7,0,0,1,1,0\n1,7,0,0,1,1,0\n1,8,0,0,1,1,0\n1,7,2,2,3,3,0\n",
         "frame 1, line 5 (id 7): id 7 appears twice in the frame"},
        {"out_of_order.csv", csvHeader + "0,1,0,0,1,1,0\n2,1,0,0,1,1,0\n1,1,0,0,1,1,0\n",
         "frame 1, line 4: frames out of order: after frame 2"},
        {"rows_apart.csv", csvHeader + "0,1,0,0,1,1,0\n1,2,0,0,1,1,0\n0,3,0,0,1,1,0\n",
         "frame 0, line 4: frames out of order: after frame 1"},
        {"short_row.csv", csvHeader + "0,1,0,0,1,1\n", "line 2: 6 fields, expected 7"},
        {"text_number.csv", csvHeader + "0,1,zero,0,1,1,0\n", "line 2: min_x 'zero' is not a number"},
        {"negative_id.csv", csvHeader + "0,-1,0,0,1,1,0\n", "line 2: id '-1' is not a 32-bit unsigned id"},
        {"static_yes.csv", csvHeader + "0,1,0,0,1,1,yes\n", "line 2: static 'yes' is not 0 or 1"},
        {"empty_line.csv", csvHeader + "0,1,0,0,1,1,0\n\n0,2,0,0,1,1,0\n", "line 3: an empty line"},
        {"binary_as_csv.csv", Bytes().header().end(0).data, "line 1: a NUL byte: not a CSV trace"},
        {"nul_in_row.csv", csvHeader + "0,1,0,0,1,1,0" + std::string(1, '\0') + "junk\n", "line 2: a NUL byte"},
        {"line_too_long.csv", csvHeader + "0,1,0,0,1,1,0," + std::string(5000, ' ') + "\n", "line 2: longer than 4096"},
        {"no_line_breaks.csv", csvHeader + std::string(10000, '9'), "line 2: longer than 4096 characters"},
        {"frame_number_huge.csv", csvHeader + "10000000,1,0,0,1,1,0\n", "line 2: frame '10000000' is not a frame number"},
    };
}

TEST(Trace, HostileTracesAreRefusedWithTheirMessage) {
    const std::vector<Hostile> cases = hostileTraces();
    EXPECT_GE(cases.size(), 12u);
    for (const Hostile& h : cases) {
        const std::string path = tempPath(std::string("hostile_") + h.name);
        {
            std::ofstream out(path, std::ios::binary);
            out << h.contents;
        }
        std::string message;
        try {
            TraceReader reader(path);
            while (reader.next()) {
            }
        } catch (const TraceError& e) {
            message = e.what();
        }
        const std::string prefix = "trace '" + path + "': ";
        EXPECT_TRUE(message.starts_with(prefix)) << h.name << ": " << (message.empty() ? "accepted" : message);
        EXPECT_NE(message.find(h.expected), std::string::npos)
            << h.name << ": expected '" << h.expected << "' in '" << message << "'";
    }
}

TEST(Trace, AMissingFileIsNamed) {
    try {
        TraceReader reader(tempPath("does_not_exist.trace"));
        FAIL();
    } catch (const TraceError& e) {
        EXPECT_NE(std::string(e.what()).find("cannot open the file"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace ro
