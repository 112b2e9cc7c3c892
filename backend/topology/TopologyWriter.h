#pragma once
#include "Topology.h"

#include <QByteArray>

namespace hips {

// Writes a topology in the format TopologyReader reads; read(write(t)) == t.
class TopologyWriter {
public:
    static QJsonObject toJsonObject(const Topology& topology);
    static QByteArray toJson(const Topology& topology);
};

}  // namespace hips
