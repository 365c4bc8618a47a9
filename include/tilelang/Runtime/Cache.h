//===- Cache.h - the on-disk kernel cache -----------------------*- C++ -*-===//
//
// Part of tilelang. Compiled kernels persist across processes in a cache
// directory ($TILELANG_CACHE_DIR, default ~/.cache/tilelang). An entry is a
// directory named by a content hash (compiler version, IR, target, options,
// driver) holding the IR of each stage, the PTX, the cubin and a
// metadata.json with the entry's key, a SHA-256 of every file and a
// checksum of the metadata itself. Entries are written into a private
// temporary directory and renamed into place, so concurrent processes never
// see half an entry; a truncated, corrupt or foreign entry fails validation
// on lookup, is removed and reported, and the caller rebuilds it.
//
// The cache never acts outside its directory: it follows no symbolic link
// below the directory, deletes nothing but its own entries and staging
// directories, reads only regular files owned by the user, within bounded
// sizes, and uses no directory or file another user owns or may write.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_RUNTIME_CACHE_H
#define TILELANG_RUNTIME_CACHE_H

#include "tilelang/Runtime/Runtime.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tilelang::runtime {

/// The files of one entry, by name ("ptx", "cubin", "tile", ...). Names are
/// plain file names: letters, digits, '-', '_' and '.'.
using CacheFiles = std::map<std::string, std::string>;

/// What a lookup found.
enum class CacheLookup {
  /// The entry exists and validates: its metadata names this key and
  /// matches its checksum, and every file matches its size and checksum.
  Hit,
  /// No entry under this key.
  Miss,
  /// An entry existed but was incomplete, corrupt or not what this cache
  /// writes (a symbolic link, a special file, another key's entry); it has
  /// been removed.
  Corrupt,
  /// An entry existed but is owned by another user or writable by others;
  /// it was not read, and has been removed.
  Untrusted,
  /// The cache directory itself is not usable: owned by another user,
  /// writable by others, or not a directory. Nothing was read or removed,
  /// and publish refuses it too.
  Refused,
};

/// A cache directory. Cheap to construct; holds no open files.
class TILELANG_API DiskCache {
public:
  /// The largest metadata.json and entry file read or written.
  static constexpr std::uint64_t kMaxMetadataBytes = 1 << 20;
  static constexpr std::uint64_t kMaxFileBytes = std::uint64_t(256) << 20;
  /// How deep metadata.json may nest arrays and objects.
  static constexpr unsigned kMaxMetadataDepth = 64;
  /// Staging and discarded directories older than this are left by a
  /// killed process and are swept.
  static constexpr std::int64_t kStaleSeconds = 3600;

  /// `directory` is made absolute once, here: a relative one names the
  /// same place however the process changes its working directory later.
  explicit DiskCache(std::string directory);

  /// $TILELANG_CACHE_DIR, else $XDG_CACHE_HOME/tilelang, else
  /// $HOME/.cache/tilelang.
  static std::string defaultDirectory();

  /// The hex SHA-256 of `parts`, each length-prefixed so that different
  /// splits of the same bytes give different keys.
  static std::string hashKey(const std::vector<std::string> &parts);

  /// Reads entry `key` into `files` and `fields` (the caller's metadata, a
  /// JSON object as text). On Corrupt, Untrusted and Refused, `reason` says
  /// what was wrong. With `only`, just the files named there (and listed by
  /// the entry) are read and checked against their checksums, the others
  /// not even opened: a launch needs the cubin, not megabytes of
  /// intermediate IR; a later lookup can read those.
  CacheLookup lookup(const std::string &key, CacheFiles &files,
                     std::string &fields, std::string &reason,
                     const std::vector<std::string> *only = nullptr) const;

  /// Publishes `files` and `fields` (a JSON object as text) under `key`.
  /// When another process published a valid entry first, theirs is kept
  /// and this succeeds; an invalid entry in the way is replaced. With
  /// `replace`, an existing valid entry is replaced too (forced
  /// recompilation). The directory is created 0700 and the files 0600.
  /// The first publish of a process also sweeps stale staging directories
  /// (see sweep).
  Status publish(const std::string &key, const CacheFiles &files,
                 const std::string &fields, bool replace = false) const;

  /// Removes entry `key` if there is one (the caller found it unusable).
  void discard(const std::string &key) const;

  /// Removes the staging and discarded directories this cache leaves when
  /// a process is killed while writing or deleting an entry, when they are
  /// older than `maxAgeSeconds`. Touches nothing else: only directories
  /// (never links) owned by the user, named as this cache names them.
  /// Returns how many were removed.
  unsigned sweep(std::int64_t maxAgeSeconds = kStaleSeconds) const;

  /// Where entry `key` lives (whether or not it exists).
  std::string entryPath(const std::string &key) const;

  const std::string &getDirectory() const { return directory; }

private:
  std::string directory;
};

} // namespace tilelang::runtime

#endif // TILELANG_RUNTIME_CACHE_H
