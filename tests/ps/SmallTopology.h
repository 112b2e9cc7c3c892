#pragma once
// small.json for the scheduler's tests, on ports free for the test process (the same ones at
// every call), with a short reply timeout.
#include "../integration/FreePorts.h"
#include "TopologyReader.h"

#include <QFile>
#include <QJsonDocument>

namespace hips::test {

inline Topology smallTopology() {
    static FreePorts ports;
    QFile file(HIPS_SOURCE_DIR "/tests/data/topologies/small.json");
    if (!file.open(QIODevice::ReadOnly)) qFatal("cannot read small.json");
    const QJsonValue moved = ports.moved(QJsonDocument::fromJson(file.readAll()).object());
    TopologyLoad load = TopologyReader::readJson(QJsonDocument(moved.toObject()).toJson());
    if (!load.ok()) qFatal("%s", qPrintable(load.errorText()));
    Topology t = *load.topology;
    t.training.replyTimeoutS = 10;
    return t;
}

}  // namespace hips::test
