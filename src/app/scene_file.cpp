#include "app/scene_file.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "files/safe_file.h"

namespace ro::app {
namespace {

using Json = nlohmann::ordered_json;

/// The largest float: a file's number beyond it cannot be one of ours.
constexpr double kFloatMax = 3.4028234663852886e38;

constexpr const char* kResponses[] = {"none", "push_apart", "bounce"};

[[noreturn]] void fail(std::string_view what) { throw SceneFileError(std::string(what)); }

/// A value for a message: a number or a short escaped string as it stands, a container by its size.
std::string describe(const Json& v) {
    if (v.is_string()) return "the text " + files::quoted(v.get_ref<const std::string&>());
    if (v.is_array()) return fmt::format("an array of {} items", v.size());
    if (v.is_object()) return fmt::format("an object of {} keys", v.size());
    return v.dump();  // a number, true, false or null: short
}

/// A member of an object; `where` names the object in messages ("world", "entities").
const Json& member(const Json& object, const char* key, std::string_view where) {
    if (!object.is_object()) fail(fmt::format("'{}' must be an object", where));
    const auto found = object.find(key);
    if (found == object.end())
        fail(where.empty() ? fmt::format("missing field '{}'", key) : fmt::format("missing field '{}.{}'", where, key));
    return *found;
}

std::string name(std::string_view where, const char* key) {
    return where.empty() ? std::string(key) : fmt::format("{}.{}", where, key);
}

double number(const Json& object, const char* key, std::string_view where = {}) {
    const Json& v = member(object, key, where);
    if (!v.is_number()) fail(fmt::format("'{}' must be a number, got {}", name(where, key), v.type_name()));
    const double value = v.get<double>();
    if (!std::isfinite(value)) fail(fmt::format("'{}' must be finite", name(where, key)));
    return value;
}

/// A float that the file holds exactly (written from one): out of float's range is an error.
float real(const Json& object, const char* key, std::string_view where = {}) {
    const double value = number(object, key, where);
    if (std::abs(value) > kFloatMax) fail(fmt::format("'{}' is out of float range, got {}", name(where, key), value));
    return static_cast<float>(value);
}

std::uint64_t whole(const Json& object, const char* key, std::string_view where = {}) {
    const Json& v = member(object, key, where);
    if (!v.is_number_unsigned()) fail(fmt::format("'{}' must be a whole number >= 0, got {}", name(where, key), describe(v)));
    return v.get<std::uint64_t>();
}

bool boolean(const Json& object, const char* key, std::string_view where = {}) {
    const Json& v = member(object, key, where);
    if (!v.is_boolean()) fail(fmt::format("'{}' must be true or false, got {}", name(where, key), describe(v)));
    return v.get<bool>();
}

std::string text(const Json& object, const char* key, std::string_view where = {}) {
    const Json& v = member(object, key, where);
    if (!v.is_string()) fail(fmt::format("'{}' must be a string, got {}", name(where, key), v.type_name()));
    return v.get<std::string>();
}

/// An array of `count` finite floats.
std::vector<float> reals(const Json& object, const char* key, std::size_t count, std::string_view where) {
    const Json& v = member(object, key, where);
    if (!v.is_array() || v.size() != count)
        fail(fmt::format("'{}' must be an array of {} numbers", name(where, key), count));
    std::vector<float> out(count);
    for (std::size_t i = 0; i < count; ++i) {
        if (!v[i].is_number()) fail(fmt::format("'{}[{}]' must be a number, got {}", name(where, key), i, describe(v[i])));
        if (std::abs(v[i].get<double>()) > kFloatMax)
            fail(fmt::format("'{}[{}]' is out of float range, got {}", name(where, key), i, v[i].get<double>()));
        out[i] = static_cast<float>(v[i].get<double>());
    }
    return out;
}

/// An array of `count` whole numbers that fit 32 bits.
std::vector<std::uint32_t> words(const Json& object, const char* key, std::size_t count, std::string_view where) {
    const Json& v = member(object, key, where);
    if (!v.is_array() || v.size() != count)
        fail(fmt::format("'{}' must be an array of {} whole numbers", name(where, key), count));
    std::vector<std::uint32_t> out(count);
    for (std::size_t i = 0; i < count; ++i) {
        if (!v[i].is_number_unsigned() || v[i].get<std::uint64_t>() > 0xffffffffu)
            fail(fmt::format("'{}[{}]' must be a whole number from 0 to 4294967295, got {}", name(where, key), i,
                             describe(v[i])));
        out[i] = static_cast<std::uint32_t>(v[i].get<std::uint64_t>());
    }
    return out;
}

/// Floats go out as the double of the same value: nlohmann prints the shortest text that
/// reads back as that double, so the float comes back bit for bit.
Json array(const std::vector<float>& values) {
    Json out = Json::array();
    out.get_ref<Json::array_t&>().reserve(values.size());
    for (const float v : values) out.push_back(static_cast<double>(v));
    return out;
}

Json worldJson(const WorldConfig& w) {
    return {{"bounds", array({w.bounds.minX, w.bounds.minY, w.bounds.maxX, w.bounds.maxY})},
            {"tick_hz", static_cast<double>(w.tickHz)},
            {"max_catch_up_ticks", w.maxCatchUpTicks},
            {"speed", static_cast<double>(w.speed)},
            {"sub_steps", w.subSteps},
            {"gravity", w.gravity},
            {"gravity_accel", static_cast<double>(w.gravityAccel)},
            {"response", kResponses[static_cast<int>(w.response)]},
            {"swept_boxes", w.sweptBoxes},
            {"time_of_impact", w.timeOfImpact},
            {"count_missed", w.countMissed}};
}

/// World settings as the file states them; whether the world accepts them, the world decides.
WorldConfig worldFrom(const Json& w, std::string_view where) {
    WorldConfig config;
    const std::vector<float> bounds = reals(w, "bounds", 4, where);
    config.bounds = {bounds[0], bounds[1], bounds[2], bounds[3]};
    config.tickHz = real(w, "tick_hz", where);
    config.maxCatchUpTicks = static_cast<int>(std::min<std::uint64_t>(whole(w, "max_catch_up_ticks", where), 1u << 30));
    config.speed = real(w, "speed", where);
    config.subSteps = static_cast<int>(std::min<std::uint64_t>(whole(w, "sub_steps", where), 1u << 30));
    config.gravity = boolean(w, "gravity", where);
    config.gravityAccel = real(w, "gravity_accel", where);
    // Files from before fast movers have none of these: off.
    for (const auto& [key, flag] : {std::pair{"swept_boxes", &config.sweptBoxes}, std::pair{"time_of_impact", &config.timeOfImpact},
                                    std::pair{"count_missed", &config.countMissed}})
        if (w.contains(key)) *flag = boolean(w, key, where);
    const std::string response = text(w, "response", where);
    for (int r = 0; r < 3; ++r)
        if (response == kResponses[r]) {
            config.response = static_cast<ContactResponse>(r);
            return config;
        }
    fail(fmt::format("'{}.response' must be none, push_apart or bounce, got {}", where, files::quoted(response)));
}

/// nlohmann's own DOM builder (what Json::parse uses), with the limits of scene_file.h checked
/// on every event before it is passed on, so a hostile document is refused before it is held
/// whole (or, nested, before anything recurses over it); `stop` is asked now and then.
/// (Json::parse's callback form would do, but it rescans a whole array at the end of each
/// object in it: quadratic in the minimal form's array of boxes.)
class LimitedDomBuilder {
public:
    LimitedDomBuilder(Json& result, const StopCheck& stop) : m_dom(result), m_stop(stop) {}

