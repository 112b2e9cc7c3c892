#pragma once
// A host's own say over what runs may read there. The topology names each party's data, and the
// topology is a file anyone can edit; a host's operator lists the folders that runs may read on
// that host in `data-roots` beside its agent (INSTALL_DIR/data-roots: one absolute path a line,
// '#' starts a comment). Where the file exists, a source outside those folders is refused before
// a byte of it is read, whatever the topology says; where it does not, the topology decides.
#include <QString>

namespace hips {

// The host's list: data-roots in the folder above this program's (INSTALL_DIR/bin/..).
QString defaultDataRootsFile();

// Empty when `path` may be read under `rootsFile` (or there is no such file), else why not and
// what to do. Paths are compared with symbolic links and ".." resolved.
QString dataRootsProblem(const QString& path, const QString& rootsFile);

}  // namespace hips
