#include "app/overlays.h"

#include <algorithm>
#include <array>
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

void OverlayRenderer::readOutputSize(SDL_Renderer* renderer) {
    int width = 0, height = 0;
    SDL_GetRendererOutputSize(renderer, &width, &height);
    m_width = static_cast<float>(width);
    m_height = static_cast<float>(height);
}

namespace {

bool onScreen(const ViewTransform& view, const Aabb& box, float width, float height) {
    return view.toScreenX(box.maxX) >= 0.0f && view.toScreenX(box.minX) <= width && view.toScreenY(box.maxY) >= 0.0f &&
           view.toScreenY(box.minY) <= height;
}

}  // namespace

void OverlayRenderer::drawStructureCells(Screen& screen, const BroadPhase& technique, OverlayFlags& flags) {
    const ViewTransform& view = screen.view();
    int outputWidth = 0, outputHeight = 0;
    SDL_GetRendererOutputSize(screen.renderer(), &outputWidth, &outputHeight);
    const auto width = static_cast<float>(outputWidth), height = static_cast<float>(outputHeight);
    const bool raster = screen.rasterFrame();
    m_cells.clear();
    m_structureLines.clear();
    m_delimiters.clear();
    std::uint32_t levels = 0;
    // Outlines on screen per level, to set next frame's m_deepestLineLevel. A tree of a million
    // leaves has two million nodes: storing them all to keep the budget's shallowest cost more
    // than walking them.
    std::array<std::uint64_t, kMaxLevelBits> linesPerLevel{};
    const auto keepLine = [&](const Aabb& box, std::uint32_t level, SDL_Color color) {
        ++linesPerLevel[std::min(level, kMaxLevelBits - 1)];
        if (level <= m_deepestLineLevel) m_structureLines.push_back({box, level, color});
    };
    technique.forEachElement([&](const StructureElement& cell) {
        if (cell.kind == StructureElement::Kind::Delimiter) {
            m_delimiters.push_back(cell);
            return;
        }
        levels = std::max(levels, std::min(cell.level + 1, kMaxLevelBits));
        if (hidden(flags, cell.level)) return;
        if (cell.kind != StructureElement::Kind::Cell) {
            ++m_counts.lines;
            if (onScreen(view, cell.bounds, width, height))
                keepLine(cell.bounds, cell.level,
                         cell.kind == StructureElement::Kind::Node ? levelColor(cell.level, 200) : palette::kFatBox);
            return;
        }
        ++m_counts.cells;
        if (!onScreen(view, cell.bounds, width, height)) return;
        ++m_counts.cellsShown;
        const float pixels = (cell.bounds.maxX - cell.bounds.minX) * view.scale;
        const auto alpha = static_cast<Uint8>(std::min<std::uint32_t>(20 + 28 * cell.count, 190));
        const float x0 = view.toScreenX(cell.bounds.minX), y0 = view.toScreenY(cell.bounds.minY);
        const float x1 = view.toScreenX(cell.bounds.maxX), y1 = view.toScreenY(cell.bounds.maxY);
        if (raster) {
            // Per cell into the raster, under the entities: the cost is the cells' pixels.
            screen.raster().shadeRect(x0, y0, x1, y1, levelColor(cell.level, alpha));
        } else {
            // A one-pixel gap between cells lets the grid itself show, once cells are big enough.
            const float gap = pixels >= 4.0f ? 0.5f : 0.0f;
            m_cells.addRect(x0 + gap, y0 + gap, x1 - gap, y1 - gap, levelColor(cell.level, alpha));
        }
        // With several levels (last frame's count), an outline in the level's colour tells them
        // apart, where a cell is big enough to show one.
        if (flags.levelsSeen > 1 && pixels >= 4.0f) {
            ++m_counts.lines;
            keepLine(cell.bounds, cell.level, levelColor(cell.level, 230));
        }
    });
    flags.levelsSeen = levels;
    // The level at which the outlines on screen pass the budget; one deeper, in case the view
    // moves. Under the budget, every level.
    m_deepestLineLevel = ~0u;
    std::uint64_t shallower = 0;
    for (std::uint32_t level = 0; level < kMaxLevelBits; ++level) {
        shallower += linesPerLevel[level];
        if (shallower < kLineBudget) continue;
        m_deepestLineLevel = level + 1;
        break;
    }
    SDL_SetRenderDrawBlendMode(screen.renderer(), SDL_BLENDMODE_BLEND);
    m_cells.draw(screen.renderer());
}

