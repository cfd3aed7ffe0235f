#include "support/json.h"

#include <nlohmann/json.hpp>

namespace support {

struct Json::Document {
  nlohmann::json root;
};

namespace {
const nlohmann::json& Node(const void* node) {
  static const nlohmann::json null_value;
  return node != nullptr ? *static_cast<const nlohmann::json*>(node) : null_value;
}
}  // namespace

Json::Json() = default;

Json Json::parse(std::istream& stream) {
  auto document = std::make_shared<Document>();
  document->root = nlohmann::json::parse(stream);
  const void* root = &document->root;
  return Json(std::move(document), root);
}

bool Json::is_null() const { return Node(node_).is_null(); }
bool Json::contains(const std::string& key) const { return Node(node_).contains(key); }
size_t Json::size() const { return Node(node_).size(); }
Json Json::at(const std::string& key) const { return Json(document_, &Node(node_).at(key)); }
Json Json::at(size_t index) const { return Json(document_, &Node(node_).at(index)); }
std::string Json::dump() const { return Node(node_).dump(); }

template <typename T>
T Json::get() const {
  return Node(node_).get<T>();
}

template <>
std::vector<Json> Json::get<std::vector<Json>>() const {
  std::vector<Json> elements;
  for (size_t i = 0; i < size(); ++i) elements.push_back(at(i));
  return elements;
}

template std::string Json::get<std::string>() const;
template bool Json::get<bool>() const;
template int Json::get<int>() const;
template uint32_t Json::get<uint32_t>() const;
template int64_t Json::get<int64_t>() const;
template double Json::get<double>() const;
template std::vector<bool> Json::get<std::vector<bool>>() const;
template std::vector<int> Json::get<std::vector<int>>() const;
template std::vector<int64_t> Json::get<std::vector<int64_t>>() const;
template std::vector<double> Json::get<std::vector<double>>() const;
template std::vector<std::string> Json::get<std::vector<std::string>>() const;

std::ostream& operator<<(std::ostream& out, const Json& value) { return out << value.dump(); }

}  // namespace support
