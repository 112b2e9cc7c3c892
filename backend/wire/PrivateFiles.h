#pragma once
// Files that hold private data (the run history, run directories, checkpoints) are created
// owner-only whatever the umask, and whole files are replaced atomically with every step checked;
// so are the files a user asks for (reports, charts, topologies), with ordinary permissions.
// Each function returns an error text naming the file and the cause, empty on success.
#include <QByteArray>
#include <QString>

namespace hips {

constexpr unsigned kPrivateFileMode = 0600;
constexpr unsigned kPrivateDirectoryMode = 0700;

// Creates `path` and any missing parents; each directory it creates gets `mode`. An existing
// directory keeps its mode (it is the user's).
QString makePrivateDirectory(const QString& path, unsigned mode = kPrivateDirectoryMode);

// Empty when `path` (if it exists) is a directory of this user that no one else may write in
// (and, unless `followLink`, not a symbolic link); else why not. Another user may have made it in
// advance (a shared folder, a run's name guessed), to read what a run writes or to point its
// files elsewhere.
QString checkOwnDirectory(const QString& path, bool followLink = false);
// checkOwnDirectory for `path` and each folder above it up to `root` (not `root` itself, which the
// caller chose): the agent's check of a run's output folder below its runs directory.
QString checkOwnDirectoriesBelow(const QString& path, const QString& root);
// Empty when no one else can rename or replace `path` (a run directory) from above: each folder
// above it up to / belongs to this user or root and, where others may write in it, has the sticky
// bit (as /tmp has); else why not. Checks once made cannot be swapped away after them this way.
QString checkFoldersAboveAreSafe(const QString& path);

// Creates an empty file with `mode` if `path` does not exist yet; an existing file is left as it is.
QString createPrivateFile(const QString& path, unsigned mode = kPrivateFileMode);

// Writes `bytes` to a new temporary file beside `path` (created with `mode`), syncs it to disk and
// renames it over `path`: readers see the old file or the new one, never a part of either. On
// failure `path` is unchanged and the temporary file is removed.
QString writeFileAtomically(const QString& path, const QByteArray& bytes, unsigned mode = kPrivateFileMode);

// A file the user named (a report, a chart, a topology), written as writeFileAtomically does: a full
// disk leaves the old file, never part of a new one reported saved. It keeps the permissions of the
// file it replaces; a new one is 0644. A path naming anything but a regular file (a folder, a
// device, a pipe, also through a symbolic link) is refused: the rename would replace it.
QString writeUserFile(const QString& path, const QByteArray& bytes);

// strerror(errnum) in lower case, to go after a colon: "no space left on device".
QString systemErrorText(int errnum);

}  // namespace hips
