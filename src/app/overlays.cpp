#include "app/overlays.h"

#include <algorithm>
#include <cmath>

#include "app/palette.h"

namespace ro::app {

void OverlayRenderer::drawCells(SDL_Renderer* renderer, const ViewTransform& view, const BroadPhase& technique) {
    m_cells.clear();
    technique.forEachCell([this, &view](const CellView& cell) {
        // A one-pixel gap between cells lets the grid itself show, once cells are big enough.
        const float pixels = (cell.bounds.maxX - cell.bounds.minX) * view.scale;
        const float gap = pixels >= 4.0f ? 0.5f : 0.0f;
        const float x0 = view.toScreenX(cell.bounds.minX) + gap;
        const float y0 = view.toScreenY(cell.bounds.minY) + gap;
        const float x1 = view.toScreenX(cell.bounds.maxX) - gap;
        const float y1 = view.toScreenY(cell.bounds.maxY) - gap;
        SDL_Color color = palette::kCell;
        color.a = static_cast<Uint8>(std::min<std::uint32_t>(20 + 28 * cell.count, 190));
        m_cells.addRect(x0, y0, x1, y1, color);
    });
    SDL_SetRenderDrawBlendMode(renderer, SDL_BLENDMODE_BLEND);
    m_cells.draw(renderer);
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