    bool null() { return value(), m_dom.null(); }
    bool boolean(bool v) { return value(), m_dom.boolean(v); }
    bool number_integer(Json::number_integer_t v) { return value(), m_dom.number_integer(v); }
    bool number_unsigned(Json::number_unsigned_t v) {
        value();
        if (inEntities() && m_open.back().key == "count") {
            m_entities = v;
            if (m_entities > kMaxSceneEntities)
                fail(fmt::format("'entities.count' is {}: at most {} entities can be loaded", m_entities, kMaxSceneEntities));
        }
        return m_dom.number_unsigned(v);
    }
    bool number_float(Json::number_float_t v, const std::string& text) { return value(), m_dom.number_float(v, text); }
    bool string(std::string& v) { return value(), m_dom.string(v); }
    bool binary(Json::binary_t& v) { return value(), m_dom.binary(v); }
    bool start_object(std::size_t size) { return open(false), m_dom.start_object(size); }
    bool start_array(std::size_t size) { return open(true), m_dom.start_array(size); }
    bool end_object() { return m_open.pop_back(), m_dom.end_object(); }
    bool end_array() { return m_open.pop_back(), m_dom.end_array(); }
    bool key(std::string& key) {
        // nlohmann keeps the last of a duplicated key: which one the writer meant is unknown.
        if (!m_open.back().keys.insert(key).second)
            fail(fmt::format("the key {} appears twice in one object", files::quoted(key)));
        m_open.back().key = key;
        return m_dom.key(key);
    }
    template <class Exception>
    bool parse_error(std::size_t position, const std::string& token, const Exception& e) {
        return m_dom.parse_error(position, token, e);  // throws e
    }

private:
    struct Open {
        bool array = false;
        std::uint64_t items = 0;
        std::uint64_t maxItems = kMaxJsonArrayItems;
        std::unordered_set<std::string> keys;
        std::string key;  ///< of an object: the key whose value is being read
    };

    bool inEntities() const { return m_open.size() >= 2 && m_open[m_open.size() - 2].key == "entities"; }
    void value() {
        if (++m_values > kMaxJsonValues) fail(fmt::format("more than {} values in the file", kMaxJsonValues));
        if ((m_values & 0xffff) == 0 && m_stop && m_stop()) throw LoadStopped("stopped by a signal while reading");
        if (m_open.empty() || !m_open.back().array || ++m_open.back().items <= m_open.back().maxItems) return;
        if (m_open.size() == 2 && m_open.front().key == "entities")  // the minimal form's boxes
            fail(fmt::format("'entities' has more than {} boxes: at most {} entities can be loaded", kMaxSceneEntities,
                             kMaxSceneEntities));
        if (m_open.back().maxItems == kMaxJsonArrayItems)
            fail(fmt::format("an array of more than {} items", kMaxJsonArrayItems));
        fail(fmt::format("'entities.{}' has more items than its {} entities", files::escaped(m_open[m_open.size() - 2].key),
                         m_open.back().maxItems));
    }
    void open(bool array) {
        value();
        if (m_open.size() >= static_cast<std::size_t>(kMaxJsonDepth))
            fail(fmt::format("nested too deep (more than {} levels)", kMaxJsonDepth));
        m_open.emplace_back();
        m_open.back().array = array;
        // The entity count, once read: the columns after it are held to it as they are parsed.
        if (array && m_open.size() >= 3 && m_open[m_open.size() - 3].key == "entities") m_open.back().maxItems = m_entities;
    }

