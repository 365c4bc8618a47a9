//===- Cache.cpp - the on-disk kernel cache -------------------------------===//
//
// Part of tilelang. Implements DiskCache (include/tilelang/Runtime/Cache.h):
// content-hashed entries published by directory rename, with a checksummed
// metadata.json that makes truncated or corrupt entries detectable.
//
//===----------------------------------------------------------------------===//

#include "tilelang/Runtime/Cache.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <unistd.h>

namespace tilelang::runtime {

namespace {

/// The layout version of an entry; bumped when metadata.json changes shape.
constexpr int kEntryFormat = 1;
constexpr const char *kMetadataName = "metadata.json";

std::string sha256Hex(llvm::StringRef data) {
  llvm::SHA256 hasher;
  hasher.update(data);
  return llvm::toHex(hasher.final(), /*LowerCase=*/true);
}

/// File names an entry may hold: no separators, no dot files.
bool isPlainFileName(llvm::StringRef name) {
  if (name.empty() || name.front() == '.' || name == kMetadataName)
    return false;
  return llvm::all_of(name, [](char c) {
    return llvm::isAlnum(c) || c == '-' || c == '_' || c == '.';
  });
}

bool isHexKey(llvm::StringRef key) {
  return key.size() >= 8 && llvm::all_of(key, llvm::isHexDigit);
}

Status writeFile(const llvm::Twine &path, llvm::StringRef data) {
  std::error_code error;
  llvm::raw_fd_ostream stream(path.str(), error, llvm::sys::fs::OF_None);
  if (error)
    return Status::error("cannot write " + path.str() + ": " +
                         error.message());
  stream << data;
  stream.close();
  if (stream.has_error())
    return Status::error("cannot write " + path.str() + ": " +
                         stream.error().message());
  return Status::success();
}

/// Renames `path` to a unique name next to it and deletes it, so that a
/// concurrent reader never sees it half-deleted under its real name.
void discardDirectory(const std::string &path) {
  llvm::SmallString<256> doomed;
  llvm::sys::fs::createUniquePath(path + ".discard-%%%%%%%%", doomed,
                                  /*MakeAbsolute=*/false);
  if (!llvm::sys::fs::rename(path, doomed))
    llvm::sys::fs::remove_directories(doomed, /*IgnoreErrors=*/true);
}

/// Reads and verifies one entry directory. Returns the empty string when
/// it is whole, else what is wrong with it.
std::string readEntry(const std::string &path, CacheFiles &files,
                      std::string &fields) {
  auto metadataBuffer = llvm::MemoryBuffer::getFile(path + "/" + kMetadataName);
  if (!metadataBuffer)
    return "metadata.json is missing";
  llvm::Expected<llvm::json::Value> metadata =
      llvm::json::parse((*metadataBuffer)->getBuffer());
  if (!metadata) {
    std::string message = llvm::toString(metadata.takeError());
    return "metadata.json does not parse: " + message;
  }
  const llvm::json::Object *root = metadata->getAsObject();
  if (!root || root->getInteger("format") != kEntryFormat)
    return "metadata.json has an unknown format";
  const llvm::json::Object *listed = root->getObject("files");
  if (!listed)
    return "metadata.json lists no files";
  for (const auto &[name, description] : *listed) {
    const llvm::json::Object *info = description.getAsObject();
    std::optional<int64_t> size = info ? info->getInteger("bytes") : std::nullopt;
    std::optional<llvm::StringRef> checksum =
        info ? info->getString("sha256") : std::nullopt;
    if (!size || !checksum || !isPlainFileName(name.str()))
      return "metadata.json describes '" + name.str() + "' badly";
    auto buffer = llvm::MemoryBuffer::getFile(path + "/" + name.str(),
                                              /*IsText=*/false,
                                              /*RequiresNullTerminator=*/false);
    if (!buffer)
      return "'" + name.str() + "' is missing";
    llvm::StringRef data = (*buffer)->getBuffer();
    if (int64_t(data.size()) != *size)
      return "'" + name.str() + "' has " + std::to_string(data.size()) +
             " bytes, metadata.json says " + std::to_string(*size);
    if (sha256Hex(data) != *checksum)
      return "'" + name.str() + "' fails its checksum";
    files[name.str()] = data.str();
  }
  const llvm::json::Object *callerFields = root->getObject("fields");
  llvm::json::Value fieldsValue(
      callerFields ? llvm::json::Object(*callerFields) : llvm::json::Object());
  fields.clear();
  llvm::raw_string_ostream(fields) << fieldsValue;
  return "";
}

} // namespace

DiskCache::DiskCache(std::string directory) : directory(std::move(directory)) {}

std::string DiskCache::defaultDirectory() {
  if (const char *dir = std::getenv("TILELANG_CACHE_DIR"); dir && *dir)
    return dir;
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::string(xdg) + "/tilelang";
  const char *home = std::getenv("HOME");
  return std::string(home && *home ? home : "/tmp") + "/.cache/tilelang";
}

std::string DiskCache::hashKey(const std::vector<std::string> &parts) {
  llvm::SHA256 hasher;
  for (const std::string &part : parts) {
    std::string length = std::to_string(part.size()) + ":";
    hasher.update(length);
    hasher.update(part);
  }
  return llvm::toHex(hasher.final(), /*LowerCase=*/true);
}

std::string DiskCache::entryPath(const std::string &key) const {
  return directory + "/" + key.substr(0, 2) + "/" + key;
}

CacheLookup DiskCache::lookup(const std::string &key, CacheFiles &files,
                              std::string &fields, std::string &reason) const {
  files.clear();
  fields.clear();
  if (!isHexKey(key)) {
    reason = "'" + key + "' is not a cache key";
    return CacheLookup::Miss;
  }
  std::string path = entryPath(key);
  if (!llvm::sys::fs::is_directory(path))
    return CacheLookup::Miss;
  reason = readEntry(path, files, fields);
  if (reason.empty())
    return CacheLookup::Hit;
  files.clear();
  fields.clear();
  discardDirectory(path);
  return CacheLookup::Corrupt;
}

Status DiskCache::publish(const std::string &key, const CacheFiles &files,
                          const std::string &fields, bool replace) const {
  if (!isHexKey(key))
    return Status::error("'" + key + "' is not a cache key");
  llvm::json::Object callerFields;
  if (!fields.empty()) {
    llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(fields);
    if (!parsed)
      return Status::error("cache metadata is not JSON: " +
                           llvm::toString(parsed.takeError()));
    if (!parsed->getAsObject())
      return Status::error("cache metadata must be a JSON object");
    callerFields = std::move(*parsed->getAsObject());
  }
  for (const auto &entry : files)
    if (!isPlainFileName(entry.first))
      return Status::error("'" + entry.first + "' cannot name a cache file");
  std::string shard = directory + "/" + key.substr(0, 2);
  if (std::error_code error = llvm::sys::fs::create_directories(shard))
    return Status::error("cannot create the cache directory " + shard + ": " +
                         error.message());

  // Everything goes into a private directory first; whatever is left of
  // it (all of it unless it was renamed into place) is removed on return.
  llvm::SmallString<256> staging;
  if (std::error_code error = llvm::sys::fs::createUniqueDirectory(
          shard + "/.tmp-" + key.substr(0, 16), staging))
    return Status::error("cannot create a directory in " + shard + ": " +
                         error.message());
  llvm::scope_exit removeStaging([&] {
    llvm::sys::fs::remove_directories(staging, /*IgnoreErrors=*/true);
  });
  llvm::json::Object listed;
  for (const auto &[name, data] : files) {
    Status written = writeFile(staging + "/" + name, data);
    if (!written.ok)
      return written;
    listed[name] = llvm::json::Object{{"bytes", int64_t(data.size())},
                                      {"sha256", sha256Hex(data)}};
  }
  llvm::json::Object metadata{{"format", kEntryFormat},
                              {"key", key},
                              {"files", std::move(listed)},
                              {"fields", std::move(callerFields)}};
  std::string metadataText;
  llvm::raw_string_ostream(metadataText)
      << llvm::formatv("{0:2}", llvm::json::Value(std::move(metadata)));
  Status written = writeFile(staging + "/" + kMetadataName, metadataText);
  if (!written.ok)
    return written;

  // rename(2) of a directory onto a non-empty one fails, so the first
  // publisher wins and later ones see its entry.
  std::string path = entryPath(key);
  for (int attempt = 0; attempt < 4; ++attempt) {
    if (!llvm::sys::fs::rename(staging, path))
      return Status::success();
    CacheFiles existingFiles;
    std::string existingFields;
    if (!replace && llvm::sys::fs::is_directory(path) &&
        readEntry(path, existingFiles, existingFields).empty())
      return Status::success();
    discardDirectory(path);
  }
  return Status::error("cannot publish the cache entry " + path);
}

} // namespace tilelang::runtime
