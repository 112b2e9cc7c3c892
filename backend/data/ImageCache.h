#pragma once
// An image folder's decoded samples kept between starts (decoding 60,000 PNGs takes seconds,
// reading them back a fraction of one). One file per folder and decoding settings in the cache
// folder; inside, a digest of the files' names, sizes and times: a changed folder is decoded
// anew and its file rewritten.
#include "DataReaders.h"

#include <QByteArray>
#include <QString>

namespace hips {

// The cache file for `folder` decoded with `options` (options.cacheDir must not be empty).
QString imageCachePath(const QString& folder, const ReadOptions& options);
// Fills `set` (shape, labels, bytes) from `path` when it holds `digest`'s samples: exactly
// `samples` of them, labels below `classes`. A missing, foreign or damaged file: false.
bool loadImageCache(const QString& path, const QByteArray& digest, int64_t samples, int classes, SampleSet* set);
// Writes `set` to `path` atomically (a temporary file renamed), readable by its owner only, in a
// folder made owner-only where it is made. A cache that cannot be written costs only time: a
// warning, no error.
void storeImageCache(const QString& path, const QByteArray& digest, const SampleSet& set);

}  // namespace hips
