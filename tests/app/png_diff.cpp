// png_diff: compares two PNGs of the same size inside a rectangle, without a golden image:
//   lit=N differ=N differ_share=F
// where lit counts pixels that differ from the rectangle's most common colour (the floor) in
// either image, differ counts pixels whose colours differ by more than 8 in any channel, and
// differ_share = differ / lit. Exit 1 if a file cannot be read or the sizes differ, 2 on bad usage.

#include <fmt/core.h>
#include <stb_image.h>

#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <unordered_map>

namespace {

bool parseInt(const char* text, int& value) {
    const char* end = text + std::strlen(text);
    const auto [ptr, ec] = std::from_chars(text, end, value);
    return ec == std::errc{} && ptr == end && value >= 0;
}

std::uint32_t rgbAt(const unsigned char* pixels, int width, int x, int y) {
    const unsigned char* p = pixels + (static_cast<std::size_t>(y) * static_cast<std::size_t>(width) + x) * 3;
    return static_cast<std::uint32_t>(p[0]) << 16 | static_cast<std::uint32_t>(p[1]) << 8 | p[2];
}

}  // namespace

int main(int argc, char** argv) {
    int r[4] = {};
    if (argc != 7 || !(parseInt(argv[3], r[0]) && parseInt(argv[4], r[1]) && parseInt(argv[5], r[2]) &&
                       parseInt(argv[6], r[3]))) {
        fmt::print(stderr, "usage: png_diff A.png B.png X Y W H\n");
        return 2;
    }
    int wa = 0, ha = 0, wb = 0, hb = 0, channels = 0;
    unsigned char* a = stbi_load(argv[1], &wa, &ha, &channels, 3);
    unsigned char* b = stbi_load(argv[2], &wb, &hb, &channels, 3);
    if (!a || !b || wa != wb || ha != hb || r[0] + r[2] > wa || r[1] + r[3] > ha) {
        fmt::print(stderr, "png_diff: cannot read both files at one size covering the rectangle\n");
        return 1;
    }
    std::unordered_map<std::uint32_t, std::uint64_t> counts;
    for (int y = r[1]; y < r[1] + r[3]; ++y)
        for (int x = r[0]; x < r[0] + r[2]; ++x) ++counts[rgbAt(a, wa, x, y)];
    std::uint32_t floor = 0;
    std::uint64_t most = 0;
    for (const auto& [colour, count] : counts)
        if (count > most) most = count, floor = colour;
    std::uint64_t lit = 0, differ = 0;
    for (int y = r[1]; y < r[1] + r[3]; ++y) {
        for (int x = r[0]; x < r[0] + r[2]; ++x) {
            const std::uint32_t pa = rgbAt(a, wa, x, y), pb = rgbAt(b, wb, x, y);
            if (pa != floor || pb != floor) ++lit;
            for (int shift = 0; shift < 24; shift += 8) {
                if (std::abs(static_cast<int>((pa >> shift) & 0xff) - static_cast<int>((pb >> shift) & 0xff)) > 8) {
                    ++differ;
                    break;
                }
            }
        }
    }
    fmt::print("lit={} differ={} differ_share={:.5f}\n", lit, differ,
               lit == 0 ? 1.0 : static_cast<double>(differ) / static_cast<double>(lit));
    stbi_image_free(a);
    stbi_image_free(b);
    return 0;
}
