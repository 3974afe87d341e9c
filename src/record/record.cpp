#include "record/record.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace ro::record {

std::span<const SceneInfo> scenes() {
    static const std::vector<SceneInfo> all = [] {
        std::vector<SceneInfo> list;
#ifdef RO_RECORD_HAVE_BOX2D
        for (const SceneInfo& s : box2dScenes()) list.push_back(s);
#endif
#ifdef RO_RECORD_HAVE_BULLET
        for (const SceneInfo& s : bulletScenes()) list.push_back(s);
#endif
#ifdef RO_RECORD_HAVE_CHIPMUNK
        for (const SceneInfo& s : chipmunkScenes()) list.push_back(s);
#endif
        return list;
    }();
    return all;
}

std::vector<std::string_view> enginesBuilt() {
    std::vector<std::string_view> engines;
    for (const SceneInfo& s : scenes())
        if (std::find(engines.begin(), engines.end(), s.engine) == engines.end()) engines.push_back(s.engine);
    return engines;
}

std::vector<std::string_view> missingEnginePackages() {
    std::vector<std::string_view> missing;
#ifndef RO_RECORD_HAVE_BOX2D
    missing.push_back("libbox2d-dev");
#endif
#ifndef RO_RECORD_HAVE_BULLET
    missing.push_back("libbullet-dev");
#endif
#ifndef RO_RECORD_HAVE_CHIPMUNK
    missing.push_back("libchipmunk-dev");
#endif
    return missing;
}

const SceneInfo* findScene(std::string_view engine, std::string_view name) {
    for (const SceneInfo& s : scenes())
        if (s.engine == engine && s.name == name) return &s;
    return nullptr;
}

void recordToFile(const SceneInfo& scene, const RecordOptions& options, const std::string& path) {
    // The process id in the name: two runs recording the same file do not write one another's.
    const std::string partial = path + ".partial." + std::to_string(getpid());
    try {
        TraceWriter out(partial, traceEncodingOf(path));  // the final name says the encoding
        scene.record(options, out);
        out.close();
    } catch (...) {
        std::remove(partial.c_str());  // no half-written file left behind
        throw;
    }
    if (std::rename(partial.c_str(), path.c_str()) != 0) {
        std::remove(partial.c_str());
        throw TraceError("trace '" + path + "': could not rename '" + partial + "' to it");
    }
}

void FrameBoxes::clear() {
    m_minX.clear(), m_minY.clear(), m_maxX.clear(), m_maxY.clear();
    m_ids.clear(), m_static.clear();
}

void FrameBoxes::add(std::uint32_t id, float minX, float minY, float maxX, float maxY, bool isStatic) {
    m_minX.push_back(minX), m_minY.push_back(minY), m_maxX.push_back(maxX), m_maxY.push_back(maxY);
    m_ids.push_back(id);
    m_static.push_back(isStatic ? 1 : 0);
}

BoxView FrameBoxes::view() const {
    BoxView v;
    v.minX = m_minX.data(), v.minY = m_minY.data(), v.maxX = m_maxX.data(), v.maxY = m_maxY.data();
    v.ids = m_ids.data();
    v.count = count();
    v.isStatic = m_static.data();
    return v;
}

int scaled(int count, double scale, int least) {
    return std::max(least, static_cast<int>(std::lround(count * scale)));
}

}  // namespace ro::record
