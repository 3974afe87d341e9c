#pragma once
/// Traces: the boxes of recorded frames, written by a game and replayed by the lab and the
/// bench. A trace is a sequence of frames; a frame is the boxes alive in it (id, corners,
/// static flag, optionally category and mask). Two encodings, both in docs/trace-format.md:
/// a compact binary one, read one frame at a time in bounded memory, and a CSV one that any
/// tool can write.
///
/// Recording a game takes three lines:
///
///     ro::TraceWriter trace("game.trace");  // once
///     trace.frame(boxes);                   // each step, a ro::BoxView of the bodies alive
///     trace.close();                        // at the end: the last writes are checked here

#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "ro/broadphase.h"

namespace ro {

namespace detail {
/// Closes a trace's file however its reader or writer ends, a constructor that threw included.
struct FileCloser {
    void operator()(std::FILE* file) const { std::fclose(file); }
};
}  // namespace detail

/// The encodings of a trace file.
enum class TraceEncoding : std::uint8_t {
    Binary,  ///< docs/trace-format.md, "Binary"
    Csv,     ///< frame,id,min_x,min_y,max_x,max_y,static[,category,mask]
};

/// The format's version: the binary header carries it; the reader refuses any other.
inline constexpr std::uint32_t kTraceVersion = 1;
/// The most boxes a frame may hold: a larger count is refused before anything is allocated.
inline constexpr std::uint32_t kTraceMaxBoxesPerFrame = 10'000'000;
/// The most frames a trace may hold (a CSV's frame numbers stay below it).
inline constexpr std::uint64_t kTraceMaxFrames = 10'000'000;

/// The encoding a path's extension implies: `.csv` (any case) is CSV, anything else binary.
[[nodiscard]] TraceEncoding traceEncodingOf(const std::string& path);

/// A trace that cannot be read or written. what() names the file, and the frame and the CSV
/// line or the binary box where there is one: "trace 'a.csv': frame 3, line 17: min_x 5 > max_x 2".
class TraceError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Writes a trace, one frame per call. Every write is checked and a failure throws TraceError
/// naming the path; a frame whose boxes no reader would take (a non-finite corner, min > max,
/// an id twice, more than kTraceMaxBoxesPerFrame boxes) throws before anything of it is written.
class TraceWriter {
public:
    /// Creates (or truncates) `path`, in `encoding`, or in the one its extension implies.
    explicit TraceWriter(const std::string& path, std::optional<TraceEncoding> encoding = std::nullopt);
    /// Closes the file if close() was not called, without reporting errors: call close().
    ~TraceWriter() = default;
    TraceWriter(const TraceWriter&) = delete;
    TraceWriter& operator=(const TraceWriter&) = delete;

    /// Appends one frame: the boxes alive in this step. Null isStatic writes every box as
    /// dynamic. The first frame with boxes decides whether the trace holds filters (category
    /// and mask); every later frame with boxes must have them too, or not.
    void frame(const BoxView& boxes);
    /// Writes the end of the trace and closes the file; throws TraceError if any of it failed.
    void close();

    [[nodiscard]] const std::string& path() const { return m_path; }
    [[nodiscard]] std::uint64_t frames() const { return m_frames; }

private:
    void writeHeader(bool filters);
    void writeBinaryFrame(const BoxView& boxes);
    void writeCsvFrame(const BoxView& boxes);
    void put(const void* data, std::size_t bytes);
    [[noreturn]] void fail(const std::string& what) const;

    std::string m_path;
    TraceEncoding m_encoding;
    std::unique_ptr<std::FILE, detail::FileCloser> m_file;
    std::uint64_t m_frames = 0;
    std::optional<bool> m_filters;  ///< set by the first frame with boxes, which writes the header
    std::uint64_t m_emptyBeforeHeader = 0;  ///< empty frames before it, written after the header
    std::vector<std::uint32_t> m_scratch;  ///< sorted ids (duplicates), reused between frames
    std::vector<std::uint8_t> m_bytes;     ///< a frame's encoded bytes or text, reused
};

/// Reads a trace one frame at a time, into buffers of its own reused between frames: once
/// they have grown to the largest frame, reading allocates nothing. Anything wrong in the file
/// throws TraceError naming the file, the frame and the line or box: a truncated file, a wrong
/// magic or version, a non-finite corner, min > max, an id twice in a frame, CSV frames out of
/// order, a box count over kTraceMaxBoxesPerFrame (checked before allocating for it).
class TraceReader {
public:
    /// Opens `path`, in `encoding` or the one its extension implies, and reads its header.
    explicit TraceReader(const std::string& path, std::optional<TraceEncoding> encoding = std::nullopt);
    ~TraceReader() = default;
    TraceReader(const TraceReader&) = delete;
    TraceReader& operator=(const TraceReader&) = delete;

    /// Reads the next frame; false at the end of the trace.
    bool next();
    /// The frame next() read, valid until the next call. isStatic is null when no box of the
    /// frame is static; category and mask are null when the trace has no filters.
    [[nodiscard]] const BoxView& frame() const { return m_view; }
    /// The frame's number: its position from 0 in a binary trace, the number in its rows in a
    /// CSV one (a number skipped between two frames is an empty frame).
    [[nodiscard]] std::uint64_t frameNumber() const { return m_frameNumber; }
    [[nodiscard]] bool hasFilters() const { return m_filters; }
    [[nodiscard]] TraceEncoding encoding() const { return m_encoding; }
    [[nodiscard]] const std::string& path() const { return m_path; }

private:
    bool nextBinary();
    bool nextCsv();
    /// Reads the next CSV line into m_line; false at the end of the file.
    bool readLine();
    /// Parses m_line as a row into the pending row; throws naming the line.
    void parseRow();
    /// Sizes the buffers for `count` boxes (after the count was checked).
    void resize(std::uint32_t count);
    /// Checks the frame just read and points m_view at it.
    void finishFrame();
    void readExactly(void* data, std::size_t bytes, const char* what);
    [[noreturn]] void fail(const std::string& where, const std::string& what) const;
    [[nodiscard]] std::string whereInFrame(std::uint32_t box) const;

    std::string m_path;
    TraceEncoding m_encoding;
    std::unique_ptr<std::FILE, detail::FileCloser> m_file;
    bool m_filters = false;
    bool m_done = false;
    std::uint64_t m_framesRead = 0;
    std::uint64_t m_frameNumber = 0;
    std::optional<std::uint64_t> m_bytesLeft;  ///< of a regular binary file, to refuse a count the file cannot hold

    std::vector<float> m_minX, m_minY, m_maxX, m_maxY;
    std::vector<std::uint32_t> m_ids, m_category, m_mask, m_scratch;
    std::vector<std::uint8_t> m_static;
    std::vector<std::uint64_t> m_lines;  ///< CSV: each box's line in the file, for messages
    BoxView m_view;

    // CSV: the block read from the file, the line being read, and the row read ahead (the
    // first of the next frame).
    std::vector<char> m_block;
    std::size_t m_blockAt = 0, m_blockEnd = 0;
    std::string m_line;
    std::uint64_t m_lineNumber = 0;
    struct Row {
        std::uint64_t frame = 0;
        std::uint32_t id = 0;
        float minX = 0, minY = 0, maxX = 0, maxY = 0;
        std::uint8_t isStatic = 0;
        std::uint32_t category = 0, mask = 0;
    } m_row;
    bool m_haveRow = false;
};

}  // namespace ro