    nlohmann::detail::json_sax_dom_parser<Json> m_dom;
    const StopCheck& m_stop;
    std::vector<Open> m_open;
    std::uint64_t m_values = 0;
    std::uint64_t m_entities = kMaxJsonArrayItems;
};

/// Parses a whole document within the limits of scene_file.h, or says why it is not one of ours.
Json parseJson(const std::string& text, const StopCheck& stop) {
    Json result;
    LimitedDomBuilder builder(result, stop);
    try {
        Json::sax_parse(text, &builder);
        return result;
    } catch (const Json::parse_error& e) {
        fail(fmt::format("not JSON: {}", files::escaped(e.what(), 160)));
    } catch (const Json::exception& e) {  // a number beyond a double (1e999)
        fail(fmt::format("not a number JSON can hold: {}", files::escaped(e.what(), 160)));
    }
}

/// The format name and version every file of ours starts with.
void checkHeader(const Json& j, const char* format, int supported) {
    if (!j.is_object()) fail("the file's top level must be an object");
    if (!j.contains("format") || !j["format"].is_string() || j["format"].get<std::string>() != format)
        fail(fmt::format("not a {} file: 'format' must be \"{}\"", format == kSceneFormat ? "scene" : "replay", format));
    const Json& version = member(j, "version", "");
    if (!version.is_number_integer() || version.get<std::int64_t>() != supported)
        fail(fmt::format("{} format version {} is not supported (this build reads version {})",
                         format == kSceneFormat ? "scene" : "replay", describe(version), supported));
}

SceneFile sceneFrom(const Json& j);

/// The spec of the parameter with this key in any technique, or nullptr.
const ParameterSpec* anyParameter(std::string_view key) {
    for (const TechniqueInfo& t : techniques())
        if (const ParameterSpec* spec = findParameter(t.parameters, key)) return spec;
    return nullptr;
}

/// The whole file, read as every input file is (files/safe_file.h).
std::string readFile(const std::string& path) {
    try {
        return files::readRegularFile(path, kMaxInputFileBytes);
    } catch (const files::FileError& e) {
        fail(e.what());
    }
}

/// Writes the whole text as every output file is written.
void writeFile(const std::string& path, const std::string& text) {
    try {
        files::writeOutputFile(path, text);
    } catch (const files::FileError& e) {
        fail(e.what());
    }
}

}  // namespace

std::string sceneToJson(const SceneFile& scene) {
    const LabState& s = scene.lab;
    Json j;
    j["format"] = kSceneFormat;
    j["version"] = kSceneVersion;
    j["technique"] = s.technique;
    Json parameters = Json::object();
    for (const auto& [key, value] : s.parameters.values()) parameters[std::string(key)] = value;
    j["parameters"] = parameters;
    j["auto_cell_size"] = s.autoCellSize;
    j["preset"] = s.preset;
    j["seed"] = s.sceneSeed;
    j["moving_fraction"] = static_cast<double>(s.movingFraction);
    j["layers"] = s.layers;
    j["rng_state"] = s.rngState;
    j["sizes"] = {{"min_half", static_cast<double>(s.sizes.minHalf)}, {"max_half", static_cast<double>(s.sizes.maxHalf)}};
    j["world"] = worldJson(s.world);
    Json camera = {{"zoom", static_cast<double>(scene.camera.zoom)}, {"centre", nullptr}};
    if (scene.camera.centre) camera["centre"] = array({scene.camera.centre->x, scene.camera.centre->y});
    j["camera"] = camera;

    // Columns, not an object per entity: a million entities stay a file of a usable size.
    const std::size_t n = s.entities.size();
    std::string shapes(n, 'b');
    std::string statics(n, '0');
    std::vector<float> columns[8];
    for (auto& c : columns) c.resize(n);
    std::vector<std::uint32_t> categories(n), masks(n);
    bool filtered = false;  // the filter columns are written only when some entity has one
    for (std::size_t i = 0; i < n; ++i) {
        const SavedEntity& e = s.entities[i];
        categories[i] = e.category;
        masks[i] = e.mask;
        filtered |= e.category != SavedEntity{}.category || e.mask != SavedEntity{}.mask;
        shapes[i] = e.shape == Shape::Circle ? 'c' : 'b';
        statics[i] = e.isStatic ? '1' : '0';
        const float values[8] = {e.position.x,     e.position.y,     e.previous.x,      e.previous.y,
                                 e.acceleration.x, e.acceleration.y, e.halfExtents.x, e.halfExtents.y};
        for (int c = 0; c < 8; ++c) columns[c][i] = values[c];
    }
    // Indented for reading, except the columns: one line each.
    j["entities"] = nullptr;
    std::string out = j.dump(1);
    std::vector<std::pair<const char*, Json>> entityFields = {
        {"count", n},
        {"shape", shapes},
        {"static", statics},
        {"x", array(columns[0])},
        {"y", array(columns[1])},
        {"previous_x", array(columns[2])},
        {"previous_y", array(columns[3])},
        {"acceleration_x", array(columns[4])},
        {"acceleration_y", array(columns[5])},
        {"half_w", array(columns[6])},
        {"half_h", array(columns[7])}};
    if (filtered) {
        entityFields.emplace_back("category", Json(categories));
        entityFields.emplace_back("mask", Json(masks));
    }
    std::string entities = "{";
    for (const auto& [key, value] : entityFields)
        entities += fmt::format("{}\n  \"{}\": {}", entities.size() > 1 ? "," : "", key, value.dump());
    entities += "\n }";
    const std::string placeholder = "\"entities\": null";
    out.replace(out.rfind(placeholder), placeholder.size(), "\"entities\": " + entities);
    return out + "\n";
}

SceneFile sceneFromJson(const std::string& text, const StopCheck& stop) { return sceneFrom(parseJson(text, stop)); }

namespace {

/// Refuses a key the format does not have: a misspelt optional field would otherwise be
/// silently replaced by its default.
void onlyKnownKeys(const Json& object, std::initializer_list<std::string_view> known, std::string_view where,
                   const char* what) {
    for (const auto& [key, value] : object.items())
        if (std::find(known.begin(), known.end(), key) == known.end())
            fail(fmt::format("'{}' is not {}", where.empty() ? files::escaped(key) : fmt::format("{}.{}", where, files::escaped(key)),
                             what));
}

/// A member that may be left out: its value, or `fallback`.
template <class Read, class T>
T optional(const Json& object, const char* key, std::string_view where, T fallback, Read read) {
    return object.contains(key) ? read(object, key, where) : fallback;
}

/// World settings where any key may be left out (a minimal scene): each has WorldConfig's
/// default, but the bounds, which `fallbackBounds` gives.
WorldConfig worldOrDefaults(const Json& j, const Aabb& fallbackBounds) {
    WorldConfig config;
    config.bounds = fallbackBounds;
    if (!j.contains("world")) return config;
    const Json& w = member(j, "world", "");
    if (!w.is_object()) fail("'world' must be an object");
    Json full = worldJson(config);
    // As a file gives them: whole numbers >= 0 are unsigned.
    full["max_catch_up_ticks"] = static_cast<std::uint64_t>(config.maxCatchUpTicks);
    full["sub_steps"] = static_cast<std::uint64_t>(config.subSteps);
    for (const auto& [key, value] : w.items()) {
        if (!full.contains(key)) fail(fmt::format("'world.{}' is not a world setting", files::escaped(key)));
        full[key] = value;
    }
    return worldFrom(full, "world");
}

/// Every entity as the minimal form gives it: an array of objects, centre and full size.
std::vector<SavedEntity> entityObjects(const Json& list, float tickHz) {
    std::vector<SavedEntity> out(list.size());
    for (std::size_t i = 0; i < list.size(); ++i) {
        const std::string where = fmt::format("entities[{}]", i);
        const Json& e = list[i];
        if (!e.is_object()) fail(fmt::format("'{}' must be an object with x, y, w and h", where));
        onlyKnownKeys(e, {"x", "y", "w", "h", "vx", "vy", "shape", "static", "category", "mask"}, where,
                      "an entity field (x, y, w, h, vx, vy, shape, static, category, mask)");
        SavedEntity& s = out[i];
        s.position = {real(e, "x", where), real(e, "y", where)};
        const float w = real(e, "w", where), h = real(e, "h", where);
        if (!(w > 0.0f && h > 0.0f))
            fail(fmt::format("'{}' has a size of {} x {}: w and h must be greater than 0", where, w, h));
        s.halfExtents = {w * 0.5f, h * 0.5f};
        // Verlet keeps the last position, not a velocity: one tick back along it.
        const Vec2 velocity{optional(e, "vx", where, 0.0f, real), optional(e, "vy", where, 0.0f, real)};
        s.previous = {s.position.x - velocity.x / tickHz, s.position.y - velocity.y / tickHz};
        const std::string shape = optional(e, "shape", where, std::string("box"), text);
        if (shape != "box" && shape != "circle")
            fail(fmt::format("'{}.shape' must be box or circle, got {}", where, files::quoted(shape)));
        s.shape = shape == "circle" ? Shape::Circle : Shape::Box;
        s.isStatic = optional(e, "static", where, false, boolean);
        if (s.isStatic && (velocity.x != 0.0f || velocity.y != 0.0f))
            fail(fmt::format("'{}' is static: it cannot have a velocity (vx, vy)", where));
        const auto filter = [&](const char* key, std::uint32_t fallback) {
            if (!e.contains(key)) return fallback;
            const std::uint64_t v = whole(e, key, where);
            if (v > 0xffffffffu) fail(fmt::format("'{}.{}' must be a whole number from 0 to 4294967295, got {}", where, key, v));
            return static_cast<std::uint32_t>(v);
        };
        s.category = filter("category", SavedEntity{}.category);
        s.mask = filter("mask", SavedEntity{}.mask);
    }
    return out;
}

/// Every entity as the lab writes them: one column per field. A column left out (all but x,
/// y, half_w and half_h) has its documented default.
std::vector<SavedEntity> entityColumns(const Json& e) {
    onlyKnownKeys(e, {"count", "shape", "static", "x", "y", "half_w", "half_h", "previous_x", "previous_y", "acceleration_x",
                      "acceleration_y", "category", "mask"},
                  "entities", "an entity column");
    const std::uint64_t count = whole(e, "count", "entities");
    if (count > kMaxSceneEntities)
        fail(fmt::format("'entities.count' is {}: at most {} entities can be loaded", count, kMaxSceneEntities));
    const std::string shapes = e.contains("shape") ? text(e, "shape", "entities") : std::string(count, 'b');
    if (shapes.size() != count) fail(fmt::format("'entities.shape' must have {} letters (b or c)", count));
    // Files written before statics have no "static": every entity is dynamic.
    const std::string statics = e.contains("static") ? text(e, "static", "entities") : std::string(count, '0');
    if (statics.size() != count) fail(fmt::format("'entities.static' must have {} digits (0 or 1)", count));
    const char* keys[] = {"x", "y", "half_w", "half_h", "previous_x", "previous_y", "acceleration_x", "acceleration_y"};
    std::vector<float> columns[8];
    for (int c = 0; c < 8; ++c) {
        if (c < 4 || e.contains(keys[c])) columns[c] = reals(e, keys[c], count, "entities");
        else if (c < 6) columns[c] = columns[c - 4];  // no previous position: at rest
        else columns[c].assign(count, 0.0f);
    }
    // Files written before collision filters, and files of unfiltered scenes, have none: every
    // entity then pairs with every other.
    const auto filterColumn = [&](const char* key, std::uint32_t unfiltered) {
        return e.contains(key) ? words(e, key, count, "entities") : std::vector<std::uint32_t>(count, unfiltered);
    };
    const std::vector<std::uint32_t> categories = filterColumn("category", SavedEntity{}.category);
    const std::vector<std::uint32_t> masks = filterColumn("mask", SavedEntity{}.mask);
    std::vector<SavedEntity> out(count);
    for (std::size_t i = 0; i < count; ++i) {
        if (shapes[i] != 'b' && shapes[i] != 'c')
            fail(fmt::format("'entities.shape[{}]' must be b (box) or c (circle), got '{}'", i, shapes[i]));
        const float halfW = columns[2][i], halfH = columns[3][i];
        if (!(halfW > 0.0f && halfH > 0.0f))
            fail(fmt::format("entity {} has a size of {} x {}: half-extents must be greater than 0", i, halfW, halfH));
        if (statics[i] != '0' && statics[i] != '1')
            fail(fmt::format("'entities.static[{}]' must be 0 (dynamic) or 1 (static), got '{}'", i, statics[i]));
        out[i] = {shapes[i] == 'c' ? Shape::Circle : Shape::Box, {columns[0][i], columns[1][i]},
                  {columns[4][i], columns[5][i]}, {columns[6][i], columns[7][i]}, {halfW, halfH}, statics[i] == '1',
                  categories[i], masks[i]};
    }
    return out;
}

/// The box around every entity, or nothing when there is none.
std::optional<Aabb> entityBounds(const std::vector<SavedEntity>& entities) {
    if (entities.empty()) return std::nullopt;
    Aabb b{std::numeric_limits<float>::max(), std::numeric_limits<float>::max(), std::numeric_limits<float>::lowest(),
           std::numeric_limits<float>::lowest()};
    for (const SavedEntity& e : entities) {
        b.minX = std::min(b.minX, e.position.x - e.halfExtents.x);
        b.minY = std::min(b.minY, e.position.y - e.halfExtents.y);
        b.maxX = std::max(b.maxX, e.position.x + e.halfExtents.x);
        b.maxY = std::max(b.maxY, e.position.y + e.halfExtents.y);
    }
    return b;
}

/// A minimal scene's walls: the lab's default world when every entity lies in it, otherwise
/// the box around the entities grown by a tenth of its larger side on each side.
Aabb fittedBounds(const std::optional<Aabb>& around) {
    const Aabb fallback = WorldConfig{}.bounds;
    if (!around || (around->minX >= fallback.minX && around->minY >= fallback.minY && around->maxX <= fallback.maxX &&
                    around->maxY <= fallback.maxY))
        return fallback;
    const float margin = std::max({around->maxX - around->minX, around->maxY - around->minY, 1.0f}) * 0.1f;
    return {around->minX - margin, around->minY - margin, around->maxX + margin, around->maxY + margin};
}

/// The spawn sizes of a minimal scene: from the smallest to the largest half side it holds.
SizeRange fittedSizes(const std::vector<SavedEntity>& entities) {
    if (entities.empty()) return {};
    SizeRange r{std::numeric_limits<float>::max(), 0.0f};
    for (const SavedEntity& e : entities) {
        r.minHalf = std::min({r.minHalf, e.halfExtents.x, e.halfExtents.y});
        r.maxHalf = std::max({r.maxHalf, e.halfExtents.x, e.halfExtents.y});
    }
    r.minHalf = std::clamp(r.minHalf, WorldLimits::kMinHalfExtent, WorldLimits::kMaxHalfExtent);
    r.maxHalf = std::clamp(r.maxHalf, r.minHalf, WorldLimits::kMaxHalfExtent);
    return r;
}

/// A scene file. Only the entities are required (docs/scene.schema.json): every other field
/// left out has the default docs/app.md gives, and a file that names its format must be ours.
SceneFile sceneFrom(const Json& j) {
    if (!j.is_object()) fail("the file's top level must be an object");
    if (j.contains("format") || j.contains("version")) checkHeader(j, kSceneFormat, kSceneVersion);
    onlyKnownKeys(j, {"format", "version", "technique", "parameters", "auto_cell_size", "preset", "seed", "moving_fraction",
                      "layers", "rng_state", "sizes", "world", "camera", "entities"},
                  "", "a scene field");
    SceneFile scene;
    LabState& s = scene.lab;
    s.technique = optional(j, "technique", "", std::string("auto"), text);
    if (!findTechnique(s.technique)) fail(fmt::format("unknown technique {}", files::quoted(s.technique)));
    s.autoCellSize = optional(j, "auto_cell_size", "", true, boolean);
    if (j.contains("parameters")) {
        const Json& parameters = member(j, "parameters", "");
        if (!parameters.is_object()) fail("'parameters' must be an object of numbers");
        for (const auto& [key, value] : parameters.items()) {
            const ParameterSpec* spec = anyParameter(key);
            if (!spec) fail(fmt::format("'parameters.{}' is not a parameter of any technique", files::escaped(key)));
            const double v = number(parameters, key.c_str(), "parameters");
            // An automatic cell size is the lab's own fit (the library's range); one set by hand is
            // held to the range --cell-size and --param offer.
            const bool offered = !(spec->key == kCellSizeParameter.key && s.autoCellSize);
            if (const std::string why = checkValue(*spec, v, offered); !why.empty())
                fail(fmt::format("'parameters.{}': {}", spec->key, why));
            s.parameters.set(spec->key, v);  // the spec's key outlives the file's text
        }
    }
    s.preset = optional(j, "preset", "", std::string("random"), text);
    if (s.preset != "random" && !findScenario(s.preset)) fail(fmt::format("unknown preset {}", files::quoted(s.preset)));
    s.sceneSeed = optional(j, "seed", "", std::uint64_t{1}, whole);
    if (j.contains("layers")) {
        const std::uint64_t layers = whole(j, "layers", "");
        if (layers < 1 || layers > 4) fail("'layers' must be 1 to 4");
        s.layers = static_cast<std::uint32_t>(layers);
    }
    if (j.contains("moving_fraction")) {
        s.movingFraction = real(j, "moving_fraction", "");
        if (!(s.movingFraction >= 0.0f && s.movingFraction <= 1.0f)) fail("'moving_fraction' must be 0 to 1");
    }
    s.rngState = optional(j, "rng_state", "", s.sceneSeed, whole);

    // The world first: a minimal entity's velocity becomes a previous position at its tick
    // rate. Walls left out are fitted to the entities.
    const Json& e = member(j, "entities", "");
    if (!e.is_array() && !e.is_object())
        fail("'entities' must be an array of {\"x\", \"y\", \"w\", \"h\"} objects, or the lab's columns");
    const bool boundsGiven = j.contains("world") && j["world"].is_object() && j["world"].contains("bounds");
    s.world = worldOrDefaults(j, WorldConfig{}.bounds);
    if (e.is_array()) {
        if (!(s.world.tickHz > 0.0f)) fail("'world.tick_hz' must be greater than 0");
        s.entities = entityObjects(e, s.world.tickHz);
    } else {
        s.entities = entityColumns(e);
    }
    if (!boundsGiven) s.world.bounds = fittedBounds(entityBounds(s.entities));
    if (j.contains("sizes")) {
        const Json& sizes = member(j, "sizes", "");
        onlyKnownKeys(sizes, {"min_half", "max_half"}, "sizes", "a size field (min_half, max_half)");
        s.sizes = {real(sizes, "min_half", "sizes"), real(sizes, "max_half", "sizes")};
        if (!(s.sizes.minHalf > 0.0f && s.sizes.minHalf <= s.sizes.maxHalf))
            fail(fmt::format("'sizes' must have 0 < min_half <= max_half, got {} and {}", s.sizes.minHalf,
                             s.sizes.maxHalf));
    } else {
        s.sizes = fittedSizes(s.entities);
    }

    if (j.contains("camera")) {
        const Json& camera = member(j, "camera", "");
        onlyKnownKeys(camera, {"zoom", "centre"}, "camera", "a camera field (zoom, centre)");
        scene.camera.zoom = optional(camera, "zoom", "camera", 1.0f, real);
        if (!(scene.camera.zoom >= Camera::kMinZoom && scene.camera.zoom <= Camera::kMaxZoom))
            fail(fmt::format("'camera.zoom' must be from {} to {} (as --zoom), got {}", Camera::kMinZoom,
                             Camera::kMaxZoom, scene.camera.zoom));
        if (camera.contains("centre") && !member(camera, "centre", "camera").is_null()) {
            const std::vector<float> centre = reals(camera, "centre", 2, "camera");
            for (const float c : centre)
                if (!(std::abs(c) <= WorldLimits::kMaxCoordinate))
                    fail(fmt::format("'camera.centre' must lie within the world's coordinates (-{0} to {0}), got {1}",
                                     WorldLimits::kMaxCoordinate, c));
            scene.camera.centre = Vec2{centre[0], centre[1]};
        }
    }
    return scene;
}

}  // namespace

void saveSceneFile(const std::string& path, const SceneFile& scene) { writeFile(path, sceneToJson(scene)); }

SceneFile loadSceneFile(const std::string& path, const StopCheck& stop) {
    const std::string text = readFile(path);
    try {
        return sceneFromJson(text, stop);
    } catch (const SceneFileError& e) {
        fail(fmt::format("{}: {}", path, e.what()));
    }
}

namespace {

constexpr const char* kInputNames[] = {"spawn",     "remove",    "count", "preset",    "respawn",       "fit_sizes",
                                       "sizes",     "technique", "parameter", "auto_cell_size", "world",
                                       "moving_fraction", "layers"};
static_assert(std::size(kInputNames) == static_cast<std::size_t>(Command::kLastRecorded) + 1,
              "a name for every recorded kind of command");

Json inputJson(const Command& input) {
    using Kind = Command::Kind;
    Json j = {{"tick", input.tick}, {"input", kInputNames[static_cast<int>(input.kind)]}};
    switch (input.kind) {
        case Kind::Spawn:
        case Kind::Remove: j["point"] = array({input.point.x, input.point.y}); break;
        case Kind::Count: j["value"] = static_cast<std::uint64_t>(input.value); break;
        case Kind::MovingFraction: j["value"] = input.value; break;
        case Kind::Layers: j["value"] = static_cast<std::uint64_t>(input.value); break;
        case Kind::Preset:
        case Kind::Technique: j["name"] = input.name; break;
        case Kind::Parameter:
            j["name"] = input.name;
            j["value"] = input.value;
            break;
        case Kind::Sizes:
            j["min_half"] = static_cast<double>(input.sizes.minHalf);
            j["max_half"] = static_cast<double>(input.sizes.maxHalf);
            break;
        case Kind::World: j["world"] = worldJson(input.world); break;
        case Kind::Respawn:
        case Kind::FitSizes:
        case Kind::AutoCellSize: break;
        default: break;  // not recorded (Command::recorded): no replay file holds it
    }
    return j;
}

Command inputFrom(const Json& j, std::size_t index) {
    using Kind = Command::Kind;
    const std::string where = fmt::format("inputs[{}]", index);
    Command input;
    input.tick = whole(j, "tick", where);
    const std::string kind = text(j, "input", where);
    const auto found = std::find(std::begin(kInputNames), std::end(kInputNames), kind);
    if (found == std::end(kInputNames)) fail(fmt::format("'{}.input' is not an input: '{}'", where, kind));
    input.kind = static_cast<Kind>(found - std::begin(kInputNames));
    switch (input.kind) {
        case Kind::Spawn:
        case Kind::Remove: {
            const std::vector<float> point = reals(j, "point", 2, where);
            input.point = {point[0], point[1]};
            break;
        }
        case Kind::Count: {
            const std::uint64_t count = whole(j, "value", where);
            if (count > kMaxSceneEntities)
                fail(fmt::format("'{}.value' is {}: at most {} entities (as --entities)", where, count, kMaxSceneEntities));
            input.value = static_cast<double>(count);
            break;
        }
        case Kind::Layers:
            input.value = static_cast<double>(whole(j, "value", where));
            if (!(input.value >= 1.0 && input.value <= 4.0)) fail(fmt::format("'{}.value' must be 1 to 4 layers", where));
            break;
        case Kind::MovingFraction:
            input.value = number(j, "value", where);
            if (!(input.value >= 0.0 && input.value <= 1.0)) fail(fmt::format("'{}.value' must be 0 to 1", where));
            break;
        case Kind::Preset:
            input.name = text(j, "name", where);
            if (input.name != "random" && !findScenario(input.name))
                fail(fmt::format("'{}.name': unknown preset {}", where, files::quoted(input.name)));
            break;
        case Kind::Technique:
            input.name = text(j, "name", where);
            if (!findTechnique(input.name)) fail(fmt::format("'{}.name': unknown technique {}", where, files::quoted(input.name)));
            break;
        case Kind::Parameter: {
            input.name = text(j, "name", where);
            const ParameterSpec* spec = anyParameter(input.name);
            if (!spec) fail(fmt::format("'{}.name': {} is not a parameter of any technique", where, files::quoted(input.name)));
            input.value = number(j, "value", where);
            if (const std::string why = checkValue(*spec, input.value, true); !why.empty())
                fail(fmt::format("'{}.value' of {}: {}", where, spec->key, why));
            break;
        }
        case Kind::Sizes:
            input.sizes = {real(j, "min_half", where), real(j, "max_half", where)};
            if (!(input.sizes.minHalf >= WorldLimits::kMinHalfExtent && input.sizes.minHalf <= input.sizes.maxHalf &&
                  input.sizes.maxHalf <= WorldLimits::kMaxHalfExtent))
                fail(fmt::format("'{}' must have {} <= min_half <= max_half <= {}, got {} and {}", where,
                                 WorldLimits::kMinHalfExtent, WorldLimits::kMaxHalfExtent, input.sizes.minHalf,
                                 input.sizes.maxHalf));
            break;
        case Kind::World:
            input.world = worldFrom(member(j, "world", where), where + ".world");
            try {
                (void)World(input.world);  // the world's own checks, now rather than when it is reached
            } catch (const std::invalid_argument& e) {
                fail(fmt::format("'{}.world': {}", where, e.what()));
            }
            break;
        case Kind::Respawn:
        case Kind::FitSizes:
        case Kind::AutoCellSize: break;
        default: break;  // not recorded (Command::recorded): no replay file holds it
    }
    return input;
}

}  // namespace

void checkReplayCounts(const Recording& recording, const TechniqueInfo* technique) {
    const bool fixedTechnique = technique != nullptr;
    if (!technique) technique = findTechnique(recording.start.technique);
    // A remove may miss, so it is not counted: the count is the most there can be.
    std::uint64_t count = recording.start.entities.size();
    const ScenarioInfo* scenario = recording.start.preset == "random" ? nullptr : findScenario(recording.start.preset);
    const auto check = [&](const std::string& after) {
        if (count > kMaxSceneEntities)
            fail(fmt::format("{} makes {} entities: at most {} (as --entities)", after, count, kMaxSceneEntities));
        if (technique->maxEntities != 0 && count > technique->maxEntities)
            fail(fmt::format("{} makes {} entities under '{}': at most {} step in reasonable time", after, count,
                             technique->id, technique->maxEntities));
    };
    check("'start'");
    for (std::size_t i = 0; i < recording.inputs.size(); ++i) {
        using Kind = Command::Kind;
        const Command& input = recording.inputs[i];
        if (input.kind == Kind::Spawn) ++count;
        if (input.kind == Kind::Count) count = static_cast<std::uint64_t>(input.value);
        if (input.kind == Kind::Preset) scenario = input.name == "random" ? nullptr : findScenario(input.name);
        if (input.kind == Kind::Technique && !fixedTechnique) technique = findTechnique(input.name);
        if (scenario) count = std::min<std::uint64_t>(count, scenario->maxCount);
        check(fmt::format("'inputs[{}]'", i));
    }
}

std::string replayToJson(const Recording& recording) {
    Json j;
    j["format"] = kReplayFormat;
    j["version"] = kReplayVersion;
    j["end_tick"] = recording.endTick;
    j["end_hash"] = recording.endHash;
    Json inputs = Json::array();
    for (const Command& input : recording.inputs) inputs.push_back(inputJson(input));
    j["inputs"] = inputs;
    j["start"] = nullptr;
    // The start is a scene file's text, in place (its columns one line each).
    std::string out = j.dump(1);
    std::string start = sceneToJson({recording.start, recording.camera});
    start.pop_back();  // its final newline
    const std::string placeholder = "\"start\": null";
    out.replace(out.rfind(placeholder), placeholder.size(), "\"start\": " + start);
    return out + "\n";
}

Recording replayFromJson(const std::string& text_, const StopCheck& stop) {
    const Json j = parseJson(text_, stop);
    checkHeader(j, kReplayFormat, kReplayVersion);
    Recording recording;
    recording.endTick = whole(j, "end_tick");
    recording.endHash = whole(j, "end_hash");
    const Json& inputs = member(j, "inputs", "");
    if (!inputs.is_array()) fail("'inputs' must be an array");
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        recording.inputs.push_back(inputFrom(inputs[i], i));
        if (recording.inputs.back().tick > recording.endTick)
            fail(fmt::format("'inputs[{}].tick' is {}, after the end tick {}", i, recording.inputs.back().tick,
                             recording.endTick));
        if (i > 0 && recording.inputs[i].tick < recording.inputs[i - 1].tick)
            fail(fmt::format("'inputs[{}].tick' goes back in time", i));
    }
    try {
        const SceneFile start = sceneFrom(member(j, "start", ""));
        recording.start = start.lab;
        recording.camera = start.camera;
    } catch (const SceneFileError& e) {
        fail(fmt::format("in 'start': {}", e.what()));
    }
    checkReplayCounts(recording);
    return recording;
}

void saveReplayFile(const std::string& path, const Recording& recording) { writeFile(path, replayToJson(recording)); }

Recording loadReplayFile(const std::string& path, const StopCheck& stop) {
    const std::string text = readFile(path);
    try {
        return replayFromJson(text, stop);
    } catch (const SceneFileError& e) {
        fail(fmt::format("{}: {}", path, e.what()));
    }
}

std::string loadInto(const std::string& path, Lab& lab, Camera& camera) {
    try {
        const SceneFile scene = loadSceneFile(path);
        lab.restore(scene.lab);
        camera = scene.camera;
        return {};
    } catch (const SceneFileError& e) {
        return e.what();
    } catch (const std::invalid_argument& e) {
        return fmt::format("{}: {}", path, e.what());
    }
}

}  // namespace ro::app
