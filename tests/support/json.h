// A read-only view of a parsed JSON document (the conformance cases). The parser is
// nlohmann::json, compiled once in json.cpp: its header is heavy (tens of seconds per
// translation unit, minutes under the sanitizers), and the tests only read documents.
// The methods mirror nlohmann's names, so the tests read as they would with it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <istream>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace support {

class Json {
 public:
  Json();  // null
  static Json parse(std::istream& stream);  // throws on malformed input, as nlohmann does

  bool is_null() const;
  bool contains(const std::string& key) const;
  size_t size() const;  // elements of an array, members of an object
  Json at(const std::string& key) const;  // throws if absent
  Json at(size_t index) const;
  Json operator[](const std::string& key) const { return at(key); }
  Json operator[](size_t index) const { return at(index); }
  template <typename T>
  T get() const;  // std::string, bool, int, uint32_t, int64_t, double, and vectors of them or of Json
  template <typename T>
  T value(const std::string& key, const T& fallback) const {
    return contains(key) && !at(key).is_null() ? at(key).get<T>() : fallback;
  }
  std::string dump() const;

 private:
  struct Document;
  Json(std::shared_ptr<const Document> document, const void* node) : document_(std::move(document)), node_(node) {}
  std::shared_ptr<const Document> document_;
  const void* node_ = nullptr;  // a nlohmann::json inside document_
};

// Defined in json.cpp for exactly these types.
template <>
std::vector<Json> Json::get<std::vector<Json>>() const;
extern template std::string Json::get<std::string>() const;
extern template bool Json::get<bool>() const;
extern template int Json::get<int>() const;
extern template uint32_t Json::get<uint32_t>() const;
extern template int64_t Json::get<int64_t>() const;
extern template double Json::get<double>() const;
extern template std::vector<bool> Json::get<std::vector<bool>>() const;
extern template std::vector<int> Json::get<std::vector<int>>() const;
extern template std::vector<int64_t> Json::get<std::vector<int64_t>>() const;
extern template std::vector<double> Json::get<std::vector<double>>() const;
extern template std::vector<std::string> Json::get<std::vector<std::string>>() const;

std::ostream& operator<<(std::ostream& out, const Json& value);

}  // namespace support
