//===- Cache.cpp - the on-disk kernel cache -------------------------------===//
//
// Part of tilelang. Implements DiskCache (include/tilelang/Runtime/Cache.h):
// content-hashed entries published by directory rename, with a checksummed
// metadata.json bound to the entry's key that makes truncated, corrupt or
// foreign entries detectable.
//
// Everything below the cache directory goes through file descriptors
// (openat, renameat, unlinkat with O_NOFOLLOW), one path component at a
// time, so that a symbolic link planted inside the cache is never followed,
// neither to read nor to delete, and a FIFO or device is never opened for
// blocking reads. POSIX only, like the rest of the runtime.
//
//===----------------------------------------------------------------------===//

#include "tilelang/Runtime/Cache.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>
#include <random>
#include <set>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tilelang::runtime {

namespace {

/// The layout version of an entry; bumped when metadata.json changes shape.
/// 2: the metadata carries its own checksum and must name the entry's key.
constexpr int kEntryFormat = 2;
constexpr const char *kMetadataName = "metadata.json";
/// More files than an entry of any kernel holds.
constexpr size_t kMaxFiles = 64;
/// How deep removal descends: entries are one level deep; anything deeper
/// was not written by this cache and is left where it is.
constexpr unsigned kMaxRemoveDepth = 4;

/// An owned file descriptor.
class FileDescriptor {
public:
  FileDescriptor() = default;
  explicit FileDescriptor(int fd) : fd(fd) {}
  FileDescriptor(const FileDescriptor &) = delete;
  FileDescriptor &operator=(const FileDescriptor &) = delete;
  FileDescriptor(FileDescriptor &&other) : fd(other.fd) { other.fd = -1; }
  FileDescriptor &operator=(FileDescriptor &&other) {
    std::swap(fd, other.fd);
    return *this;
  }
  ~FileDescriptor() {
    if (fd >= 0)
      ::close(fd);
  }
  int get() const { return fd; }
  explicit operator bool() const { return fd >= 0; }

private:
  int fd = -1;
};

std::string sha256Hex(llvm::StringRef data) {
  llvm::SHA256 hasher;
  hasher.update(data);
  return llvm::toHex(hasher.final(), /*LowerCase=*/true);
}

std::string errnoText() { return std::strerror(errno); }

std::string modeText(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof(text), "%04o", unsigned(mode & 07777));
  return text;
}

/// Why a directory or file with status `st` may not be trusted, or "".
/// Only what the user owns and no one else may write is used: anyone who
/// could change an entry could make this process launch their code.
std::string untrustedReason(const struct stat &st, llvm::StringRef what) {
  if (st.st_uid != ::geteuid())
    return (what + " is owned by uid " + llvm::Twine(unsigned(st.st_uid)) +
            ", not by this user (uid " + llvm::Twine(unsigned(::geteuid())) +
            ")")
        .str();
  if (st.st_mode & (S_IWGRP | S_IWOTH))
    return (what + " is writable by others (mode " + modeText(st.st_mode) + ")")
        .str();
  return "";
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

bool isLowerHex(llvm::StringRef text) {
  return llvm::all_of(
      text, [](char c) { return llvm::isDigit(c) || (c >= 'a' && c <= 'f'); });
}

/// `.tmp-<16 hex>-<suffix>`: a staging directory of publish (the suffix is
/// 8 hex digits; 6 in entries written before format 2).
bool isStagingName(llvm::StringRef name) {
  if (!name.consume_front(".tmp-") || name.size() < 17 || name[16] != '-')
    return false;
  llvm::StringRef prefix = name.take_front(16), suffix = name.drop_front(17);
  return isLowerHex(prefix) && suffix.size() >= 6 && suffix.size() <= 16 &&
         isLowerHex(suffix);
}

/// `<shard or key>.discard-<8 hex>`: an entry (or shard) being deleted.
bool isDiscardName(llvm::StringRef name) {
  auto [head, suffix] = name.split(".discard-");
  return head.size() >= 2 && head.size() <= 64 && isLowerHex(head) &&
         suffix.size() >= 6 && suffix.size() <= 16 && isLowerHex(suffix);
}

std::string randomHex() {
  std::random_device device;
  char text[16];
  std::snprintf(text, sizeof(text), "%08x", unsigned(device()));
  return text;
}

/// Whether `text` nests arrays and objects at most `limit` deep. The JSON
/// parser recurses once per level, so a deeper metadata.json would overflow
/// the stack instead of failing to parse.
bool nestingWithin(llvm::StringRef text, unsigned limit) {
  unsigned depth = 0;
  bool inString = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (inString) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limit)
        return false;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return true;
}

