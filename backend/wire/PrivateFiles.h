#pragma once
// Files that hold private data (the run history, run directories, checkpoints) are created
// owner-only whatever the umask, and whole files are replaced atomically with every step checked.
// Each function returns an error text naming the file and the cause, empty on success.
#include <QByteArray>
#include <QString>

namespace hips {

constexpr unsigned kPrivateFileMode = 0600;
constexpr unsigned kPrivateDirectoryMode = 0700;

// Creates `path` and any missing parents; each directory it creates gets `mode`. An existing
// directory keeps its mode (it is the user's).
QString makePrivateDirectory(const QString& path, unsigned mode = kPrivateDirectoryMode);

// Creates an empty file with `mode` if `path` does not exist yet; an existing file is left as it is.
QString createPrivateFile(const QString& path, unsigned mode = kPrivateFileMode);

// Writes `bytes` to a new temporary file beside `path` (created with `mode`), syncs it to disk and
// renames it over `path`: readers see the old file or the new one, never a part of either. On
// failure `path` is unchanged and the temporary file is removed.
QString writeFileAtomically(const QString& path, const QByteArray& bytes, unsigned mode = kPrivateFileMode);

// strerror(errnum) in lower case, to go after a colon: "no space left on device".
QString systemErrorText(int errnum);

}  // namespace hips
