// The one way input files are read and output files written: what is not a regular file is
// refused without blocking, a file over the limit is refused, a symlink stays a symlink, and
// values in messages are short and escaped.

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "files/safe_file.h"

namespace {

namespace fs = std::filesystem;
using ro::files::FileError;

std::string refusal(const auto& call) {
    try {
        call();
    } catch (const FileError& e) {
        return e.what();
    }
    return "accepted";
}

struct SafeFile : ::testing::Test {
    fs::path dir = fs::temp_directory_path() / ("ro_safe_file_" + std::to_string(getpid()));
    void SetUp() override { fs::create_directories(dir); }
    void TearDown() override { fs::remove_all(dir); }
};

// 3: a FIFO is neither opened for reading nor for writing (either would block).
TEST_F(SafeFile, AFifoIsRefusedWithoutBlocking) {
    const std::string fifo = (dir / "fifo").string();
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    EXPECT_NE(refusal([&] { (void)ro::files::readRegularFile(fifo, 100); }).find("a FIFO"), std::string::npos);
    EXPECT_NE(ro::files::whyNotWritable(fifo).find("a FIFO"), std::string::npos);
    EXPECT_NE(refusal([&] { ro::files::writeOutputFile(fifo, "x"); }).find("a FIFO"), std::string::npos);
}

// 2: a file over the limit is refused before it is read; a device is not a file.
TEST_F(SafeFile, OverTheLimitAndDevicesAreRefused) {
    const std::string path = (dir / "big").string();
    std::ofstream(path) << std::string(101, 'x');
    EXPECT_NE(refusal([&] { (void)ro::files::readRegularFile(path, 100); }).find("101 bytes, more than the 100"),
              std::string::npos);
    EXPECT_EQ(ro::files::readRegularFile(path, 101).size(), 101u);
    EXPECT_NE(refusal([&] { (void)ro::files::readRegularFile("/dev/zero", 100); }).find("not a regular file"),
              std::string::npos);
}

// 7: a symlink stays one and its target gets the bytes; a device is written through.
TEST_F(SafeFile, ASymlinkIsWrittenThroughToItsTarget) {
    const fs::path target = dir / "target", link = dir / "link";
    std::ofstream(target) << "old";
    fs::create_symlink(target, link);
    ro::files::writeOutputFile(link.string(), "new");
    EXPECT_TRUE(fs::is_symlink(link));
    std::ifstream in(target);
    EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "new");
    EXPECT_NO_THROW(ro::files::writeOutputFile("/dev/null", "x"));
    EXPECT_TRUE(fs::is_character_file("/dev/null"));
    EXPECT_NE(refusal([] { ro::files::writeOutputFile("/dev/full", "x"); }).find("/dev/full"), std::string::npos);
    EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 2);  // no temporary left
}

// 10: at most 80 characters, control characters and broken UTF-8 escaped.
TEST(Quoted, IsShortAndEscaped) {
    EXPECT_EQ(ro::files::quoted("grid"), "'grid'");
    EXPECT_EQ(ro::files::quoted("a\x1b[31m\xC3"), "'a\\x1B[31m\\xC3'");
    EXPECT_EQ(ro::files::quoted("h\xC3\xA9"), "'h\xC3\xA9'");
    const std::string quoted = ro::files::quoted(std::string(1'000'000, 'w'));
    EXPECT_EQ(quoted, "'" + std::string(80, 'w') + "...' (1000000 bytes)");
}

}  // namespace
