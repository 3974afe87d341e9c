// TraceWriter: a frame's boxes checked, encoded into one buffer, written with one checked
// write (docs/trace-format.md).
#include <cerrno>
#include <charconv>
#include <cstring>

#include "trace/trace_common.h"

namespace ro {
namespace {

/// Appends `value` as text: floats in the shortest form that reads back to the same bits.
template <typename T>
void appendNumber(std::vector<std::uint8_t>& out, T value) {
    char text[32];
    const auto [end, ec] = std::to_chars(text, text + sizeof text, value);
    (void)ec;  // 32 characters hold any float or 32-bit integer
    out.insert(out.end(), text, end);
}

void appendText(std::vector<std::uint8_t>& out, const char* text) { out.insert(out.end(), text, text + std::strlen(text)); }

/// Appends `count` 4-byte words in the file's byte order.
void appendWords(std::vector<std::uint8_t>& out, const void* words, std::uint32_t count) {
    const std::size_t at = out.size();
    out.resize(at + 4 * std::size_t{count});
    if (count > 0) std::memcpy(out.data() + at, words, 4 * std::size_t{count});
    trace::toLittleEndian(out.data() + at, count);
}

}  // namespace

TraceWriter::TraceWriter(const std::string& path, std::optional<TraceEncoding> encoding)
    : m_path(path), m_encoding(encoding.value_or(traceEncodingOf(path))) {
    m_file.reset(std::fopen(path.c_str(), "wb"));
    if (m_file == nullptr) fail(std::string("cannot create the file: ") + std::strerror(errno));
}

void TraceWriter::frame(const BoxView& boxes) {
    if (m_file == nullptr) fail("frame() after close()");
    const std::string where = "frame " + std::to_string(m_frames);
    if (m_frames + 1 > kTraceMaxFrames)
        fail(where + ": a trace holds at most " + std::to_string(kTraceMaxFrames) + " frames");
    if (boxes.count > kTraceMaxBoxesPerFrame)
        fail(where + ": " + std::to_string(boxes.count) + " boxes, over the limit of " +
             std::to_string(kTraceMaxBoxesPerFrame) + " a frame");
    const bool filters = boxes.category != nullptr;
    if (filters != (boxes.mask != nullptr)) fail(where + ": category and mask come together, or neither");
    // An empty frame has no arrays to point at (an empty vector's data() is null): it is taken
    // with or without filters, and the first frame with boxes decides.
    if (m_filters && *m_filters != filters && boxes.count > 0)
        fail(where + (filters ? ": has filters, and the first frame had none"
                              : ": has no filters, and the first frame had them"));
    if (const auto problem = trace::firstProblem(boxes, m_scratch))
        fail(where + ", box " + std::to_string(problem->box) + " (id " + std::to_string(boxes.ids[problem->box]) +
             "): " + problem->what);
    if (!m_filters) {
        if (boxes.count == 0) {
            ++m_frames, ++m_emptyBeforeHeader;  // written with the header, which waits for a frame with boxes
            return;
        }
        writeHeader(filters);
    }
    if (m_encoding == TraceEncoding::Binary)
        writeBinaryFrame(boxes);
    else
        writeCsvFrame(boxes);
    ++m_frames;
}

void TraceWriter::close() {
    if (m_file == nullptr) return;
    if (!m_filters) writeHeader(false);  // a trace of no frames still says what it is
    if (m_encoding == TraceEncoding::Binary) {
        m_bytes.clear();
        appendWords(m_bytes, &trace::kEndMarker, 1);
        const std::uint32_t frames[2] = {static_cast<std::uint32_t>(m_frames),
                                         static_cast<std::uint32_t>(m_frames >> 32)};
        appendWords(m_bytes, frames, 2);
        put(m_bytes.data(), m_bytes.size());
    }
    std::FILE* file = m_file.release();
    const bool flushed = std::fflush(file) == 0;
    const int flushError = errno;
    const bool closed = std::fclose(file) == 0;
    if (!flushed || !closed) fail(std::string("cannot finish writing: ") + std::strerror(flushed ? errno : flushError));
}

void TraceWriter::writeHeader(bool filters) {
    constexpr std::uint32_t kNone = 0;
    m_filters = filters;
    m_bytes.clear();
    if (m_encoding == TraceEncoding::Binary) {
        m_bytes.assign(trace::kMagic.begin(), trace::kMagic.end());
        const std::uint32_t words[2] = {kTraceVersion, filters ? trace::kFlagFilters : 0u};
        appendWords(m_bytes, words, 2);
        // The empty frames before the first with boxes: a zero count each.
        for (std::uint64_t f = 0; f < m_emptyBeforeHeader; ++f) appendWords(m_bytes, &kNone, 1);
    } else {
        appendText(m_bytes, trace::kCsvHeader);
        if (filters) appendText(m_bytes, trace::kCsvFilterColumns);
        m_bytes.push_back('\n');
    }
    put(m_bytes.data(), m_bytes.size());
}

void TraceWriter::writeBinaryFrame(const BoxView& boxes) {
    const std::uint32_t n = boxes.count;
    m_bytes.clear();
    m_bytes.reserve(4 + n * trace::binaryBoxBytes(*m_filters));
    appendWords(m_bytes, &n, 1);
    appendWords(m_bytes, boxes.ids, n);
    for (const float* column : {boxes.minX, boxes.minY, boxes.maxX, boxes.maxY}) appendWords(m_bytes, column, n);
    for (std::uint32_t i = 0; i < n; ++i)
        m_bytes.push_back(boxes.isStatic != nullptr && boxes.isStatic[i] != 0 ? 1 : 0);
    if (*m_filters && n > 0) {
        appendWords(m_bytes, boxes.category, n);
        appendWords(m_bytes, boxes.mask, n);
    }
    put(m_bytes.data(), m_bytes.size());
}

void TraceWriter::writeCsvFrame(const BoxView& boxes) {
    m_bytes.clear();
    for (std::uint32_t i = 0; i < boxes.count; ++i) {
        appendNumber(m_bytes, m_frames);
        m_bytes.push_back(',');
        appendNumber(m_bytes, boxes.ids[i]);
        for (const float* column : {boxes.minX, boxes.minY, boxes.maxX, boxes.maxY}) {
            m_bytes.push_back(',');
            appendNumber(m_bytes, column[i]);
        }
        appendText(m_bytes, boxes.isStatic != nullptr && boxes.isStatic[i] != 0 ? ",1" : ",0");
        if (*m_filters) {
            m_bytes.push_back(',');
            appendNumber(m_bytes, boxes.category[i]);
            m_bytes.push_back(',');
            appendNumber(m_bytes, boxes.mask[i]);
        }
        m_bytes.push_back('\n');
    }
    put(m_bytes.data(), m_bytes.size());
}

void TraceWriter::put(const void* data, std::size_t bytes) {
    if (bytes > 0 && std::fwrite(data, 1, bytes, m_file.get()) != bytes)
        fail("frame " + std::to_string(m_frames) + ": write failed: " + std::strerror(errno));
}

void TraceWriter::fail(const std::string& what) const { throw TraceError(trace::message(m_path, what)); }

}  // namespace ro
