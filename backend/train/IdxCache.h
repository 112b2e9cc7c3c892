#pragma once
// Decoded IDX files, once per host: the first trainer that needs a .gz file decompresses it
// into the user's cache (private, written whole and renamed into place, under a file lock so
// that trainers starting together decode it once); every trainer then maps the decoded file
// read-only and reads only the rows of its shard. Start-up no longer grows with the number of
// trainers on a host (issue 10): each used to decompress and copy the whole 47 MB training set.
#include <QFile>
#include <QString>
#include <memory>

namespace hips {

class MappedIdx {
public:
    // The decoded bytes of `gzPath` (header included), mapped read-only; throws TrainError. One
    // mapping per process, kept while it lives: the workers of a shared trainer (several in one
    // process) fault its pages in once, not once each.
    static std::shared_ptr<const MappedIdx> open(const QString& gzPath);
    const uchar* data() const { return m_data; }
    qint64 size() const { return m_size; }

private:
    static std::shared_ptr<const MappedIdx> map(const QString& gzPath, const QString& cached);

    mutable QFile m_file;
    const uchar* m_data = nullptr;
    qint64 m_size = 0;
};

// Where decoded files go: $XDG_CACHE_HOME/hips-studio/idx, else ~/.cache/hips-studio/idx.
QString idxCacheDir();

}  // namespace hips
