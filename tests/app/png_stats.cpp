// png_stats: prints what a test needs to know about a PNG without a golden image:
//   width=W height=H colours=N non_background=F
// where colours counts distinct RGB values and non_background is the fraction of pixels that
// differ from the most common colour. With X Y W H, only that rectangle is counted (so a test
// can look at the world and not at the panel). With --colour=R,G,B last, also colour_pixels=N:
// the pixels within 10 of that colour on every channel (an overlay's colour, found wherever the
// layout puts the world). Exit 1 if the file cannot be read, 2 on bad usage.

#include <fmt/core.h>
#include <stb_image.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <unordered_map>

namespace {

bool parseInt(const char* text, int& value) {
    const char* end = text + std::strlen(text);
    const auto [ptr, ec] = std::from_chars(text, end, value);
    return ec == std::errc{} && ptr == end && value >= 0;
}

}  // namespace

/// "R,G,B" into three values in [0, 255].
bool parseColour(const char* text, int (&rgb)[3]) {
    const char* end = text + std::strlen(text);
    for (int k = 0; k < 3; ++k) {
        const auto [ptr, ec] = std::from_chars(text, end, rgb[k]);
        if (ec != std::errc{} || rgb[k] < 0 || rgb[k] > 255) return false;
        text = ptr;
        if (k < 2) {
            if (text == end || *text != ',') return false;
            ++text;
        }
    }
    return text == end;
}

int main(int argc, char** argv) {
    constexpr std::string_view kColourFlag = "--colour=";
    int colour[3] = {0, 0, 0};
    bool hasColour = false;
    if (argc > 2 && std::string_view(argv[argc - 1]).starts_with(kColourFlag)) {
        if (!parseColour(argv[argc - 1] + kColourFlag.size(), colour)) {
            fmt::print(stderr, "png_stats: --colour=R,G,B takes three values 0-255\n");
            return 2;
        }
        hasColour = true;
        --argc;
    }
    int region[4] = {0, 0, 0, 0};
    const bool hasRegion = argc == 6;
    if ((argc != 2 && !hasRegion) ||
        (hasRegion && !(parseInt(argv[2], region[0]) && parseInt(argv[3], region[1]) && parseInt(argv[4], region[2]) &&
                        parseInt(argv[5], region[3])))) {
        fmt::print(stderr, "usage: png_stats FILE.png [X Y W H] [--colour=R,G,B]\n");
        return 2;
    }
    int width = 0;
    int height = 0;
    int channels = 0;
    unsigned char* pixels = stbi_load(argv[1], &width, &height, &channels, 3);
    if (!pixels) {
        fmt::print(stderr, "png_stats: cannot read '{}': {}\n", argv[1], stbi_failure_reason());
        return 1;
    }
    const int x0 = hasRegion ? std::min(region[0], width) : 0;
    const int y0 = hasRegion ? std::min(region[1], height) : 0;
    const int x1 = hasRegion ? std::min(x0 + region[2], width) : width;
    const int y1 = hasRegion ? std::min(y0 + region[3], height) : height;
    std::unordered_map<std::uint32_t, std::size_t> histogram;
    std::size_t count = 0, matching = 0;
    for (int y = y0; y < y1; ++y) {
        for (int x = x0; x < x1; ++x) {
            const unsigned char* p = pixels + 3 * (static_cast<std::size_t>(y) * static_cast<std::size_t>(width) + x);
            ++histogram[(std::uint32_t{p[0]} << 16) | (std::uint32_t{p[1]} << 8) | p[2]];
            ++count;
            if (hasColour && std::abs(p[0] - colour[0]) <= 10 && std::abs(p[1] - colour[1]) <= 10 &&
                std::abs(p[2] - colour[2]) <= 10)
                ++matching;
        }
    }
    stbi_image_free(pixels);
    std::size_t background = 0;
    for (const auto& entry : histogram) background = std::max(background, entry.second);
    const double nonBackground = count == 0 ? 0.0 : 1.0 - static_cast<double>(background) / static_cast<double>(count);
    fmt::print("width={} height={} colours={} non_background={:.4f}", width, height, histogram.size(), nonBackground);
    if (hasColour) fmt::print(" colour_pixels={}", matching);
    fmt::print("\n");
    return 0;
}
