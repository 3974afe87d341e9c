#include "app/overlays.h"

#include <algorithm>
#include <cmath>
#include <iterator>

#include "app/palette.h"

namespace ro::app {

namespace {

/// A distinct colour per level or depth, cycling.
SDL_Color levelColor(std::uint32_t level, Uint8 alpha) {
    SDL_Color c = palette::kLevels[level % std::size(palette::kLevels)];
    c.a = alpha;
    return c;
}

constexpr std::uint32_t kMaxLevelBits = 32;

bool hidden(const OverlayFlags& flags, std::uint32_t level) {
    return level < kMaxLevelBits && (flags.hiddenLevels >> level & 1u) != 0;
}

}  // namespace

void OverlayRenderer::drawStructure(SDL_Renderer* renderer, const ViewTransform& view, const BroadPhase& technique,
                                    OverlayFlags& flags) {
    m_cells.clear();
    m_outlines.clear();
    m_delimiters.clear();
    std::uint32_t levels = 0;
    technique.forEachCell([&](const CellView& cell) {
        if (cell.kind == CellView::Kind::Delimiter) {
            m_delimiters.push_back(cell);
            return;
        }
        levels = std::max(levels, std::min(cell.level + 1, kMaxLevelBits));
        if (hidden(flags, cell.level)) return;
        switch (cell.kind) {
            case CellView::Kind::Cell: {
                // A one-pixel gap between cells lets the grid itself show, once cells are big enough.
                const float pixels = (cell.bounds.maxX - cell.bounds.minX) * view.scale;
                const float gap = pixels >= 4.0f ? 0.5f : 0.0f;
                const auto alpha = static_cast<Uint8>(std::min<std::uint32_t>(20 + 28 * cell.count, 190));
                m_cells.addRect(view.toScreenX(cell.bounds.minX) + gap, view.toScreenY(cell.bounds.minY) + gap,
                                view.toScreenX(cell.bounds.maxX) - gap, view.toScreenY(cell.bounds.maxY) - gap,
                                levelColor(cell.level, alpha));
                // With several levels (last frame's count), an outline in the level's colour tells them apart.
                if (flags.levelsSeen > 1) addOutline(view, cell.bounds, 1.0f, levelColor(cell.level, 230));
                break;
            }
            case CellView::Kind::Node: addOutline(view, cell.bounds, 1.0f, levelColor(cell.level, 200)); break;
            case CellView::Kind::FatBox: addOutline(view, cell.bounds, 1.0f, palette::kFatBox); break;
            case CellView::Kind::Delimiter: break;
        }
    });
    flags.levelsSeen = levels;
    SDL_SetRenderDrawBlendMode(renderer, SDL_BLENDMODE_BLEND);
    m_cells.draw(renderer);
    m_outlines.draw(renderer);
    if (!m_delimiters.empty()) addSweepStrip(renderer, view);
}

void OverlayRenderer::addSweepStrip(SDL_Renderer* renderer, const ViewTransform& view) {
    // Along the bottom edge for a sweep on x, along the right edge for y. Between consecutive
    // delimiters a bar as high as the number of intervals open there; the seed's "touches
    // void" marks sit on the delimiters after which no interval is open.
    constexpr float kStrip = 44.0f;
    int width = 0, height = 0;
    SDL_GetRendererOutputSize(renderer, &width, &height);
    const bool alongX = m_delimiters.front().level == 0;
    const float base = alongX ? static_cast<float>(height) : static_cast<float>(width);
    m_strip.clear();
    if (alongX) m_strip.addRect(0, base - kStrip, static_cast<float>(width), base, palette::kStripBackground);
    else m_strip.addRect(base - kStrip, 0, base, static_cast<float>(height), palette::kStripBackground);
    const auto toScreen = [&](float v) { return alongX ? view.toScreenX(v) : view.toScreenY(v); };
    // Bars scale to the deepest point, so a crowded axis fills the strip and a sparse one shows its gaps.
    int depth = 0, deepest = 1;
    for (const CellView& d : m_delimiters) deepest = std::max(deepest, depth += d.isBegin ? 1 : -1);
    const float pixelsPerInterval = (kStrip - 8.0f) / static_cast<float>(deepest);
    depth = 0;
    for (std::size_t k = 0; k < m_delimiters.size(); ++k) {
        const CellView& d = m_delimiters[k];
        depth += d.isBegin ? 1 : -1;
        const float at = toScreen(d.bounds.minX);
        if (k + 1 < m_delimiters.size() && depth > 0) {
            const float next = toScreen(m_delimiters[k + 1].bounds.minX);
            const float bar = std::max(1.0f, pixelsPerInterval * static_cast<float>(depth));
            if (alongX) m_strip.addRect(at, base - bar, std::max(next, at + 0.5f), base, palette::kStripDepth);
            else m_strip.addRect(base - bar, at, base, std::max(next, at + 0.5f), palette::kStripDepth);
        }
        if (d.touchesVoid) {
            if (alongX) m_strip.addRect(at - 1.0f, base - kStrip, at + 1.0f, base - kStrip + 6.0f, palette::kVoidMark);
            else m_strip.addRect(base - kStrip, at - 1.0f, base - kStrip + 6.0f, at + 1.0f, palette::kVoidMark);
        }
    }
    SDL_SetRenderDrawBlendMode(renderer, SDL_BLENDMODE_BLEND);
    m_strip.draw(renderer);
}

void OverlayRenderer::addOutline(const ViewTransform& view, const Aabb& box, float width, SDL_Color color) {
    const float x0 = view.toScreenX(box.minX), y0 = view.toScreenY(box.minY);
    const float x1 = view.toScreenX(box.maxX), y1 = view.toScreenY(box.maxY);
    m_outlines.addRect(x0, y0, x1, y0 + width, color);
    m_outlines.addRect(x0, y1 - width, x1, y1, color);
    m_outlines.addRect(x0, y0 + width, x0 + width, y1 - width, color);
    m_outlines.addRect(x1 - width, y0 + width, x1, y1 - width, color);
}

void OverlayRenderer::addEntityOutline(const ViewTransform& view, const World& world, std::uint32_t i, float width,
                                       SDL_Color color) {
    if (i >= world.size()) return;
    const float x = world.posX()[i], y = world.posY()[i], w = world.halfW()[i], h = world.halfH()[i];
    // At least a few pixels across, so a hit on a tiny entity is still visible.
    const float grow = std::max(0.0f, 3.0f / view.scale - std::min(w, h));
    addOutline(view, {x - w - grow, y - h - grow, x + w + grow, y + h + grow}, width, color);
}

void OverlayRenderer::drawQueries(SDL_Renderer* renderer, const ViewTransform& view, const World& world,
                                  const QueryTool& queries) {
    m_outlines.clear();
    m_lines.clear();
    for (const std::uint32_t i : queries.pointHits()) addEntityOutline(view, world, i, 2.0f, palette::kPointHit);
    if (queries.shape() == QueryTool::Shape::Box) {
        addOutline(view, queries.box(), 1.5f, palette::kQueryShape);
        for (const std::uint32_t i : queries.boxHits()) addEntityOutline(view, world, i, 2.0f, palette::kQueryHit);
    }
    if (queries.shape() == QueryTool::Shape::Ray) {
        const Vec2 a = queries.from(), b = queries.to();
        m_lines.addLine(view.toScreenX(a.x), view.toScreenY(a.y), view.toScreenX(b.x), view.toScreenY(b.y), 1.5f,
                        palette::kQueryShape);
        for (const RayHit& hit : queries.rayHits()) addEntityOutline(view, world, hit.index, 2.0f, palette::kQueryHit);
        if (const auto& first = queries.firstHit()) {
            addEntityOutline(view, world, first->index, 3.0f, palette::kFirstHit);
            const float x = view.toScreenX(a.x + (b.x - a.x) * first->t);
            const float y = view.toScreenY(a.y + (b.y - a.y) * first->t);
            m_outlines.addRect(x - 4.0f, y - 4.0f, x + 4.0f, y + 4.0f, palette::kFirstHit);
        }
    }
    SDL_SetRenderDrawBlendMode(renderer, SDL_BLENDMODE_BLEND);
    m_lines.draw(renderer);
    m_outlines.draw(renderer);
}

void OverlayRenderer::drawPairs(SDL_Renderer* renderer, const ViewTransform& view, const World& world) {
    const std::vector<Pair>& candidates = world.candidatePairs();
    const std::vector<Pair>& overlaps = world.overlapPairs();
    m_lines.clear();
    m_lines.reserveQuads(candidates.size() + overlaps.size());
    m_longLines.clear();
    // Overlaps are drawn after (over) all candidates, so membership needs no lookup.
    addPairLines(view, world, candidates, kCandidateWidth, palette::kCandidate, palette::kLongCandidate);
    addPairLines(view, world, overlaps, kOverlapWidth, palette::kOverlap, palette::kOverlap);
    SDL_SetRenderDrawBlendMode(renderer, SDL_BLENDMODE_BLEND);
    m_lines.draw(renderer);
    for (const LongLine& line : m_longLines) {
        palette::setDrawColor(renderer, line.color);
        SDL_RenderDrawLineF(renderer, line.from.x, line.from.y, line.to.x, line.to.y);
    }
}

void OverlayRenderer::addPairLines(const ViewTransform& view, const World& world, const std::vector<Pair>& pairs,
                                   float width, SDL_Color color, SDL_Color longColor) {
    // The software rasteriser scans each triangle's bounding box, so a long diagonal quad costs
    // its box, not its pixels: lines with a box above this area are drawn as native lines.
    constexpr float kMaxQuadBoxArea = 1024.0f;
    const auto posX = world.posX();
    const auto posY = world.posY();
    for (const Pair& p : pairs) {
        if (p.a >= world.size() || p.b >= world.size()) continue;  // pairs of a tick before removals
        const float x0 = view.toScreenX(posX[p.a]);
        const float y0 = view.toScreenY(posY[p.a]);
        const float x1 = view.toScreenX(posX[p.b]);
        const float y1 = view.toScreenY(posY[p.b]);
        if ((std::abs(x1 - x0) + width) * (std::abs(y1 - y0) + width) <= kMaxQuadBoxArea) {
            m_lines.addLine(x0, y0, x1, y1, width, color);
        } else {
            m_longLines.push_back({{x0, y0}, {x1, y1}, longColor});
        }
    }
}

void OverlayRenderer::drawBounds(SDL_Renderer* renderer, const ViewTransform& view, const World& world) {
    const auto posX = world.posX();
    const auto posY = world.posY();
    const auto halfW = world.halfW();
    const auto halfH = world.halfH();
    m_rects.clear();
    for (std::uint32_t i = 0; i < world.size(); ++i) {
        m_rects.push_back({view.toScreenX(posX[i] - halfW[i]), view.toScreenY(posY[i] - halfH[i]),
                           2.0f * halfW[i] * view.scale, 2.0f * halfH[i] * view.scale});
    }
    SDL_SetRenderDrawBlendMode(renderer, SDL_BLENDMODE_BLEND);
    palette::setDrawColor(renderer, palette::kBounds);
    SDL_RenderDrawRectsF(renderer, m_rects.data(), static_cast<int>(m_rects.size()));
}

}  // namespace ro::app