/// The checksum metadata.json carries: a SHA-256 of the rest of it (format,
/// key, files and fields) printed compactly, which sorts object keys, so
/// that what is checked is what was parsed.
std::string metadataChecksum(const llvm::json::Object &metadata) {
  llvm::json::Object rest = metadata;
  rest.erase("checksum");
  std::string text;
  llvm::raw_string_ostream(text) << llvm::json::Value(std::move(rest));
  return sha256Hex(text);
}

/// Opens directory `name` in `dirFd`, never following a link.
/// Returns "" and sets `result`, or says why not; `missing` is set when
/// there is nothing by that name, `untrusted` when it is not the user's.
std::string openDirectoryAt(int dirFd, const std::string &name,
                            llvm::StringRef what, FileDescriptor &result,
                            bool &missing, bool &untrusted) {
  missing = untrusted = false;
  int fd = ::openat(dirFd, name.c_str(),
                    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    int error = errno;
    struct stat st;
    if (error == ENOENT) {
      missing = true;
      return (what + " is missing").str();
    }
    if (::fstatat(dirFd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
      if (S_ISLNK(st.st_mode))
        return (what + " is a symbolic link").str();
      if (!S_ISDIR(st.st_mode))
        return (what + " is not a directory").str();
    }
    return (what + " cannot be opened: " + std::strerror(error)).str();
  }
  result = FileDescriptor(fd);
  struct stat st;
  if (::fstat(fd, &st) != 0)
    return (what + " cannot be read: " + errnoText()).str();
  std::string reason = untrustedReason(st, what);
  untrusted = !reason.empty();
  return reason;
}

/// Reads regular file `name` in `dirFd` into `data`: no link is followed, no
/// special file (FIFO, device) is read, at most `maxBytes` are read, and
/// the file must be the user's alone. Returns "" or what is wrong;
/// `untrusted` says the problem is ownership or permissions.
std::string readFileAt(int dirFd, const std::string &name, uint64_t maxBytes,
                       std::string &data, bool &untrusted) {
  untrusted = false;
  std::string quoted = "'" + name + "'";
  struct stat st;
  if (::fstatat(dirFd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
    return errno == ENOENT ? quoted + " is missing"
                           : quoted + " cannot be read: " + errnoText();
  if (S_ISLNK(st.st_mode))
    return quoted + " is a symbolic link";
  if (!S_ISREG(st.st_mode))
    return quoted + " is not a regular file";
  // O_NONBLOCK: should a FIFO have taken the file's place since the check
  // above, opening it must not wait for a writer.
  FileDescriptor fd(
      ::openat(dirFd, name.c_str(),
               O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  if (!fd)
    return quoted + " cannot be opened: " + errnoText();
  if (::fstat(fd.get(), &st) != 0)
    return quoted + " cannot be read: " + errnoText();
  if (!S_ISREG(st.st_mode))
    return quoted + " is not a regular file";
  std::string reason = untrustedReason(st, quoted);
  if (reason.empty() && st.st_nlink != 1)
    reason = quoted + " has " + std::to_string(st.st_nlink) +
             " links (an entry's files have one)";
  if (!reason.empty()) {
    untrusted = true;
    return reason;
  }
  if (uint64_t(st.st_size) > maxBytes)
    return quoted + " has " + std::to_string(st.st_size) +
           " bytes, more than the " + std::to_string(maxBytes) + " expected";
  data.resize(size_t(st.st_size));
  size_t done = 0;
  while (done < data.size()) {
    ssize_t got = ::read(fd.get(), &data[done], data.size() - done);
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0)
      return quoted + " cannot be read: " + errnoText();
    if (got == 0)
      return quoted + " shrank while it was read";
    done += size_t(got);
  }
  return "";
}

Status writeFileAt(int dirFd, const std::string &name, llvm::StringRef data) {
  FileDescriptor fd(
      ::openat(dirFd, name.c_str(),
               O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!fd)
    return Status::error("cannot write " + name + ": " + errnoText());
  // 0600 whatever the umask, which may have cleared the owner's bits.
  ::fchmod(fd.get(), 0600);
  size_t done = 0;
  while (done < data.size()) {
    ssize_t wrote = ::write(fd.get(), data.data() + done, data.size() - done);
    if (wrote < 0 && errno == EINTR)
      continue;
    if (wrote <= 0)
      return Status::error("cannot write " + name + ": " + errnoText());
    done += size_t(wrote);
  }
  return Status::success();
}

/// The names in directory `dirFd` but "." and "..".
std::vector<std::string> listDirectory(int dirFd) {
  std::vector<std::string> names;
  int fd = ::dup(dirFd);
  if (fd < 0)
    return names;
  DIR *listing = ::fdopendir(fd);
  if (!listing) {
    ::close(fd);
    return names;
  }
  // The duplicate shares the offset of `dirFd`, which an earlier listing
  // may have left at the end.
  ::rewinddir(listing);
  while (struct dirent *child = ::readdir(listing))
    if (std::strcmp(child->d_name, ".") && std::strcmp(child->d_name, ".."))
      names.push_back(child->d_name);
  ::closedir(listing);
  return names;
}

/// Removes `name` in `dirFd`: a link or file is unlinked (never followed),
/// a directory is emptied and removed, without crossing into another file
/// system or descending more than `depth` levels. Errors are ignored.
void removeTreeAt(int dirFd, const std::string &name, dev_t device,
                  unsigned depth = kMaxRemoveDepth) {
  struct stat st;
  if (::fstatat(dirFd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
    return;
  if (!S_ISDIR(st.st_mode)) {
    ::unlinkat(dirFd, name.c_str(), 0);
    return;
  }
  if (depth == 0 || st.st_dev != device)
    return;
  FileDescriptor fd(::openat(dirFd, name.c_str(),
                             O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd)
    return;
  for (const std::string &child : listDirectory(fd.get()))
    removeTreeAt(fd.get(), child, device, depth - 1);
  ::unlinkat(dirFd, name.c_str(), AT_REMOVEDIR);
}

/// Renames `name` in `dirFd` to a unique name next to it and deletes it, so
/// that a concurrent reader never sees it half-deleted under its real name.
void discardAt(int dirFd, const std::string &name) {
  struct stat parent;
  if (::fstat(dirFd, &parent) != 0)
    return;
  std::string doomed = name + ".discard-" + randomHex();
  if (::renameat(dirFd, name.c_str(), dirFd, doomed.c_str()) == 0)
    removeTreeAt(dirFd, doomed, parent.st_dev);
}

/// The cache directory, opened: "" when usable. `missing` when it cannot
/// be opened (and `create` is false). The directory itself may be reached
/// through links (the user chose it); it must be the user's alone.
std::string openRoot(const std::string &directory, bool create,
                     FileDescriptor &root, bool &missing) {
  missing = false;
  if (create) {
    int made = ::mkdir(directory.c_str(), 0700);
    if (made != 0 && errno == ENOENT) {
      // Parents as any directory is created; the cache itself 0700.
      llvm::StringRef parent = llvm::sys::path::parent_path(directory);
      if (std::error_code error = llvm::sys::fs::create_directories(parent))
        return "cannot create the cache directory " + directory + ": " +
               error.message();
      made = ::mkdir(directory.c_str(), 0700);
    }
    // 0700 whatever the umask, which may have cleared the owner's bits.
    if (made == 0)
      ::chmod(directory.c_str(), 0700);
  }
  root = FileDescriptor(
      ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!root) {
    // A lookup finds nothing where there is no directory to open (missing,
    // not a directory, not searchable); publish reports why.
    if (!create) {
      missing = true;
      return "";
    }
    return "the cache directory " + directory +
           " cannot be opened: " + errnoText();
  }
  struct stat st;
  if (::fstat(root.get(), &st) != 0)
    return "the cache directory " + directory +
           " cannot be read: " + errnoText();
  return untrustedReason(st, "the cache directory " + directory);
}

/// What inspecting an entry found, and why.
struct Verdict {
  CacheLookup state = CacheLookup::Hit;
  std::string reason;
};

Verdict corrupt(std::string reason) {
  return {CacheLookup::Corrupt, std::move(reason)};
}

/// Reads and verifies entry `key` in shard `shardFd` (of its files, those
/// in `only` when given), changing nothing.
Verdict inspectEntry(int shardFd, const std::string &key, CacheFiles &files,
                     std::string &fields,
                     const std::vector<std::string> *only) {
  files.clear();
  fields.clear();
  FileDescriptor entry;
  bool missing, untrusted;
  std::string reason =
      openDirectoryAt(shardFd, key, "the entry", entry, missing, untrusted);
  if (missing)
    return {CacheLookup::Miss, ""};
  if (!reason.empty())
    return {untrusted ? CacheLookup::Untrusted : CacheLookup::Corrupt, reason};

  std::string text;
  reason = readFileAt(entry.get(), kMetadataName, DiskCache::kMaxMetadataBytes,
                      text, untrusted);
  if (!reason.empty())
    return {untrusted ? CacheLookup::Untrusted : CacheLookup::Corrupt, reason};
  if (!nestingWithin(text, DiskCache::kMaxMetadataDepth))
    return corrupt("metadata.json nests deeper than " +
                   std::to_string(DiskCache::kMaxMetadataDepth) + " levels");
  llvm::Expected<llvm::json::Value> metadata = llvm::json::parse(text);
  if (!metadata)
    return corrupt("metadata.json does not parse: " +
                   llvm::toString(metadata.takeError()));
  const llvm::json::Object *root = metadata->getAsObject();
  if (!root || root->getInteger("format") != kEntryFormat)
    return corrupt("metadata.json has an unknown format");
  std::optional<llvm::StringRef> storedKey = root->getString("key");
  if (!storedKey || *storedKey != key)
    return corrupt("metadata.json is for another key (" +
                   (storedKey ? storedKey->str() : "none") + ")");
  std::optional<llvm::StringRef> checksum = root->getString("checksum");
  if (!checksum || *checksum != metadataChecksum(*root))
    return corrupt("metadata.json fails its checksum");
  const llvm::json::Object *listed = root->getObject("files");
  const llvm::json::Object *callerFields = root->getObject("fields");
  if (!listed || !callerFields)
    return corrupt("metadata.json lacks its files or fields");
  if (listed->size() > kMaxFiles)
    return corrupt("metadata.json lists " + std::to_string(listed->size()) +
                   " files");
  for (const auto &[name, description] : *listed) {
    const llvm::json::Object *info = description.getAsObject();
    std::optional<int64_t> size =
        info ? info->getInteger("bytes") : std::nullopt;
    std::optional<llvm::StringRef> sha =
        info ? info->getString("sha256") : std::nullopt;
    if (!size || *size < 0 || uint64_t(*size) > DiskCache::kMaxFileBytes ||
        !sha || !isPlainFileName(name.str()))
      return corrupt("metadata.json describes '" + name.str() + "' badly");
    if (only &&
        std::find(only->begin(), only->end(), name.str()) == only->end())
      continue;
    std::string data;
    reason =
        readFileAt(entry.get(), name.str(), uint64_t(*size), data, untrusted);
    if (!reason.empty())
      return {untrusted ? CacheLookup::Untrusted : CacheLookup::Corrupt,
              reason};
    if (int64_t(data.size()) != *size)
      return corrupt("'" + name.str() + "' has " + std::to_string(data.size()) +
                     " bytes, metadata.json says " + std::to_string(*size));
    if (sha256Hex(data) != *sha)
      return corrupt("'" + name.str() + "' fails its checksum");
    files[name.str()] = std::move(data);
  }
  llvm::raw_string_ostream(fields)
      << llvm::json::Value(llvm::json::Object(*callerFields));
  return {CacheLookup::Hit, ""};
}

/// Sweeps `directory` once per process (the first publish there).
void sweepOnce(const DiskCache &cache) {
  static std::mutex mutex;
  static std::set<std::string> swept;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (!swept.insert(cache.getDirectory()).second)
      return;
  }
  cache.sweep();
}

/// Removes the stale staging and discarded directories in `dirFd`.
unsigned sweepDirectory(int dirFd, time_t before, dev_t device) {
  unsigned removed = 0;
  for (const std::string &name : listDirectory(dirFd)) {
    if (!isStagingName(name) && !isDiscardName(name))
      continue;
    struct stat st;
    if (::fstatat(dirFd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
        S_ISDIR(st.st_mode) && st.st_uid == ::geteuid() &&
        st.st_mtime < before) {
      removeTreeAt(dirFd, name, device);
      ++removed;
    }
  }
  return removed;
}

} // namespace

DiskCache::DiskCache(std::string directory) {
  llvm::SmallString<256> absolute(directory);
  // A relative directory is resolved against the working directory now;
  // on failure it stays as it is (and fails to open later).
  (void)llvm::sys::fs::make_absolute(absolute);
  llvm::sys::path::remove_dots(absolute, /*remove_dot_dot=*/false);
  this->directory = std::string(absolute);
}

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
                              std::string &fields, std::string &reason,
                              const std::vector<std::string> *only) const {
  files.clear();
  fields.clear();
  reason.clear();
  if (!isHexKey(key)) {
    reason = "'" + key + "' is not a cache key";
    return CacheLookup::Miss;
  }
  FileDescriptor root;
  bool missing, untrusted;
  reason = openRoot(directory, /*create=*/false, root, missing);
  if (missing)
    return CacheLookup::Miss;
  if (!reason.empty())
    return CacheLookup::Refused;

  std::string shardName = key.substr(0, 2);
  FileDescriptor shard;
  reason = openDirectoryAt(root.get(), shardName, "the directory " + shardName,
                           shard, missing, untrusted);
  if (missing) {
    reason.clear();
    return CacheLookup::Miss;
  }
  if (!reason.empty()) {
    // Nothing this cache wrote: a link, a file, or another user's.
    discardAt(root.get(), shardName);
    return untrusted ? CacheLookup::Untrusted : CacheLookup::Corrupt;
  }
  Verdict verdict = inspectEntry(shard.get(), key, files, fields, only);
  reason = verdict.reason;
  if (verdict.state == CacheLookup::Corrupt ||
      verdict.state == CacheLookup::Untrusted) {
    files.clear();
    fields.clear();
    discardAt(shard.get(), key);
  }
  return verdict.state;
}

void DiskCache::discard(const std::string &key) const {
  if (!isHexKey(key))
    return;
  FileDescriptor root, shard;
  bool missing, untrusted;
  if (!openRoot(directory, /*create=*/false, root, missing).empty() || missing)
    return;
  if (openDirectoryAt(root.get(), key.substr(0, 2), "", shard, missing,
                      untrusted)
          .empty())
    discardAt(shard.get(), key);
}

unsigned DiskCache::sweep(std::int64_t maxAgeSeconds) const {
  FileDescriptor root;
  bool missing;
  if (!openRoot(directory, /*create=*/false, root, missing).empty() || missing)
    return 0;
  struct stat rootStat;
  if (::fstat(root.get(), &rootStat) != 0)
    return 0;
  time_t before = std::time(nullptr) - time_t(maxAgeSeconds);
  // Discarded shards lie in the directory itself; staging directories and
  // discarded entries in the shards.
  unsigned removed = sweepDirectory(root.get(), before, rootStat.st_dev);
  for (const std::string &name : listDirectory(root.get())) {
    if (name.size() != 2 || !isLowerHex(name))
      continue;
    FileDescriptor shard;
    bool untrusted;
    if (openDirectoryAt(root.get(), name, "", shard, missing, untrusted)
            .empty())
      removed += sweepDirectory(shard.get(), before, rootStat.st_dev);
  }
  return removed;
}

Status DiskCache::publish(const std::string &key, const CacheFiles &files,
                          const std::string &fields, bool replace) const {
  if (!isHexKey(key))
    return Status::error("'" + key + "' is not a cache key");
  llvm::json::Object callerFields;
  if (!fields.empty()) {
    // Two levels of metadata.json lie above the fields.
    if (!nestingWithin(fields, kMaxMetadataDepth - 2))
      return Status::error("cache metadata nests deeper than " +
                           std::to_string(kMaxMetadataDepth - 2) + " levels");
    llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(fields);
    if (!parsed)
      return Status::error("cache metadata is not JSON: " +
                           llvm::toString(parsed.takeError()));
    if (!parsed->getAsObject())
      return Status::error("cache metadata must be a JSON object");
    callerFields = std::move(*parsed->getAsObject());
  }
  if (files.size() > kMaxFiles)
    return Status::error("a cache entry holds at most " +
                         std::to_string(kMaxFiles) + " files");
  for (const auto &entry : files) {
    if (!isPlainFileName(entry.first))
      return Status::error("'" + entry.first + "' cannot name a cache file");
    if (entry.second.size() > kMaxFileBytes)
      return Status::error("'" + entry.first + "' is larger than the " +
                           std::to_string(kMaxFileBytes) +
                           " bytes a cache file may have");
  }
  llvm::json::Object listed;
  for (const auto &[name, data] : files)
    listed[name] = llvm::json::Object{{"bytes", int64_t(data.size())},
                                      {"sha256", sha256Hex(data)}};
  llvm::json::Object metadata{{"format", kEntryFormat},
                              {"key", key},
                              {"files", std::move(listed)},
                              {"fields", std::move(callerFields)}};
  metadata["checksum"] = metadataChecksum(metadata);
  std::string metadataText;
  llvm::raw_string_ostream(metadataText)
      << llvm::formatv("{0:2}", llvm::json::Value(std::move(metadata)));
  if (metadataText.size() > kMaxMetadataBytes)
    return Status::error("the cache metadata is larger than " +
                         std::to_string(kMaxMetadataBytes) + " bytes");

  FileDescriptor root;
  bool missing, untrusted;
  if (std::string reason = openRoot(directory, /*create=*/true, root, missing);
      !reason.empty())
    return Status::error(reason);
  sweepOnce(*this);

  // The shard: created 0700; anything else by its name is moved away.
  std::string shardName = key.substr(0, 2);
  FileDescriptor shard;
  for (int attempt = 0; attempt < 2 && !shard; ++attempt) {
    if (::mkdirat(root.get(), shardName.c_str(), 0700) == 0)
      ::fchmodat(root.get(), shardName.c_str(), 0700, 0);
    else if (errno != EEXIST)
      return Status::error("cannot create the cache directory " + directory +
                           "/" + shardName + ": " + errnoText());
    std::string reason =
        openDirectoryAt(root.get(), shardName,
                        "the cache directory " + directory + "/" + shardName,
                        shard, missing, untrusted);
    if (reason.empty())
      break;
    shard = FileDescriptor();
    if (attempt == 1)
      return Status::error(reason);
    discardAt(root.get(), shardName);
  }

  // Everything goes into a private directory first; whatever is left of
  // it (all of it unless it was renamed into place) is removed on return.
  std::string staging;
  for (int attempt = 0; attempt < 16 && staging.empty(); ++attempt) {
    std::string name = ".tmp-" + key.substr(0, 16) + "-" + randomHex();
    if (::mkdirat(shard.get(), name.c_str(), 0700) == 0) {
      ::fchmodat(shard.get(), name.c_str(), 0700, 0);
      staging = name;
    } else if (errno != EEXIST)
      return Status::error("cannot create a directory in " + directory + "/" +
                           shardName + ": " + errnoText());
  }
  if (staging.empty())
    return Status::error("cannot create a directory in " + directory + "/" +
                         shardName);
  struct stat shardStat;
  ::fstat(shard.get(), &shardStat);
  bool published = false;
  llvm::scope_exit removeStaging([&] {
    if (!published)
      removeTreeAt(shard.get(), staging, shardStat.st_dev);
  });
  {
    FileDescriptor stagingFd;
    if (std::string reason =
            openDirectoryAt(shard.get(), staging, "the staging directory",
                            stagingFd, missing, untrusted);
        !stagingFd)
      return Status::error(reason);
    for (const auto &[name, data] : files) {
      Status written = writeFileAt(stagingFd.get(), name, data);
      if (!written.ok)
        return written;
    }
    Status written = writeFileAt(stagingFd.get(), kMetadataName, metadataText);
    if (!written.ok)
      return written;
  }

  // rename(2) of a directory onto a non-empty one fails, so the first
  // publisher wins and later ones see its entry.
  for (int attempt = 0; attempt < 4; ++attempt) {
    if (::renameat(shard.get(), staging.c_str(), shard.get(), key.c_str()) ==
        0) {
      published = true;
      return Status::success();
    }
    if (errno != EEXIST && errno != ENOTEMPTY && errno != ENOTDIR &&
        errno != EISDIR)
      return Status::error("cannot publish the cache entry " + entryPath(key) +
                           ": " + errnoText());
    CacheFiles existingFiles;
    std::string existingFields;
    if (!replace &&
        inspectEntry(shard.get(), key, existingFiles, existingFields,
                     /*only=*/nullptr)
                .state ==
            CacheLookup::Hit)
      return Status::success();
    discardAt(shard.get(), key);
  }
  return Status::error("cannot publish the cache entry " + entryPath(key));
}

} // namespace tilelang::runtime