void OverlayRenderer::drawStructureLines(Screen& screen) {
    // Over budget, the shallowest levels win: a tree's top levels tell its shape, its leaves blur.
    if (m_structureLines.size() > kLineBudget) {
        std::nth_element(m_structureLines.begin(), m_structureLines.begin() + kLineBudget, m_structureLines.end(),
                         [](const Outline& a, const Outline& b) { return a.level < b.level; });
        m_structureLines.resize(kLineBudget);
    }
    m_counts.linesShown = m_structureLines.size();
    const ViewTransform& view = screen.view();
    if (screen.rasterFrame()) {
        for (const Outline& line : m_structureLines)
            screen.raster().addOutline(view.toScreenX(line.box.minX), view.toScreenY(line.box.minY),
                                       view.toScreenX(line.box.maxX), view.toScreenY(line.box.maxY), line.color);
        return;
    }
    m_outlines.clear();
    for (const Outline& line : m_structureLines) addOutline(view, line.box, 1.0f, line.color);
    SDL_SetRenderDrawBlendMode(screen.renderer(), SDL_BLENDMODE_BLEND);
    m_outlines.draw(screen.renderer());
}

void OverlayRenderer::drawSweepStrip(SDL_Renderer* renderer, const ViewTransform& view, const Rect& area) {
    if (m_delimiters.empty() || area.empty()) return;
    // Along the world view's bottom edge for a sweep on x, along its right edge for y (never
    // under a window). Per pixel along the edge a bar as high as the most intervals open
    // there; the seed's "touches void" marks sit where a delimiter leaves no interval open.
    // Per pixel, not per delimiter: two million delimiters still make at most one bar per column.
    constexpr float kStrip = 44.0f;
    const bool alongX = m_delimiters.front().level == 0;
    const float base = alongX ? area.bottom() : area.right();
    const float start = alongX ? area.x : area.y;  // the screen coordinate of column 0
    const int length = std::max(static_cast<int>(alongX ? area.w : area.h), 1);
    m_columns.assign(static_cast<std::size_t>(length), Column{});
    const auto toScreen = [&](float v) { return (alongX ? view.toScreenX(v) : view.toScreenY(v)) - start; };
    const auto column = [&](float at) {
        return static_cast<int>(std::clamp(std::floor(at), -1.0f, static_cast<float>(length)));
    };
    int depth = 0, deepest = 1;
    for (std::size_t k = 0; k < m_delimiters.size(); ++k) {
        const StructureElement& d = m_delimiters[k];
        depth += d.isBegin ? 1 : -1;
        deepest = std::max(deepest, depth);
        const int first = column(toScreen(d.bounds.minX));
        if (d.touchesVoid && first >= 0 && first < length) m_columns[static_cast<std::size_t>(first)].touchesVoid = true;
        if (depth <= 0 || k + 1 == m_delimiters.size()) continue;
        const int last = column(toScreen(m_delimiters[k + 1].bounds.minX));
        for (int c = std::max(first, 0); c <= std::min(last, length - 1); ++c) {
            Column& col = m_columns[static_cast<std::size_t>(c)];
            col.depth = std::max(col.depth, depth);
        }
    }
    // Bars scale to the deepest point, so a crowded axis fills the strip and a sparse one shows its gaps.
    const float pixelsPerInterval = (kStrip - 8.0f) / static_cast<float>(deepest);
    m_strip.clear();
    if (alongX) m_strip.addRect(area.x, base - kStrip, area.right(), base, palette::kStripBackground);
    else m_strip.addRect(base - kStrip, area.y, base, area.bottom(), palette::kStripBackground);
    for (int c = 0; c < length; ++c) {
        const Column& col = m_columns[static_cast<std::size_t>(c)];
        const auto at = start + static_cast<float>(c);
        if (col.depth > 0) {
            const float bar = std::max(1.0f, pixelsPerInterval * static_cast<float>(col.depth));
            if (alongX) m_strip.addRect(at, base - bar, at + 1.0f, base, palette::kStripDepth);
            else m_strip.addRect(base - bar, at, base, at + 1.0f, palette::kStripDepth);
        }
        if (col.touchesVoid) {
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
    for (const std::uint32_t i : queries.pointHits()) addEntityOutline(view, world, i, 2.0f, palette::kQuery);
    if (queries.shape() == QueryTool::Shape::Box) {
        addOutline(view, queries.box(), 1.5f, palette::kQuery);
        for (const std::uint32_t i : queries.boxHits()) addEntityOutline(view, world, i, 2.0f, palette::kQuery);
    }
    if (queries.shape() == QueryTool::Shape::Ray) {
        const Vec2 a = queries.from(), b = queries.to();
        m_lines.addLine(view.toScreenX(a.x), view.toScreenY(a.y), view.toScreenX(b.x), view.toScreenY(b.y), 1.5f,
                        palette::kQuery);
        for (const RayHit& hit : queries.rayHits()) addEntityOutline(view, world, hit.index, 2.0f, palette::kQuery);
        if (const auto& first = queries.firstHit()) {
            addEntityOutline(view, world, first->index, 4.0f, palette::kQuery);
            const float x = view.toScreenX(a.x + (b.x - a.x) * first->t);
            const float y = view.toScreenY(a.y + (b.y - a.y) * first->t);
            m_outlines.addRect(x - 4.0f, y - 4.0f, x + 4.0f, y + 4.0f, palette::kQuery);
        }
    }
    SDL_SetRenderDrawBlendMode(renderer, SDL_BLENDMODE_BLEND);
    m_lines.draw(renderer);
    m_outlines.draw(renderer);
}

bool OverlayRenderer::isFastMover(const World& world, std::uint32_t i) {
    const float vx = world.posX()[i] - world.prevX()[i], vy = world.posY()[i] - world.prevY()[i];
    const float quarter = 0.5f * std::min(world.halfW()[i], world.halfH()[i]);
    return vx * vx + vy * vy >= quarter * quarter;
}

void OverlayRenderer::drawFastMovers(SDL_Renderer* renderer, const ViewTransform& view, const Lab& lab) {
    const World& world = lab.world();
    const bool swept = world.config().sweptBoxes;
    if (!world.config().countMissed && !swept && lab.missMarks().empty()) return;
    readOutputSize(renderer);
    m_outlines.clear();
    m_lines.clear();
    // The movers (m_lines), then over them their swept boxes and the miss marks (m_outlines).
    const BoxView paths = world.broadPhaseBoxes();
    const auto posX = world.posX(), posY = world.posY(), halfW = world.halfW(), halfH = world.halfH();
    for (std::uint32_t i = 0; i < world.size(); ++i) {
        if (world.isStatic()[i] != 0 || !isFastMover(world, i)) continue;
        ++m_counts.fast;
        if (m_counts.fastShown >= kLineBudget) continue;
        const Aabb path = swept ? paths.box(i) : Aabb{posX[i] - halfW[i], posY[i] - halfH[i], posX[i] + halfW[i], posY[i] + halfH[i]};
        if (!onScreen(view, path, m_width, m_height)) continue;
        ++m_counts.fastShown;
        if (swept) addOutline(view, path, 1.0f, palette::kSweptBox);
        // At least 5 pixels across each way: a bullet is usually a speck at whole-world zoom.
        const float x = view.toScreenX(posX[i]), y = view.toScreenY(posY[i]);
        const float hw = std::max(halfW[i] * view.scale, 2.5f), hh = std::max(halfH[i] * view.scale, 2.5f);
        m_lines.addRect(x - hw, y - hh, x + hw, y + hh, palette::kFastMover);
    }
    // A square of fixed size where each missed pair passed: it must be found at any zoom.
    const std::uint64_t now = world.tickCount();
    for (const Lab::MissMark& mark : lab.missMarks()) {
        const std::uint64_t age = now >= mark.tick ? now - mark.tick : 0;
        constexpr std::uint64_t kFull = Lab::kMissMarkTicks / 3;
        SDL_Color c = palette::kMissMark;
        if (age > kFull)
            c.a = static_cast<Uint8>(255 * (Lab::kMissMarkTicks - std::min(age, Lab::kMissMarkTicks)) /
                                     (Lab::kMissMarkTicks - kFull));
        const float x = view.toScreenX(mark.where.x), y = view.toScreenY(mark.where.y);
        // Small: a bullet's misses line its path, one every box it crossed.
        constexpr float kRing = 5.0f;
        if (x < -kRing || y < -kRing || x > m_width + kRing || y > m_height + kRing) continue;
        ++m_counts.missMarks;
        addOutline(view, {mark.where.x - kRing / view.scale, mark.where.y - kRing / view.scale,
                          mark.where.x + kRing / view.scale, mark.where.y + kRing / view.scale},
                   1.0f, c);
        m_outlines.addRect(x - 1.0f, y - 1.0f, x + 1.0f, y + 1.0f, c);
    }
    SDL_SetRenderDrawBlendMode(renderer, SDL_BLENDMODE_BLEND);
    m_lines.draw(renderer);
    m_outlines.draw(renderer);
}

void OverlayRenderer::drawMismatch(SDL_Renderer* renderer, const ViewTransform& view, const World& world, Pair pair) {
    if (pair.a >= world.size() || pair.b >= world.size()) return;  // the population changed since
    m_outlines.clear();
    m_lines.clear();
    const float ax = view.toScreenX(world.posX()[pair.a]), ay = view.toScreenY(world.posY()[pair.a]);
    const float bx = view.toScreenX(world.posX()[pair.b]), by = view.toScreenY(world.posY()[pair.b]);
    m_lines.addLine(ax, ay, bx, by, 2.0f, palette::kMismatch);
    for (const std::uint32_t i : {pair.a, pair.b}) {
        addEntityOutline(view, world, i, 3.0f, palette::kMismatch);
        // A mark of fixed size: the entities may be a pixel wide at this zoom.
        const float x = view.toScreenX(world.posX()[i]), y = view.toScreenY(world.posY()[i]);
        m_outlines.addRect(x - 9.0f, y - 9.0f, x + 9.0f, y + 9.0f, palette::kMismatch);
    }
    SDL_SetRenderDrawBlendMode(renderer, SDL_BLENDMODE_BLEND);
    m_lines.draw(renderer);
    m_outlines.draw(renderer);
}

void OverlayRenderer::drawPairs(Screen& screen, const World& world) {
    const std::vector<Pair>& candidates = world.candidatePairs();
    SDL_Renderer* renderer = screen.renderer();
    readOutputSize(renderer);
    m_counts.pairs = candidates.size();
    // Thousands of lines over one another are a hairball that hides the entities: past about
    // a thousand, each line fades, down to a fifth of its colour at the budget.
    const double lines = static_cast<double>(std::min<std::uint64_t>(kLineBudget, std::max<std::size_t>(candidates.size(), 1)));
    m_pairFade = static_cast<float>(std::clamp(std::sqrt(1000.0 / lines), 0.2, 1.0));
    m_overlapLines.clear();
    m_lines.clear();
    m_longLines.clear();
    // One line per candidate pair on screen, red when the AABBs overlap; over budget, the
    // overlapping ones first, then the others, each set sampled evenly across the list (not
    // the first 20,000, which the technique's order would bunch in one band of the world).
    addPairLines(screen, world, candidates, true);
    addPairLines(screen, world, candidates, false);
    if (screen.rasterFrame()) return;
    SDL_SetRenderDrawBlendMode(renderer, SDL_BLENDMODE_BLEND);
    m_lines.draw(renderer);
    for (const LongLine& line : m_longLines) {
        palette::setDrawColor(renderer, line.color);
        SDL_RenderDrawLineF(renderer, line.from.x, line.from.y, line.to.x, line.to.y);
    }
    m_overlapLines.draw(renderer);
}

void OverlayRenderer::addPairLines(Screen& screen, const World& world, const std::vector<Pair>& candidates,
                                   bool overlapping) {
    // The software rasteriser scans each triangle's bounding box, so a long diagonal quad costs
    // its box, not its pixels: lines with a box above this area are drawn as native lines.
    constexpr float kMaxQuadBoxArea = 1024.0f;
    const ViewTransform& view = screen.view();
    const bool raster = screen.rasterFrame();
    const auto posX = world.posX(), posY = world.posY(), halfW = world.halfW(), halfH = world.halfH();
    const float width = overlapping ? kOverlapWidth : kCandidateWidth;
    // How many of this kind there are, to sample them evenly when they exceed what is left.
    const auto overlapsOf = [&](const Pair& p) {
        return std::abs(posX[p.a] - posX[p.b]) <= halfW[p.a] + halfW[p.b] &&
               std::abs(posY[p.a] - posY[p.b]) <= halfH[p.a] + halfH[p.b];
    };
    const std::uint64_t ofKind = overlapping ? world.overlapPairs().size()
                                             : candidates.size() - std::min(candidates.size(), world.overlapPairs().size());
    const std::uint64_t left = kLineBudget - std::min(kLineBudget, m_counts.pairsShown);
    // Over the budget, `tests` candidates evenly spread over the list are tested, about `left`
    // of them of this kind. Testing all of a million candidates to keep every fourth took
    // 85 ms a frame (a pair's entities lie anywhere in the world's arrays, eight cache misses).
    const std::uint64_t n = candidates.size();
    const std::uint64_t tests = ofKind <= left ? n : (n * left + ofKind - 1) / ofKind;
    for (std::uint64_t k = 0; k < tests; ++k) {
        if (m_counts.pairsShown >= kLineBudget) return;
        const Pair& p = candidates[k * n / tests];
        if (p.a >= world.size() || p.b >= world.size()) continue;  // pairs of a tick before removals
        if (overlapsOf(p) != overlapping) continue;
        // A big entity's pairs are the darker entities inside its outline: a line to each
        // from its centre made a star over the mixed preset's every big box.
        if (screen.outlinedBig(halfW[p.a], halfH[p.a]) || screen.outlinedBig(halfW[p.b], halfH[p.b])) continue;
        const float x0 = view.toScreenX(posX[p.a]);
        const float y0 = view.toScreenY(posY[p.a]);
        const float x1 = view.toScreenX(posX[p.b]);
        const float y1 = view.toScreenY(posY[p.b]);
        // Both ends off screen on one side: the line cannot cross it.
        if (std::max(x0, x1) < 0.0f || std::min(x0, x1) > m_width || std::max(y0, y1) < 0.0f ||
            std::min(y0, y1) > m_height)
            continue;
        ++m_counts.pairsShown;
        // A candidate whose boxes are further apart than the larger box is across is far:
        // typically two cells that share a hash bucket.
        const float gap = std::max(std::abs(posX[p.a] - posX[p.b]) - halfW[p.a] - halfW[p.b],
                                   std::abs(posY[p.a] - posY[p.b]) - halfH[p.a] - halfH[p.b]);
        const float size = 2.0f * std::max({halfW[p.a], halfH[p.a], halfW[p.b], halfH[p.b]});
        SDL_Color color = overlapping ? palette::kOverlap : (gap > size ? palette::kLongCandidate : palette::kCandidate);
        // Long lines stay opaque (blending them is slow in software): they fade toward the floor.
        if (color.a == 255 && !overlapping) color = palette::lerpColour(palette::kWorldFloor, color, m_pairFade);
        else color.a = static_cast<Uint8>(static_cast<float>(color.a) * m_pairFade);
        if (raster) {
            screen.raster().addLine(x0, y0, x1, y1, overlapping ? 2 : 1, color, overlapping);
        } else if ((std::abs(x1 - x0) + width) * (std::abs(y1 - y0) + width) <= kMaxQuadBoxArea) {
            (overlapping ? m_overlapLines : m_lines).addLine(x0, y0, x1, y1, width, color);
        } else if (overlapping) {
            m_overlapLines.addLine(x0, y0, x1, y1, width, color);
        } else {
            m_longLines.push_back({{x0, y0}, {x1, y1}, color});
        }
    }
}

void OverlayRenderer::drawBounds(Screen& screen, const World& world) {
    SDL_Renderer* renderer = screen.renderer();
    const ViewTransform& view = screen.view();
    const auto posX = world.posX();
    const auto posY = world.posY();
    const auto halfW = world.halfW();
    const auto halfH = world.halfH();
    readOutputSize(renderer);
    m_counts.bounds = world.size();
    m_rects.clear();
    for (std::uint32_t i = 0; i < world.size() && m_rects.size() < kLineBudget; ++i) {
        const SDL_FRect rect{view.toScreenX(posX[i] - halfW[i]), view.toScreenY(posY[i] - halfH[i]),
                             2.0f * halfW[i] * view.scale, 2.0f * halfH[i] * view.scale};
        if (rect.x + rect.w < 0.0f || rect.x > m_width || rect.y + rect.h < 0.0f || rect.y > m_height) continue;
        m_rects.push_back(rect);
    }
    m_counts.boundsShown = m_rects.size();
    if (screen.rasterFrame()) {
        for (const SDL_FRect& r : m_rects) screen.raster().addOutline(r.x, r.y, r.x + r.w, r.y + r.h, palette::kBounds);
        return;
    }
    SDL_SetRenderDrawBlendMode(renderer, SDL_BLENDMODE_BLEND);
    palette::setDrawColor(renderer, palette::kBounds);
    SDL_RenderDrawRectsF(renderer, m_rects.data(), static_cast<int>(m_rects.size()));
}

}  // namespace ro::app
