#include "broadphase/broadphase.h"

#include <algorithm>

namespace ro {
namespace {

void checkFinite(float v, const char* what) {
    if (!std::isfinite(v)) throw std::invalid_argument(std::string(what) + " must have finite coordinates");
}

void checkSegment(const Segment& s) {
    checkFinite(s.from.x, "ray");
    checkFinite(s.from.y, "ray");
    checkFinite(s.to.x, "ray");
    checkFinite(s.to.y, "ray");
    // -3e38 to 3e38 has finite ends but an infinite direction: every t would be 0 or NaN.
    if (!std::isfinite(s.to.x - s.from.x) || !std::isfinite(s.to.y - s.from.y))
        throw std::invalid_argument("ray's extent must be finite (to - from overflows)");
}

}  // namespace

QueryCost BroadPhase::queryPoint(Vec2 point, std::vector<std::uint32_t>& out) {
    checkFinite(point.x, "query point");
    checkFinite(point.y, "query point");
    out.clear();
    return doQueryBox({point.x, point.y, point.x, point.y}, out);
}

QueryCost BroadPhase::queryBox(const Aabb& box, std::vector<std::uint32_t>& out) {
    if (!box.isFinite()) throw std::invalid_argument("query box must have finite coordinates");
    if (box.minX > box.maxX || box.minY > box.maxY) throw std::invalid_argument("query box must have min <= max");
    out.clear();
    return doQueryBox(box, out);
}

QueryCost BroadPhase::queryRay(const Segment& segment, std::vector<RayHit>& out) {
    checkSegment(segment);
    out.clear();
    const QueryCost cost = doQueryRay(segment, out);
    std::sort(out.begin(), out.end(), hitBefore);
    return cost;
}

QueryCost BroadPhase::raycastFirst(const Segment& segment, std::optional<RayHit>& hit) {
    checkSegment(segment);
    hit.reset();
    return doRaycastFirst(segment, hit);
}

}  // namespace ro
