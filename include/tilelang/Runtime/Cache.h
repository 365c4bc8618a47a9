//===- Cache.h - the on-disk kernel cache -----------------------*- C++ -*-===//
//
// Part of tilelang. Compiled kernels persist across processes in a cache
// directory ($TILELANG_CACHE_DIR, default ~/.cache/tilelang). An entry is a
// directory named by a content hash (compiler version, IR, target, options,
// driver) holding the IR of each stage, the PTX, the cubin and a
// metadata.json with a SHA-256 of every file. Entries are written into a
// private temporary directory and renamed into place, so concurrent
// processes never see half an entry; a truncated or corrupt entry fails its
// checksum on lookup, is removed and reported as a miss to rebuild.
//
//===----------------------------------------------------------------------===//

#ifndef TILELANG_RUNTIME_CACHE_H
#define TILELANG_RUNTIME_CACHE_H

#include "tilelang/Runtime/Runtime.h"

#include <map>
#include <string>
#include <vector>

namespace tilelang::runtime {

/// The files of one entry, by name ("ptx", "cubin", "tile", ...). Names are
/// plain file names: letters, digits, '-', '_' and '.'.
using CacheFiles = std::map<std::string, std::string>;

/// What a lookup found.
enum class CacheLookup {
  /// The entry exists and every file matches its checksum.
  Hit,
  /// No entry under this key.
  Miss,
  /// An entry existed but was incomplete or corrupt; it has been removed.
  Corrupt,
};

/// A cache directory. Cheap to construct; holds no open files.
class TILELANG_API DiskCache {
public:
  explicit DiskCache(std::string directory);

  /// $TILELANG_CACHE_DIR, else $XDG_CACHE_HOME/tilelang, else
  /// $HOME/.cache/tilelang.
  static std::string defaultDirectory();

  /// The hex SHA-256 of `parts`, each length-prefixed so that different
  /// splits of the same bytes give different keys.
  static std::string hashKey(const std::vector<std::string> &parts);

  /// Reads entry `key` into `files` and `fields` (the caller's metadata, a
  /// JSON object as text). On Corrupt, `reason` says what was wrong.
  CacheLookup lookup(const std::string &key, CacheFiles &files,
                     std::string &fields, std::string &reason) const;

  /// Publishes `files` and `fields` (a JSON object as text) under `key`.
  /// When another process published a valid entry first, theirs is kept
  /// and this succeeds; a corrupt entry in the way is replaced. With
  /// `replace`, an existing valid entry is replaced too (forced
  /// recompilation).
  Status publish(const std::string &key, const CacheFiles &files,
                 const std::string &fields, bool replace = false) const;

  /// Where entry `key` lives (whether or not it exists).
  std::string entryPath(const std::string &key) const;

  const std::string &getDirectory() const { return directory; }

private:
  std::string directory;
};

} // namespace tilelang::runtime

#endif // TILELANG_RUNTIME_CACHE_H
