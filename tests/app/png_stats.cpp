// png_stats: prints what a test needs to know about a PNG without a golden image:
//   width=W height=H colours=N non_background=F
// where colours counts distinct RGB values and non_background is the fraction of pixels that
// differ from the most common colour. Exit 1 if the file cannot be read.

#include <fmt/core.h>
#include <stb_image.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <unordered_map>

int main(int argc, char** argv) {
    if (argc != 2) {
        fmt::print(stderr, "usage: png_stats FILE.png\n");
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
    const std::size_t count = static_cast<std::size_t>(width) * static_cast<std::size_t>(height);
    std::unordered_map<std::uint32_t, std::size_t> histogram;
    for (std::size_t i = 0; i < count; ++i) {
        const unsigned char* p = pixels + 3 * i;
        ++histogram[(std::uint32_t{p[0]} << 16) | (std::uint32_t{p[1]} << 8) | p[2]];
    }
    stbi_image_free(pixels);
    std::size_t background = 0;
    for (const auto& entry : histogram) background = std::max(background, entry.second);
    const double nonBackground = count == 0 ? 0.0 : 1.0 - static_cast<double>(background) / static_cast<double>(count);
    fmt::print("width={} height={} colours={} non_background={:.4f}\n", width, height, histogram.size(), nonBackground);
    return 0;
}
